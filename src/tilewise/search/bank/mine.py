"""Mine the bank: rewind strong kernels on the device and keep what measurably hurts.

For each operator: run every case as shipped (the fast kernel; an operator that fails a case teaches nothing and is
skipped, saying why). Then for each motif, each of its rewinds (`analysis/motifs`, at most MAX_REWINDS per motif
and operator): run every case on the slowed sources, and record a trajectory when the slowed kernel is still correct
(every case passes its golden, no sanitizer warning the fast kernel did not have) and at least MIN_SLOWDOWN slower
over the cases (geomean). Everything else is reported as rejected, with the reason.

Runs go through the results cache when one is given, so mining the same sources again costs nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tilewise.analysis.manifest import Case
from tilewise.analysis.motifs import MOTIFS, MotifContext, Rewound
from tilewise.analysis.operator import Operator
from tilewise.device.protocol import Device, Measurement, RunRequest
from tilewise.search.bank.features import kernel_features, profile
from tilewise.search.bank.store import CaseTimes, Trajectory, unified_diff
from tilewise.search.cache import ResultsCache, source_hash
from tilewise.search.verify_fix import failure_text, new_warnings

MIN_SLOWDOWN = 1.03  # the bar: a rewind that costs less than 3% teaches nothing
MAX_REWINDS = 2  # per motif and operator: the first sites say as much as the tenth


@dataclass
class Rejected:
    motif: str
    description: str
    reason: str


@dataclass
class MineReport:
    operator: str
    source: str
    trajectories: list[Trajectory] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    skipped: str | None = None  # why the operator taught nothing (no case, a failing case)
    runs: int = 0


def _geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else 1.0


class _Runner:
    """Runs of one operator, through the results cache when there is one."""

    def __init__(self, op: Operator, device: Device, cache: ResultsCache | None, seed: int):
        self.op, self.device, self.cache, self.seed = op, device, cache, seed
        self.runs = 0

    def run(self, case: Case, texts: dict[str, str]) -> Measurement:
        src = source_hash(texts)
        key = f"bank:{case.name}:{case.model_dump_json()}:seed={self.seed}"
        empty: dict[str, int] = {}
        where = (src, empty, key, self.device.name, self.device.chip.name)
        if self.cache is not None:
            hit = self.cache.get(*where)
            if hit is not None:
                return hit
        self.runs += 1
        m = self.device.run(self.op, RunRequest(case, seed=self.seed, texts=texts))
        if self.cache is not None and m.ok and m.error is None:
            self.cache.put(*where, m)
        return m


def mine_operator(
    op: Operator,
    device: Device,
    *,
    cases: list[Case] | None = None,
    motifs: list[str] | None = None,
    cache: ResultsCache | None = None,
    source: str | None = None,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> MineReport:
    """Rewind `op` with each motif that fits and measure; see the module docstring."""
    cases = list(cases if cases is not None else (op.manifest.cases if op.manifest else []))
    report = MineReport(op.model.operator or Path(op.project.root).name, source or str(op.project.root))
    if not cases:
        report.skipped = "no case to run (add [[cases]] to tilewise.toml)"
        return report
    runner = _Runner(op, device, cache, seed)
    ctx = MotifContext(op, device.chip)
    fast_texts = dict(ctx.texts)
    fast = [(c, runner.run(c, fast_texts)) for c in cases]
    broken = next(((c, m) for c, m in fast if not m.ok or m.correct is False or m.time_us is None), None)
    if broken is not None:
        report.skipped = f"case {broken[0].name} fails as shipped ({failure_text(broken[1])})"
        report.runs = runner.runs
        return report
    features = kernel_features(op, fast)
    for motif_id in motifs or list(MOTIFS):
        motif = MOTIFS[motif_id]
        try:
            rewinds = motif.rewind(ctx)[:MAX_REWINDS]
        except Exception as exc:  # noqa: BLE001 - a transform that trips on an unexpected kernel must not end the mining
            report.rejected.append(Rejected(motif_id, "-", f"the rewind failed: {type(exc).__name__}: {exc}"))
            continue
        seen: set[str] = set()
        for rw in rewinds:
            if rw.description in seen:  # two sites that read alike: the bank keys trajectories by description
                rw.description = f"{rw.description} (line {rw.line})"
            seen.add(rw.description)
            if progress:
                progress(f"{report.operator}: {motif_id}: {rw.description}")
            verdict = _measure(runner, fast, fast_texts, rw)
            if isinstance(verdict, str):
                report.rejected.append(Rejected(motif_id, rw.description, verdict))
                continue
            slow_runs, times = verdict
            speedup = _geomean([t.slow_us / t.fast_us for t in times])
            if speedup < MIN_SLOWDOWN:
                report.rejected.append(
                    Rejected(motif_id, rw.description, f"only {speedup:.3f}x slower (under {MIN_SLOWDOWN}x)")
                )
                continue
            slow_texts = {**fast_texts, **rw.texts}
            report.trajectories.append(
                Trajectory(
                    motif=motif_id,
                    operator=report.operator,
                    source=report.source,
                    description=rw.description,
                    diff=unified_diff(slow_texts, fast_texts, str(op.project.root)),
                    slow=profile(slow_runs),
                    fast=profile(fast),
                    cases=times,
                    speedup=round(speedup, 4),
                    features=features,
                )
            )
    report.runs = runner.runs
    return report


def _measure(
    runner: _Runner, fast: list[tuple[Case, Measurement]], fast_texts: dict[str, str], rw: Rewound
) -> tuple[list[tuple[Case, Measurement]], list[CaseTimes]] | str:
    """Every case on the rewound sources: the runs and times, or why the rewind is no evidence."""
    texts = {**fast_texts, **rw.texts}
    slow_runs = []
    times = []
    for case, before in fast:
        after = runner.run(case, texts)
        if not after.ok or after.correct is False:
            return f"breaks case {case.name}: {failure_text(after)}"
        if new := new_warnings(before, after):
            return f"case {case.name}: it adds {new}"
        if after.time_us is None or before.time_us is None:
            return f"case {case.name} has no timing"
        slow_runs.append((case, after))
        times.append(CaseTimes(case=case.name, fast_us=round(before.time_us, 4), slow_us=round(after.time_us, 4)))
    return slow_runs, times
