"""Suggest motifs for the kernel at hand: retrieve the ones whose slow pattern is present, rank them by their
evidence (the bank's trajectories, those from kernels with the same bottleneck first), and, on request, verify each
deterministic rewrite on the device.

Retrieval is structural first: a motif is suggested only where its detector (analysis/motifs) finds the pattern it
removes. The profile decides the order: a motif whose evidence comes from kernels bound by the same pipe as this
one's counts fully, one whose evidence comes only from other bottlenecks counts at PROFILE_MISMATCH of its gain. A
motif the bank has no evidence for is still shown (the detector found the pattern) but ranked last, with no gain
claimed. A motif found only by a guess (a site of weight under 1, which only verification can settle) comes after
every proved one. Verification applies the edits to the texts in memory (never the files), runs every case before
and after, and reports what the emulator measured (search/verify_fix.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from tilewise.analysis.findings import Fix, TextEdit
from tilewise.analysis.manifest import Case
from tilewise.analysis.motifs import MOTIFS, MotifContext, Site
from tilewise.analysis.observed import CaseFacts
from tilewise.analysis.operator import Operator
from tilewise.device.facts import facts_of
from tilewise.device.protocol import Device, Measurement, RunRequest, Screening
from tilewise.search.bank.features import profile
from tilewise.search.bank.store import BankFile, Evidence, Profile, evidence
from tilewise.search.cache import source_hash
from tilewise.search.verify_fix import FixVerdict, failure_text, verify_fix

PROFILE_MISMATCH = 0.5  # the share of a gain counted when no trajectory shares this kernel's bottleneck


@dataclass
class Verified:
    correct: bool
    time_us: float | None
    speedup: float | None
    error: str | None
    message: str
    before_us: float | None = None  # the kernel as it is, summed over the same cases as time_us

    @classmethod
    def of(cls, verdict: FixVerdict) -> Verified:
        after = sum(c.after_us or 0.0 for c in verdict.cases if c.correct) if verdict.correct else None
        before = sum(c.before_us or 0.0 for c in verdict.cases if c.correct) if verdict.correct else None
        error = None
        if not verdict.correct:
            bad = next((c for c in verdict.cases if c.correct is False or c.detail), None)
            error = bad.detail if bad is not None else "not verified"
        return cls(verdict.correct, after, verdict.speedup, error, verdict.message(), before)

    @property
    def faster(self) -> bool:
        """Correct and measured faster than the kernel as it is: the only result offered as a win."""
        return self.correct and self.speedup is not None and self.speedup > 1.0


@dataclass
class Suggestion:
    motif: str
    title: str
    score: float
    why: str
    expected_speedup: float | None  # from the evidence; None when the bank has none for this motif
    sites: list[Site]
    edits: list[TextEdit] | None
    evidence: Evidence | None = None
    verified: Verified | None = None

    def evidence_title(self) -> str:
        """The code action's title: the motif with its evidence ("...: median 1.40x on 9 rewound kernels")."""
        if self.evidence is None or not self.evidence.count:
            return f"{self.title} (no measured evidence yet)"
        return f"{self.title}: {self.evidence.summary()}"


@dataclass
class SuggestResult:
    operator: str
    profile: Profile | None
    runs: list[tuple[Case, Measurement]] = field(default_factory=list)
    suggestions: list[Suggestion] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _merged_edits(sites: list[Site]) -> list[TextEdit] | None:
    """The edits of every site that has them, without duplicates or overlaps (the first site's edit wins)."""
    edits: list[TextEdit] = []
    for site in sites:
        for e in site.edits or []:
            key = (e.file, e.start, e.end)
            if any((o.file, o.start, o.end) == key for o in edits):
                continue
            if any(o.file == e.file and o.start < e.end and e.start < o.end for o in edits):
                continue
            edits.append(e)
    return edits or None


