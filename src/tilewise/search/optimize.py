"""`tilewise optimize`: the closed loop of the AscendOptimizer method, host tiling and kernel in turn.

Before the first round, the deterministic rewrites are verified on the sources as they are, as `suggest --verify`
does (a tiling search first may move what their premise rests on: tiles grown to fill the UB leave a one-buffer
queue no room for a second). A round is:
1. Stage I, tune the tiling (search/tuner.py) on the current sources, and take the best configuration into them;
2. Stage II, up to `iterations` kernel rewrites, one motif each: every deterministic rewrite the detectors find is
   verified on the device and the fastest correct one taken (search/bank/suggest.py); when none is faster and a
   model is configured, the model applies the best-ranked motif left (search/llm/rewrite.py);
3. when Stage II changed the kernel, the next round tunes again around it.
The loop ends when the budget (measured candidates: tiling configurations and kernel rewrites) is spent, when a
round improves nothing, or when cancelled. Where the tuning's result says the knobs cannot reach a better tiling
(search/space.py::unreachable) and a model is configured, the tiling function itself is evolved
(search/llm/evolve.py).

Everything happens on texts in memory: the user's files change only through `apply_result`, after every case has
run again on the final sources. Every accepted kernel step is also a trajectory for the user's bank.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tilewise.analysis.errors import TilewiseError
from tilewise.analysis.findings import Fix
from tilewise.analysis.manifest import Case
from tilewise.analysis.motifs import MOTIFS
from tilewise.analysis.operator import Operator, load_operator
from tilewise.analysis.rewrite import apply_fix, tuned_edits, write_files
from tilewise.device.protocol import Device, Measurement, RunRequest
from tilewise.search.bank.features import profile
from tilewise.search.bank.learn import USER_EDIT, removed_motif, trajectory_between
from tilewise.search.bank.store import BankFile, Trajectory, evidence, save_bank, unified_diff, user_bank_path
from tilewise.search.bank.suggest import MemoDevice, expected_gain, retrieve, run_facts, verify_suggestion
from tilewise.search.cache import ResultsCache, source_hash
from tilewise.search.llm.client import LlmClient
from tilewise.search.llm.evolve import evolve_tiling
from tilewise.search.llm.rewrite import profile_runs, rewrite
from tilewise.search.space import platform_figures
from tilewise.search.tuner import Tuner
from tilewise.search.verify_fix import failure_text

Stage = Literal["baseline", "tune", "motif", "llm", "evolve"]


@dataclass
class OptimizeOptions:
    budget: int = 48  # measured candidates, tiling configurations and kernel rewrites together
    iterations: int = 3  # kernel rewrites per round, one motif each (the paper's three)
    llm: LlmClient | None = None
    seed: int = 0
    golden: str | None = None
    workers: int = 2
    strategy: str = "evo"
    rounds: int = 3  # tune -> rewrite rounds at most


@dataclass
class Step:
    """One thing the loop tried: a tiling search, a motif rewrite, an LLM rewrite, a tiling evolution."""

    index: int
    stage: Stage
    what: str  # the configuration or the motif, in words
    accepted: bool
    time_us: float | None  # the candidate's measured time (summed over the cases), None when it did not run
    speedup: float | None  # over the best before this step
    detail: str  # why accepted or not, as measured
    evaluations: int = 0  # candidates this step measured

    def json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "stage": self.stage,
            "what": self.what,
            "accepted": self.accepted,
            "time_us": self.time_us,
            "speedup": self.speedup,
            "detail": self.detail,
            "evaluations": self.evaluations,
        }


@dataclass
class OptimizeResult:
    operator: str
    root: str
    cases: list[str]
    baseline_us: float | None = None  # the operator as it is, summed over the cases
    best_us: float | None = None
    steps: list[Step] = field(default_factory=list)
    original: dict[str, str] = field(default_factory=dict)  # path -> text as it was, for every file that changed
    best: dict[str, str] = field(default_factory=dict)  # path -> optimised text, the same files
    evaluations: int = 0
    stopped: bool = False
    problems: list[str] = field(default_factory=list)

    @property
    def speedup(self) -> float | None:
        return self.baseline_us / self.best_us if self.baseline_us and self.best_us else None

    def patch(self) -> str:
        """The optimised operator as a unified diff against the sources as they were (paths relative to the
        operator's folder, `a/` and `b/` prefixes: `git apply` and `patch -p1` take it)."""
        return unified_diff(self.original, self.best, self.root)

    def json(self) -> dict[str, Any]:
        return {
            "operator": self.operator,
            "cases": self.cases,
            "baseline_us": self.baseline_us,
            "best_us": self.best_us,
            "speedup": self.speedup,
            "steps": [s.json() for s in self.steps],
            "files": [{"path": p, "original": self.original[p], "optimized": self.best[p]} for p in sorted(self.best)],
            "patch": self.patch(),
            "evaluations": self.evaluations,
            "stopped": self.stopped,
            "problems": self.problems,
        }


def optimize(
    op: Operator,
    device: Device,
    cases: list[Case],
    options: OptimizeOptions | None = None,
    *,
    cache: ResultsCache | None = None,
    bank: BankFile | None = None,
    on_step: Callable[[Step, float | None], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> OptimizeResult:
    """Run the closed loop on `op` (see the module's docstring). `on_step(step, best_us)` is called as each step
    ends; `cancelled()` returning True stops the loop at its next step, keeping the best so far."""
    loop = _Loop(op, device, cases, options or OptimizeOptions(), cache, bank or BankFile(), on_step, cancelled)
    return loop.run()


class _Loop:
    """The state of one optimisation: the current sources, their measured runs, and what is left of the budget."""

    def __init__(self, op, device, cases, options: OptimizeOptions, cache, bank: BankFile, on_step, cancelled):
        self.device = MemoDevice(device)
        self.chip = device.chip
        self.cases, self.options, self.cache, self.bank = cases, options, cache, bank
        self.on_step, self.cancelled = on_step, cancelled or (lambda: False)
        self.original = {p: sf.text for p, sf in op.sources.items()}
        self.op = op
        self.runs: list[tuple[Case, Measurement]] = []
        self.result = OptimizeResult(
            op.model.operator or str(op.project.root), str(op.project.root), [c.name for c in cases]
        )
        self.learned: list[Trajectory] = []
        self.refused: set[tuple[str, str]] = set()  # (motif, sources' hash) whose rewrite was measured no faster

    # ---- budget and bookkeeping -----------------------------------------------------------------------------
    @property
    def left(self) -> int:
        return self.options.budget - self.result.evaluations

    def _spent(self, before_executed: int) -> int:
        """Candidates measured since `before_executed` device runs (one candidate = every case once)."""
        n = -(-(self.device.executed - before_executed) // max(1, len(self.cases)))
        self.result.evaluations += n
        return n

    def _stop(self) -> bool:
        if self.cancelled():
            self.result.stopped = True
            return True
        return self.left <= 0

    def _record(self, step: Step) -> None:
        step.index = len(self.result.steps)
        self.result.steps.append(step)
        if self.on_step is not None:
            self.on_step(step, self.result.best_us)

    def _take(
        self, texts: dict[str, str], runs: list[tuple[Case, Measurement]], stage: Stage, motif: str | None, what: str
    ) -> None:
        """Make `texts` the current sources, measured by `runs`. A kernel step teaches the user's bank as its motif
        (else user-edit); a tiling step (tune, evolve) only as the motif whose pattern it removed (a tuned block
        count: all-cores): tiling values the search found are this operator's, no experience another one can use."""
        new_op = load_operator(self.op.project.root, overlay=texts)
        taught = motif or removed_motif(self.op, new_op) or (None if stage in TILING_STAGES else USER_EDIT)
        if taught is not None:
            t = trajectory_between(
                self.op, self.runs, new_op, runs, motif=taught, source=self.result.root, description=f"optimize: {what}"
            )
            if t is not None:
                self.learned.append(t)
        self.op, self.runs = new_op, runs
        self.result.best_us = _total(runs)

    def _texts(self) -> dict[str, str]:
        return {p: sf.text for p, sf in self.op.sources.items()}

    # ---- the loop -------------------------------------------------------------------------------------------
    def run(self) -> OptimizeResult:
        before = self.device.executed
        self.runs, failing = profile_runs(self.op, self.device, self.cases, self.options.seed, self.options.golden)
        self._spent(before)
        if failing:
            self.result.problems.append(failing)
            return self.result
        self.result.baseline_us = self.result.best_us = _total(self.runs)
        self._record(Step(0, "baseline", "the operator as it is", True, self.result.baseline_us, None, "measured"))
        # The deterministic rewrites first, on the sources as they are: where `suggest --verify` verifies a motif,
        # so does this loop, before a tiling search moves the tiles the motif's premise depends on (a tune that
        # grows a single-buffered queue's tiles to fill the UB leaves no room for the second buffer, and the
        # single-buffer rule then rightly finds none to offer).
        self._kernel_stage(llm=False)
        for _ in range(self.options.rounds):
            self._tune_stage()
            if not self._kernel_stage() or self._stop():
                break  # (tuning again around an unchanged kernel would find what this round found)
        self._finish()
        return self.result

    def _finish(self) -> None:
        now = self._texts()
        self.result.best = {p: t for p, t in now.items() if t != self.original.get(p)}
        self.result.original = {p: self.original[p] for p in self.result.best}
        if self.learned:
            try:
                save_bank(user_bank_path(), self.learned, device=self.device.name, chip=self.chip.name)
            except (OSError, TilewiseError) as exc:
                self.result.problems.append(f"the user's bank was not updated: {exc}")

    def _tune_stage(self) -> bool:
        """Stage I: search the tiling of the current sources; take the best into them when it is faster."""
        if self._stop():
            return False
        tuner = Tuner(
            self.op,
            self.device.device,
            self.cases,
            strategy=self.options.strategy,
            budget=max(2, min(self.left, self._tune_share())),
            seed=self.options.seed,
            cache=self.cache,
            workers=self.options.workers,
        )
        tuner.prune_inert()
        if not tuner.space.knobs:
            self._record(Step(0, "tune", "tiling", False, None, None, "no tiling knob to search"))
            return self._evolve_stage("the tiling has no knob a search can set")
        for _ in tuner.events():
            if self.cancelled():
                tuner.stop()
        tr = tuner.result()
        self.result.evaluations += tr.evaluations  # (cached ones too: the same path from a cold or a warm cache)
        if not tr.best or tr.best == tr.baseline or not tr.speedup or tr.speedup <= 1.0:
            self._record(
                Step(
                    0,
                    "tune",
                    "tiling",
                    False,
                    None,
                    None,
                    f"{tr.evaluations} configurations: none beat the current one",
                    tr.evaluations,
                )
            )
            return self._evolve_stage("the tiling search found nothing faster")
        changed = {k: v for k, v in tr.best.items() if tr.baseline.get(k) != v}
        edits = tuned_edits(
            self.op.model, self.op.sources, tr.best, platform=platform_figures(self.chip), cases=self.result.cases
        )
        texts = {**self._texts(), **apply_fix(Fix(title="tuned tiling", edits=edits), self._texts())}
        return self._measure_and_take(texts, "tune", f"tiling {changed}", None, tr.evaluations)

    def _tune_share(self) -> int:
        """A tuning round's share of what is left: half, and at least 8 (a search needs room to move), but never the
        last KERNEL_RESERVE: a search spends all it is given, and Stage II needs a verify and a measure after it."""
        return max(2, min(max(8, self.left // 2), self.left - KERNEL_RESERVE))

    def _measure_and_take(
        self, texts: dict[str, str], stage: Stage, what: str, motif: str | None, evaluations: int
    ) -> bool:
        """Run every case on `texts`; take them when all are correct and the total is faster than the best."""
        new_op = load_operator(self.op.project.root, overlay=texts)
        before = self.device.executed
        runs, failing = profile_runs(new_op, self.device, self.cases, self.options.seed, self.options.golden)
        self._spent(before)
        best = self.result.best_us or 0.0
        total = _total(runs) if not failing else None
        gain = best / total if total else None
        if failing or gain is None or gain <= 1.0:
            why = failing or f"not faster over every case ({gain or 0:.3f}x)"
            self._record(Step(0, stage, what, False, total, gain, why, evaluations))
            return False
        self._take(texts, runs, stage, motif, what)
        self._record(
            Step(
                0,
                stage,
                what,
                True,
                total,
                gain,
                f"correct on every case, {best:.2f} µs -> {total:.2f} µs",
                evaluations,
            )
        )
        return True

    def _kernel_stage(self, llm: bool = True) -> bool:
        """Stage II: up to `iterations` rewrites, one motif each; deterministic first, then the model's (with
        `llm`)."""
        changed = False
        tried_llm: set[str] = set()
        # With a model, the deterministic rewrites leave it the evaluations one rewrite needs (its verify and the
        # measure that takes it): else motifs measured no faster can spend the round before the model is asked.
        reserve = LLM_RESERVE if llm and self.options.llm is not None else 0
        for _ in range(self.options.iterations):
            if self._stop():
                break
            if self._deterministic_rewrite(reserve) or (llm and self._llm_rewrite(tried_llm)):
                changed = True
                continue
            break
        return changed

    def _deterministic_rewrite(self, reserve: int = 0) -> bool:
        """Verify the motifs the bank retrieves here, best first, and take the fastest verified one; leave the last
        `reserve` evaluations of the budget unspent."""
        bottleneck = profile(self.runs).bottleneck
        here = source_hash(self._texts())
        facts = run_facts(self.runs, self.chip)
        found = [s for s in retrieve(self.op, self.bank, bottleneck=bottleneck, chip=self.chip, facts=facts) if s.edits]
        found = [s for s in found if (s.motif, here) not in self.refused][:MAX_VERIFIED]
        verified = []
        for s in found:
            if self._stop() or self.left <= reserve:
                break
            if len(s.sites) == 1:  # a site's other values are measured only as far as the budget goes
                s.sites[0].alternatives = s.sites[0].alternatives[: max(0, self.left - reserve - 1)]
            before = self.device.executed
            verify_suggestion(self.op, s, self.device, self.cases, self.options.seed, self.options.golden)
            spent = self._spent(before)
            if s.verified is not None and s.verified.faster:
                verified.append(s)
            else:
                self.refused.add((s.motif, here))  # not verified again on these sources
                v = s.verified
                self._record(
                    Step(
                        0,
                        "motif",
                        s.motif,
                        False,
                        v.time_us if v else None,
                        v.speedup if v else None,
                        v.message if v else "not verified",
                        spent,
                    )
                )
        if not verified:
            return False
        s = max(verified, key=lambda x: x.verified.speedup or 0.0)  # type: ignore[union-attr]
        texts = {**self._texts(), **apply_fix(Fix(title=s.title, edits=s.edits or []), self._texts())}
        return self._measure_and_take(texts, "motif", s.motif, s.motif, 1)

    def _llm_rewrite(self, tried: set[str]) -> bool:
        llm = self.options.llm
        if llm is None or self._stop():
            return False
        motif = self._next_llm_motif(tried)
        if motif is None:
            return False
        tried.add(motif)
        before = self.device.executed
        r = rewrite(
            self.op, self.device, self.cases, motif, llm, self.bank, seed=self.options.seed, golden=self.options.golden
        )
        spent = self._spent(before)
        v = r.verified
        if not r.accepted or v is None:
            self._record(
                Step(0, "llm", motif, False, v.time_us if v else None, v.speedup if v else None, r.reason, spent)
            )
            return False
        texts = {**self._texts(), **r.texts}
        return self._measure_and_take(texts, "llm", motif, motif, spent)

    def _next_llm_motif(self, tried: set[str]) -> str | None:
        """The best-ranked motif whose pattern is here and that the model has not tried this round; else the motif
        with the best evidence on kernels bound like this one."""
        bottleneck = profile(self.runs).bottleneck
        for s in retrieve(self.op, self.bank, bottleneck=bottleneck, chip=self.chip):
            if s.motif not in tried:
                return s.motif
        ranked = sorted(
            (
                (expected_gain(ev, bottleneck), m)
                for m, ev in evidence(self.bank).items()
                if m not in tried and m in MOTIFS
            ),
            key=lambda x: -(x[0][0] or 0) * x[0][1],
        )
        return ranked[0][1] if ranked else None

    def _evolve_stage(self, why: str) -> bool:
        """Where knobs cannot reach a better tiling, let the model evolve the tiling function (with a model only)."""
        llm = self.options.llm
        if llm is None or self._stop() or self.left < 2:
            return False
        before = self.device.executed
        found = evolve_tiling(
            self.op,
            self.device,
            self.cases,
            llm,
            budget=min(self.left, EVOLVE_BUDGET),
            seed=self.options.seed,
            golden=self.options.golden,
            cancelled=self.cancelled,
        )
        spent = self._spent(before)
        if found.texts is None:
            self._record(
                Step(0, "evolve", "tiling function", False, None, None, f"{why}; evolution: {found.reason}", spent)
            )
            return False
        return self._measure_and_take({**self._texts(), **found.texts}, "evolve", "tiling function", None, spent)


TILING_STAGES = ("tune", "evolve")  # the steps that change the tiling, not the kernel
KERNEL_RESERVE = 3  # candidates a tuning round leaves for the kernel stage after it
LLM_RESERVE = 2  # candidates the deterministic rewrites leave for the model's: its verify, then the measure
MAX_VERIFIED = 5  # deterministic rewrites verified per iteration (the best-ranked)
EVOLVE_BUDGET = 12  # candidates a tiling evolution may measure per round


def _total(runs: list[tuple[Case, Measurement]]) -> float:
    return sum(m.time_us or 0.0 for _, m in runs)


def apply_result(result: OptimizeResult, device: Device, cases: list[Case], options: OptimizeOptions) -> dict[str, Any]:
    """Write the optimised sources, after every case has run again on them and passed. A file changed on disk since
    the optimisation read it is not overwritten (nothing is written then)."""
    failures: list[str] = []
    for path, text in result.original.items():
        try:
            on_disk = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            failures.append(f"{path}: cannot be read ({exc.strerror})")
            continue
        if on_disk != text:
            failures.append(f"{path}: changed on disk since the optimisation started; run it again")
    if not failures:
        op = load_operator(result.root, overlay=result.best)
        for case in cases:
            m = device.run(op, RunRequest(case, seed=options.seed, golden=options.golden))
            if not m.ok or m.correct is False:
                failures.append(f"case {case.name}: {failure_text(m)}")
    if not failures:
        write_files(result.best)  # atomic per file: a crash leaves each file old or new, never half of each
    return {"files": sorted(result.best), "verified": not failures, "failures": failures}
