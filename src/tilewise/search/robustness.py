"""Where a tuned gain comes from, so that a user can tell a robust gain from an artifact of the timing model.

With no device to calibrate against, a gain found on the emulator is only as real as the chip file's constants. Two
figures say how much to trust one:

- the **kernel-body speedup**: the same comparison with the launch overhead taken out of both times. On small
  inputs much of a gain can come from launching fewer cores, which rests on two estimated constants
  (`launch_us_base`, `launch_us_per_core`);
- the **sensitivity**: the shipped and the best configuration re-evaluated with each timing constant moved by
  +-25% (one at a time, the largest case only). A gain that survives every move is robust; one that vanishes or
  reverses when some constant moves is that constant's, and hardware should settle it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from tilewise.analysis.chip import TIMING_CONSTANTS, Chip
from tilewise.analysis.manifest import Case
from tilewise.analysis.operator import Operator
from tilewise.device.protocol import Device, Measurement, RunRequest

# The constants a tiling decision can hinge on, as the table of timing constants marks them (analysis.chip): chip
# file `timing` keys, chip-level figures, and "vector": every vector instruction's cost at once.
SENSITIVE = tuple(c.name for c in TIMING_CONSTANTS if c.sensitive)
MOVE = 0.25
_CHIP_LEVEL = frozenset(c.name for c in TIMING_CONSTANTS if c.section == "chip")


@dataclass
class Sensitivity:
    constant: str
    low: float  # the best's speedup with the constant at 75%
    high: float  # ... and at 125%

    @property
    def swing(self) -> float:
        """How far the gain moves, as a ratio of the larger to the smaller speedup."""
        return max(self.low, self.high) / min(self.low, self.high)


@dataclass
class GainReport:
    case: str
    total: float  # best over shipped, launch included
    body: float | None  # the same with each time's launch overhead taken out
    sensitivities: list[Sensitivity] = field(default_factory=list)

    @property
    def worst(self) -> float | None:
        """The smallest speedup any single move of a constant leaves (None without a sensitivity run)."""
        return min((min(s.low, s.high) for s in self.sensitivities), default=None)

    def summary(self) -> str:
        parts = [
            f"{self.total:.2f}x in total, {self.body:.2f}x in the kernel body (launch excluded)"
            if self.body
            else f"{self.total:.2f}x in total"
        ]
        if self.sensitivities:
            top = sorted(self.sensitivities, key=lambda s: s.swing, reverse=True)[:3]
            moved = ", ".join(f"{s.constant} {s.low:.2f}x-{s.high:.2f}x" for s in top)
            worst = self.worst or 0.0
            verdict = (
                "robust to every constant moved by 25%"
                if worst > 1.0
                else f"not robust: with one constant moved by 25% the gain falls to {worst:.2f}x"
            )
            parts.append(f"{verdict}; most sensitive to {moved} (case {self.case})")
        return "; ".join(parts)


def moved_chip(chip: Chip, constant: str, factor: float) -> Chip:
    """The chip with one timing constant (or every vector cost, for "vector") multiplied by `factor`."""
    data = chip.model_dump()
    timing = dict(data.get("timing") or {})
    if constant in _CHIP_LEVEL:
        data[constant] = data[constant] * factor
    elif constant == "vector":
        timing["vector_default"] = [v * factor for v in timing["vector_default"]]
        timing["vector"] = {
            name: {dtype: [c * factor for c in cost] for dtype, cost in by_dtype.items()}
            for name, by_dtype in timing.get("vector", {}).items()
        }
    else:
        timing[constant] = timing[constant] * factor
    data["timing"] = timing
    return Chip.model_validate(data)


def body_us(m: Measurement) -> float | None:
    if m.time_us is None:
        return None
    return m.time_us - (m.launch_us or 0.0)


def explain_gain(
    op: Operator,
    device: Device,
    device_for: Callable[[Chip], Device] | None,
    case: Case,
    baseline: dict[str, int],
    best: dict[str, int],
    *,
    seed: int = 0,
    constants: tuple[str, ...] = SENSITIVE,
) -> GainReport | None:
    """The gain of `best` over `baseline` on `case`, taken apart. `device_for` makes a device for a moved chip; None
    skips the sensitivity runs. None when either configuration fails to run."""
    base, top = (
        device.run(op, RunRequest(case, knobs=baseline, seed=seed)),
        device.run(op, RunRequest(case, knobs=best, seed=seed)),
    )
    pair = _speedup(base, top)
    if pair is None:
        return None
    b0, b1 = body_us(base), body_us(top)
    report = GainReport(case=case.name, total=pair, body=(b0 / b1) if b0 and b1 and b1 > 0 else None)
    if device_for is None:
        return report
    for constant in constants:
        speedups = []
        for factor in (1 - MOVE, 1 + MOVE):
            moved = device_for(moved_chip(device.chip, constant, factor))
            s = _speedup(
                moved.run(op, RunRequest(case, knobs=baseline, seed=seed)),
                moved.run(op, RunRequest(case, knobs=best, seed=seed)),
            )
            speedups.append(s if s is not None else math.nan)
        report.sensitivities.append(Sensitivity(constant, speedups[0], speedups[1]))
    return report


def _speedup(base: Measurement, top: Measurement) -> float | None:
    if base.time_us is None or top.time_us is None or top.time_us <= 0 or not (base.ok and top.ok):
        return None
    return base.time_us / top.time_us