def expected_gain(ev: Evidence | None, bottleneck: str | None) -> tuple[float | None, float, str]:
    """(expected speedup, how much of it the profile lets count, the evidence in words)."""
    if ev is None or not ev.count:
        return None, 0.0, "The bank has no measured trajectory for this motif yet."
    same = ev.for_bottleneck(bottleneck)
    pool = same or ev.trajectories
    gain = math.exp(sorted(math.log(t.speedup) for t in pool)[len(pool) // 2])
    if same:
        share = 1.0
        fit = f"{len(same)} of them bound by {bottleneck.upper() if bottleneck else '?'} like this kernel"
    else:
        share = PROFILE_MISMATCH
        seen = ", ".join(sorted(b.upper() for b in ev.bottlenecks))
        fit = f"none bound by {bottleneck.upper() if bottleneck else 'the same pipe'} (they were {seen})"
    return gain, share, f"Evidence: {ev.summary()}; {fit}."


def retrieve(
    op: Operator,
    bank: BankFile,
    *,
    bottleneck: str | None = None,
    chip=None,
    ctx: MotifContext | None = None,
    facts: list[CaseFacts] | None = None,
) -> list[Suggestion]:
    """Every motif whose slow pattern is in the kernel, ranked (no device needed: the editor calls this). `facts`:
    what a profile of the cases showed (run_facts), which the detectors that find a pattern from the run read."""
    ctx = ctx or MotifContext(op, chip, facts)
    evidences = evidence(bank)
    found: list[Suggestion] = []
    for motif in MOTIFS.values():
        try:
            sites = motif.detect(ctx)
        except Exception:  # noqa: BLE001 - one detector tripping on unusual code must not hide the others
            continue
        if not sites:
            continue
        ev = evidences.get(motif.id)
        gain, share, words = expected_gain(ev, bottleneck)
        score = math.log(gain) * share * max(x.weight for x in sites) if gain else 0.0
        if score <= 0:
            score = 1e-6 * len(sites)
        found.append(
            Suggestion(
                motif=motif.id,
                title=motif.title,
                score=round(score, 6),
                why=f"{sites[0].why} {words}",
                expected_speedup=round(gain, 3) if gain else None,
                sites=sites,
                edits=_merged_edits(sites),
                evidence=ev,
            )
        )
    # a motif some rule or pattern proved comes before one that is only a guess, whatever the evidence: a guess
    # must not push a proved motif out of the few that get verified
    found.sort(key=lambda s: (max(x.weight for x in s.sites) < 1, -s.score, s.motif))
    return found


def suggest(
    op: Operator,
    device: Device,
    bank: BankFile,
    cases: list[Case],
    *,
    top: int = 5,
    verify: bool = False,
    seed: int = 0,
    golden: str | None = None,
    on_verified=None,
    cancelled=None,
) -> SuggestResult:
    """Profile `op` on its cases, retrieve and rank the motifs that fit, and verify the top ones' rewrites when
    asked (`on_verified(suggestion)` is called as each result comes in; `cancelled()` returning True stops before
    the next verification, keeping the results already in)."""
    result = SuggestResult(op.model.operator or str(op.project.root), None)
    runs = MemoDevice(device)  # the kernel as it is runs once per case: the profile, and every verification's "before"
    for case in cases:
        m = runs.run(op, RunRequest(case, seed=seed, golden=golden, keep_outputs=True))
        result.runs.append((case, m))
        if not m.ok or m.correct is False:
            result.problems.append(f"case {case.name} fails as it is ({failure_text(m)}): fix it before optimising")
    result.profile = profile(result.runs) if result.runs else None
    bottleneck = result.profile.bottleneck if result.profile else None
    facts = run_facts(result.runs, device.chip)
    result.suggestions = retrieve(op, bank, bottleneck=bottleneck, chip=device.chip, facts=facts)[: max(top, 0)]
    if verify:
        for s in result.suggestions:
            if cancelled is not None and cancelled():
                break
            if s.edits is None:
                continue
            verify_suggestion(op, s, runs, cases, seed, golden)
            if on_verified is not None:
                on_verified(s)
        # verified results first by what they measured; then the rest by their evidence
        result.suggestions.sort(key=_verified_order)
    return result


def verify_suggestion(
    op: Operator, s: Suggestion, device: Device, cases: list[Case], seed: int, golden: str | None
) -> None:
    """Verify the suggestion's edits, and the site's alternatives (other values of the same knob) when it has them;
    keep the fastest correct rewrite as the suggestion's edits."""
    kinds = list(MOTIFS[s.motif].kinds)
    candidates: list[tuple[str, list[TextEdit]]] = [("", s.edits or [])]
    if len(s.sites) == 1:
        candidates += s.sites[0].alternatives
    best: tuple[Verified, list[TextEdit], str] | None = None
    for label, edits in candidates:
        fix = Fix(title=s.title, edits=edits)
        verified = Verified.of(verify_fix(op, fix, device, cases, seed=seed, kinds=kinds, golden=golden))
        if best is None or _better(verified, best[0]):
            best = (verified, edits, label)
    assert best is not None  # (at least the suggestion's own edits were verified)
    s.verified, s.edits = best[0], best[1]
    if best[2] and len(candidates) > 1:
        s.verified.message += f" Measured {len(candidates)} values; the best is {best[2]}."


def _better(a: Verified, b: Verified) -> bool:
    if a.correct != b.correct:
        return a.correct
    return (a.speedup or 0.0) > (b.speedup or 0.0)


def run_facts(runs: list[tuple[Case, Measurement]], chip=None) -> list[CaseFacts]:
    """What the profile's runs showed, as the detectors read it (analysis/observed.py): one CaseFacts per case that
    ran through (a MemoDevice asks every run for its call sites)."""
    return [facts_of(m, case.name, chip) for case, m in runs if m.ok]


class MemoDevice:
    """The device, with runs of identical sources, case, seed and golden answered once (outputs kept in memory,
    for the comparisons verify_fix makes when there is no golden). Only plain runs are remembered, and each is
    asked for its call sites (`RunRequest.sites`: a few lines of the trace), so a profile made through it says how
    many blocks ran and how many bytes each copy moved (run_facts)."""

    def __init__(self, device: Device):
        self.device = device
        self.name = device.name
        self.chip = device.chip
        self._runs: dict[tuple, Measurement] = {}
        self.executed = 0  # runs the device made (not answered from memory): what a caller's budget counts

    def screen(self, op: Operator, request: RunRequest) -> Screening:  # pragma: no cover - suggest never screens
        return self.device.screen(op, request)

    def run(self, op: Operator, request: RunRequest) -> Measurement:
        if request.knobs or request.inputs or request.trace_path:
            self.executed += 1
            return self.device.run(op, request)
        texts = request.texts
        src = source_hash(texts if texts is not None else {p: sf.text for p, sf in op.sources.items()})
        key = (src, request.case.model_dump_json(), request.seed, request.golden, request.rtol, request.atol)
        found = self._runs.get(key)
        if found is None:  # (always asked with its outputs and sites, so any later caller may use them)
            self.executed += 1
            found = self._runs[key] = self.device.run(op, replace(request, keep_outputs=True, sites=True))
        return found


def suggestion_json(s: Suggestion, rel: Callable[[str], str] = str) -> dict[str, Any]:
    """One suggestion as `tilewise suggest --format json` and the editor's `tilewise/verifySuggestions` give it;
    `rel` writes its paths (relative to the working directory for the CLI)."""
    v = s.verified
    return {
        "motif": s.motif,
        "title": s.title,
        "score": s.score,
        "why": s.why,
        "expected_speedup": s.expected_speedup,
        "sites": [{"file": rel(x.file), "line": x.line, "end_line": x.end_line} for x in s.sites],
        "edits": None
        if s.edits is None
        else [
            {
                "file": rel(e.file),
                "start_line": e.line,
                "start_col": e.col,
                "end_line": e.end_line,
                "end_col": e.end_col,
                "new_text": e.new_text,
            }
            for e in s.edits
        ],
        "verified": None
        if v is None
        else {"correct": v.correct, "time_us": v.time_us, "speedup": v.speedup, "error": v.error},
    }


def _verified_order(s: Suggestion) -> tuple[int, float, float]:
    v = s.verified
    if v is not None and v.correct and v.speedup:
        return (0, -v.speedup, -s.score)
    return (1 if v is None else 2, 0.0, -s.score)
