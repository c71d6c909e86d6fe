"""The chip-file numbers a calibration may move, where each lives in the chip's JSON, and how a time depends on it.

The fit works on a plain copy of the chip file (`Chip.model_dump()`), so a calibrated chip is the base chip's file
with some numbers changed: what the user gets back is a chip file like any other. A rate enters a time as its
inverse (bytes / rate), so the fit moves `1 / rate`, in which the model's times are linear; every other constant
enters linearly as it is.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from tilewise.analysis.chip import TIMING_CONSTANTS, Chip, TimingConfig

# From the table of timing constants (analysis.chip): each fitted constant's unit for the report, the rates, and
# which live at the chip file's top level.
_FITTED = [c for c in TIMING_CONSTANTS if c.fit in ("copy", "launch")]
_LABELS = {c.name: c.unit for c in _FITTED}
_RATES = frozenset(c.name for c in TIMING_CONSTANTS if c.rate)
_CHIP_LEVEL = frozenset(c.name for c in TIMING_CONSTANTS if c.section == "chip")
_COLUMNS = ("fp16", "fp32")


@dataclass(frozen=True)
class Constant:
    """One number the fit may move: a `timing` constant (`dma_peak_gibps`), a chip-level one (`hbm_gbps`), one half
    of a vector table row (`vector.Add.fp16.startup`, `vector.Add.fp16.per_repeat`), or one of the fit's own
    offsets (`offset.vector.fp16`), which is no chip constant and is never written."""

    key: str

    @property
    def in_chip(self) -> bool:
        return not self.key.startswith("offset.")

    @property
    def inverse(self) -> bool:
        """Times are linear in 1 / value (a rate)."""
        return self.key in _RATES

    @property
    def unit(self) -> str:
        if self.key.startswith("vector."):
            return "cycles"
        return _LABELS.get(self.key, "µs")

    @property
    def source_key(self) -> str:
        """Its key in the chip file's `sources`: `timing.dma_peak_gibps`, `hbm_gbps`, `timing.vector.Add`."""
        if self.key in _CHIP_LEVEL:
            return self.key
        if self.key.startswith("vector."):
            return "timing.vector." + self.key.split(".")[1]
        return f"timing.{self.key}"

    @property
    def typical(self) -> float:
        """A size for the constant when its value is 0, to scale the fit's steps."""
        if self.key.startswith("vector."):
            return 4.0
        return 1.0 if self.unit == "µs" else 100.0

    def get(self, data: dict) -> float:
        if not self.in_chip:
            return 0.0
        if self.key in _CHIP_LEVEL:
            return float(data[self.key])
        timing = data["timing"]
        if self.key.startswith("vector."):
            _, op, col, part = self.key.split(".")
            row = timing.get("vector", {}).get(op, {}).get(col) or timing["vector_default"]
            return float(row[0 if part == "startup" else 1])
        return float(timing[self.key]) if self.key in timing else _default(self.key)

    def put(self, data: dict, value: float) -> None:
        """Set the constant in chip-file data `data` (in place). A vector row the file lacks starts as a copy of
        the default row, both dtypes, before one half of one is set."""
        if not self.in_chip:
            return
        if self.key in _CHIP_LEVEL:
            data[self.key] = value
            return
        timing = data["timing"]
        if self.key.startswith("vector."):
            _, op, col, part = self.key.split(".")
            table = timing.setdefault("vector", {})
            rows = table.setdefault(op, {c: list(timing["vector_default"]) for c in _COLUMNS})
            row = [float(v) for v in rows.get(col, timing["vector_default"])]
            row[0 if part == "startup" else 1] = value
            rows[col] = row
            return
        timing[self.key] = value

    def to_fit(self, value: float) -> float:
        """The value in the fit's coordinates: the inverse of a rate, the value itself otherwise."""
        return 1.0 / value if self.inverse else value

    def from_fit(self, u: float) -> float:
        return 1.0 / u if self.inverse else u


def _default(name: str) -> float:
    """A timing constant the chip file leaves to TimingConfig's default."""
    field = TimingConfig.model_fields[name]
    return float(field.default) if isinstance(field.default, int | float) else 0.0


def chip_data(chip: Chip) -> dict:
    """The chip's file as plain data, for the fit to change copies of."""
    return copy.deepcopy(chip.model_dump())


def with_values(data: dict, values: dict[Constant, float]) -> dict:
    """A copy of chip-file data with `values` set."""
    out = copy.deepcopy(data)
    for c, v in values.items():
        c.put(out, v)
    return out


def as_chip(data: dict) -> Chip:
    return Chip.model_validate(data)
