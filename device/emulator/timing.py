"""The timing model's constants, validated from the chip file, and how they travel to the runner.

The schedule itself runs inside the runner (tw/timing.h): traces can hold millions of records, and replaying them in
C++ keeps scheduling a small share of the run.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from analysis.chip import Chip
from analysis.errors import TilewiseError


class VectorCost(BaseModel):
    fp16: tuple[float, float]  # startup cycles, cycles per repeat
    fp32: tuple[float, float]


class TimingConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    launch_us_base: float = Field(ge=0)
    launch_us_per_core: float = Field(ge=0)
    dma_peak_gibps: float = Field(gt=0)
    dma_half_bytes: float = Field(ge=0)
    dma_startup_cycles: float = Field(ge=0)
    pad_row_cycles: float = Field(ge=0)
    scalar_issue_cycles: float = Field(ge=0)
    ub_scalar_cycles: float = Field(ge=0)
    gm_scalar_cycles: float = Field(ge=0)
    sync_all_cycles: float = Field(ge=0)
    vector_default: tuple[float, float]
    vector: dict[str, VectorCost] = {}


def timing_config(chip: Chip) -> TimingConfig:
    raw = (chip.model_extra or {}).get("timing")
    if raw is None:
        raise TilewiseError(chip.name, 0, "chip file has no 'timing' section; copy one from a built-in chip file")
    try:
        return TimingConfig.model_validate(raw)
    except Exception as exc:  # pydantic's message names the field
        raise TilewiseError(chip.name, 0, f"chip timing section is invalid: {exc}") from None


def spec_lines(chip: Chip) -> list[str]:
    t = timing_config(chip)
    lines = [f"timing clock_ghz {chip.clock_ghz}", f"timing vector_cores {chip.vector_cores}",
             f"timing hbm_gbps {chip.hbm_gbps}"]
    for name in ("launch_us_base", "launch_us_per_core", "dma_peak_gibps", "dma_half_bytes", "dma_startup_cycles",
                 "pad_row_cycles", "scalar_issue_cycles", "ub_scalar_cycles", "gm_scalar_cycles", "sync_all_cycles"):
        lines.append(f"timing {name} {getattr(t, name)}")
    lines.append(f"timing vector_default {t.vector_default[0]} {t.vector_default[1]}")
    for op, cost in sorted(t.vector.items()):
        lines.append(f"timing vcost {op} 2 {cost.fp16[0]} {cost.fp16[1]}")
        lines.append(f"timing vcost {op} 4 {cost.fp32[0]} {cost.fp32[1]}")
    return lines
