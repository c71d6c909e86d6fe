"""Try a lint fix on the device before anyone trusts it: "Verify on the emulator".

A rule offers a fix as safe ("Apply") only when it proved the fix's precondition. When it could not (sizes known
only at run time, a split whose alignment depends on the shape), the fix is tried here instead: the edits are
applied to the sources as text (the files on disk are never touched), every case runs before and after, and the
verdict says whether the operator still behaves the same and how much faster it got:

- correct: every case ran, the outputs match the golden (or, with no golden, the unfixed run's outputs), and the
  fix added no sanitizer finding the unfixed run did not have (a race a removed barrier used to prevent, an access
  past a buffer);
- the speed-up is the timing model's, per case and in total, with a note when it is within the model's typical
  error for the fix's kind of change (analysis/model_error.py).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from tilewise.analysis.findings import Fix
from tilewise.analysis.manifest import Case
from tilewise.analysis.model_error import gain_note
from tilewise.analysis.operator import Operator
from tilewise.analysis.rewrite import apply_fix
from tilewise.device.protocol import Device, Measurement, RunRequest

# With no golden the fixed run is compared with the unfixed one. A fix that only moves work between pipes leaves
# every value as it was; the tolerance admits a vector rewrite's different rounding order, nothing more.
SAME_RTOL = 1e-3
SAME_ATOL = 1e-3


@dataclass
class CaseVerdict:
    case: str
    ran: bool
    correct: bool | None  # None: the unfixed operator itself failed this case, so it proves nothing
    before_us: float | None = None
    after_us: float | None = None
    detail: str = ""
    repaired: bool = False  # the case failed without the fix and passes with it


@dataclass
class FixVerdict:
    title: str
    cases: list[CaseVerdict] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)  # the kind of change, for the model-error note

    @property
    def checked(self) -> bool:
        """At least one case proved something either way."""
        return any(c.correct is not None for c in self.cases)

    @property
    def correct(self) -> bool:
        return self.checked and all(c.correct is not False for c in self.cases)

    @property
    def speedup(self) -> float | None:
        before = [c.before_us for c in self.cases if c.correct and c.before_us and c.after_us]
        after = [c.after_us for c in self.cases if c.correct and c.before_us and c.after_us]
        return sum(before) / sum(after) if before and sum(after) > 0 else None

    @property
    def uncertain(self) -> str | None:
        """A note when the gain is within the model's typical error for this kind of change (verify on hardware)."""
        return gain_note(self.speedup, self.kinds) if self.correct else None

    def message(self) -> str:
        """One line for the finding: what the emulator showed."""
        n = len(self.cases)
        if not self.checked:
            why = next((c.detail for c in self.cases if c.detail), "no case to run")
            return f"Not verified on the emulator: {why}"
        if not self.correct:
            bad = next(c for c in self.cases if c.correct is False)
            return f"Tried on the emulator: the fix breaks case {bad.case}: {bad.detail}. Do not apply it as is."
        repaired = [c.case for c in self.cases if c.repaired]
        if repaired:
            return (
                f"Verified on the emulator: with the fix, case{'s' if len(repaired) > 1 else ''} "
                f"{', '.join(repaired)} pass{'' if len(repaired) > 1 else 'es'} the golden (failing without it)."
            )
        speed = self.speedup
        gain = f"{speed:.2f}x as fast" if speed else "no timing"
        before = sum(c.before_us or 0 for c in self.cases if c.correct)
        after = sum(c.after_us or 0 for c in self.cases if c.correct)
        figures = f" ({before:.1f} µs -> {after:.1f} µs)" if speed else ""
        note = f" Note: {self.uncertain}." if self.uncertain else ""
        return f"Verified on the emulator over {n} case{'s' if n != 1 else ''}: still correct, {gain}{figures}.{note}"


