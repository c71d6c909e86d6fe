"""Chip descriptions: data files of documented constants, validated at load time.

The analysis needs the core count and UB size, and the `timing` section's constants for its gain estimates; the
emulator's timing model (device/) schedules with the same constants.
A user passes a built-in name (`910B2`) or the path of their own JSON file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from analysis.errors import TilewiseError

CHIP_DIR = Path(__file__).parent / "data" / "chips"
DEFAULT_CHIP = "910B2"


class Chip(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str
    description: str = ""
    vector_cores: int = Field(gt=0)
    cube_cores: int = Field(ge=0)
    ub_bytes: int = Field(gt=0)
    l1_bytes: int = Field(gt=0)
    clock_ghz: float = Field(gt=0)
    hbm_gbps: float = Field(gt=0)
    sources: dict[str, str] = {}


def builtin_chips() -> list[str]:
    return sorted(p.stem for p in CHIP_DIR.glob("*.json"))


def load_chip(name_or_path: str | None = None) -> Chip:
    spec = name_or_path or DEFAULT_CHIP
    path = Path(spec)
    if not path.suffix:
        path = CHIP_DIR / f"{spec}.json"
        if not path.exists():
            raise TilewiseError(spec, 0, f"unknown chip; use one of {', '.join(builtin_chips())} or a JSON file")
    try:
        return Chip.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except OSError as exc:
        raise TilewiseError(str(path), 0, f"cannot read chip file ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise TilewiseError(str(path), exc.lineno, f"chip file is not valid JSON: {exc.msg}") from None
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise TilewiseError(str(path), 0, f"chip field '{where}': {err['msg']}") from None


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

    # The costs the emulator's timing model (tw/timing.h) charges, for estimates made without running: one place
    # for the formulas, so hover and the lint rules' gain estimates cannot drift apart from each other.
    def dma_gibps(self, nbytes: float) -> float:
        """Bandwidth one core reaches on a copy of `nbytes`: peak * B / (K + B). The emulator further caps it by
        the core's share of HBM when many cores copy at once, which a single call cannot know."""
        return self.dma_peak_gibps * nbytes / (self.dma_half_bytes + nbytes) if nbytes > 0 else 0.0

    def dma_us(self, nbytes: float, clock_ghz: float) -> float:
        """One copy's time: its startup plus the bytes at `dma_gibps`."""
        gibps = self.dma_gibps(nbytes)
        transfer = nbytes / (gibps * 2**30) * 1e6 if gibps > 0 else 0.0
        return transfer + self.dma_startup_cycles / (clock_ghz * 1e3)

    def vector_cycles(self, name: str, elem_bytes: int, repeats: int) -> float:
        """One vector instruction: startup + slope x repeats, from the API's row (fp16 or fp32 column) or the
        default row for an API the chip file does not list."""
        cost = self.vector.get(name)
        startup, slope = (cost.fp16 if elem_bytes <= 2 else cost.fp32) if cost else self.vector_default
        return startup + slope * max(repeats, 1)


def timing_config(chip: Chip) -> TimingConfig:
    raw = (chip.model_extra or {}).get("timing")
    if raw is None:
        raise TilewiseError(chip.name, 0, "chip file has no 'timing' section; copy one from a built-in chip file")
    try:
        return TimingConfig.model_validate(raw)
    except ValidationError as exc:  # pydantic's message names the field
        raise TilewiseError(chip.name, 0, f"chip timing section is invalid: {exc}") from None


def chip_in_soc(chip_name: str, soc: str) -> bool:
    """Whether a chip file's name belongs to a SoC family: `910B2` to `ascend910b`, `310B` to `ascend310b`; `910B2`
    is not an `ascend910` (the first-generation 910) nor an `ascend910_93`."""
    family = soc.removeprefix("ascend")
    return re.fullmatch(re.escape(family) + r"\d*", chip_name.lower()) is not None