def verify_fix(
    op: Operator,
    fix: Fix,
    device: Device,
    cases: list[Case],
    *,
    seed: int = 0,
    texts: dict[str, str] | None = None,
    kinds: list[str] | None = None,
    golden: str | None = None,
) -> FixVerdict:
    """Run every case with and without the fix. `texts` are the sources the fix was computed on (an editor's
    unsaved snapshot); by default the operator's own. `kinds`: the kind of change the fix makes
    (analysis.model_error.kinds_of_rule), which says how large a gain the model's error allows."""
    current = {p: sf.text for p, sf in op.sources.items()}
    current.update(texts or {})
    fixed = apply_fix(fix, current)
    verdict = FixVerdict(fix.title, kinds=list(kinds or []))
    if not cases:
        verdict.cases.append(
            CaseVerdict(
                "-", ran=False, correct=None, detail="the operator has no case to run (add [[cases]] to tilewise.toml)"
            )
        )
        return verdict
    for case in cases:
        verdict.cases.append(_verify_case(op, device, case, seed, current, {**current, **fixed}, golden))
    return verdict


def _verify_case(
    op: Operator,
    device: Device,
    case: Case,
    seed: int,
    before_texts: dict[str, str],
    after_texts: dict[str, str],
    golden: str | None = None,
) -> CaseVerdict:
    before = device.run(op, RunRequest(case, seed=seed, texts=before_texts, keep_outputs=True, golden=golden))
    after = device.run(op, RunRequest(case, seed=seed, texts=after_texts, keep_outputs=True, golden=golden))
    if not before.ok or before.correct is False:
        # A fix for an error (a missing tiling field): passing the golden with it is the proof it works.
        if after.ok and after.correct is True:
            return CaseVerdict(
                case.name,
                ran=True,
                correct=True,
                after_us=after.time_us,
                repaired=True,
                detail=f"case {case.name} fails without the fix ({failure_text(before)}) and passes with it",
            )
        return CaseVerdict(
            case.name,
            ran=False,
            correct=None,
            detail=f"the operator fails case {case.name} without the fix ({failure_text(before)})",
        )
    result = CaseVerdict(case.name, ran=after.ok, correct=False, before_us=before.time_us, after_us=after.time_us)
    if not after.ok or after.correct is False:
        result.detail = failure_text(after)
    elif new := new_warnings(before, after):
        result.detail = f"it adds {new}"
    elif before.correct is None and (diff := _differs(before, after)):
        result.detail = diff
    else:
        result.correct = True
    return result


def failure_text(m: Measurement) -> str:
    if m.error is not None:
        where = f" at {m.error.file.rsplit('/', 1)[-1]}:{m.error.line}" if m.error.file and m.error.line else ""
        return f"{m.error.kind}{where}: {m.error.message.splitlines()[0] if m.error.message else ''}".strip()
    bad = next((o for o in m.outputs if not o.ok), None)
    return f"wrong output {bad.name} ({bad.mismatches} mismatches)" if bad else "wrong output"


def new_warnings(before: Measurement, after: Measurement) -> str:
    """Sanitizer warnings the fixed run has at sites (or of kinds) the unfixed run did not."""
    seen = Counter((w.kind, w.file, w.line) for w in before.warnings)
    new = [w for w in after.warnings if (w.kind, w.file, w.line) not in seen]
    if not new:
        return ""
    w = new[0]
    where = f" at {w.file.rsplit('/', 1)[-1]}:{w.line}" if w.file and w.line else ""
    return f"a sanitizer warning {w.kind}{where}: {w.message.splitlines()[0] if w.message else ''}".strip()


def _differs(before: Measurement, after: Measurement) -> str:
    """With no golden: where the fixed run's outputs differ from the unfixed run's."""
    a, b = before.produced_outputs() or [], after.produced_outputs() or []
    if len(a) != len(b):
        return f"{len(b)} outputs instead of {len(a)}"
    for out, x, y in zip(before.outputs, a, b, strict=True):
        if x.shape != y.shape:
            return f"output {out.name} has shape {list(y.shape)} instead of {list(x.shape)}"
        close = np.isclose(y, x, rtol=SAME_RTOL, atol=SAME_ATOL, equal_nan=True)
        if not close.all():
            return f"output {out.name} differs from the unfixed run at {int((~close).sum())} elements"
    return ""
