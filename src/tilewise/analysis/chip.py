"""Chip descriptions: data files of documented constants, validated at load time.

The analysis needs the core count and UB size, and the `timing` section's constants for its gain estimates; the
emulator's timing model (device/) schedules with the same constants.
A user passes a built-in name (`910B2`) or the path of their own JSON file.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from tilewise.analysis.errors import TilewiseError

CHIP_DIR = Path(__file__).parent / "data" / "chips"
DEFAULT_CHIP = "910B2"
BLOCK_BYTES = 32  # the DMA moves whole 32-byte blocks
REPEAT_BYTES = 256  # one vector repeat covers 256 bytes


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
    # The `timing` section, validated once with the chip (estimates ask for it per finding and per hover): its
    # TimingConfig, or why it has none (`timing_config` raises that).
    _timing: TimingConfig | str = PrivateAttr(default="")

    @model_validator(mode="after")
    def _validate_timing(self) -> Chip:
        raw = (self.model_extra or {}).get("timing")
        if raw is None:
            self._timing = "chip file has no 'timing' section; copy one from a built-in chip file"
            return self
        try:
            self._timing = TimingConfig.model_validate(raw)
        except ValidationError as exc:  # pydantic's message names the field
            self._timing = f"chip timing section is invalid: {exc}"
        return self


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
    dma_peak_gibps: float = Field(gt=0)  # one core's MTE2 rate (GM -> UB)
    dma_out_gibps: float = Field(188.46, gt=0)  # one core's MTE3 rate (UB -> GM)
    dma_issue_cycles: float = Field(ge=0)
    pad_row_cycles: float = Field(ge=0)
    l2_mbytes: float = Field(192.0, ge=0)
    l2_gbps: float = Field(5200.0, gt=0)
    scalar_issue_cycles: float = Field(ge=0)
    ub_scalar_cycles: float = Field(ge=0)
    gm_scalar_cycles: float = Field(ge=0)
    sync_all_cycles: float = Field(ge=0)
    # Completion latency beyond occupancy (what a dependant waits for, not what the pipe is busy with), and the drain
    # a PipeBarrier<PIPE_V> adds when vector work is in flight; 0 when the chip file says nothing.
    vector_latency_cycles: float = Field(0.0, ge=0)
    mte2_latency_cycles: float = Field(0.0, ge=0)
    mte3_latency_cycles: float = Field(0.0, ge=0)
    barrier_v_cycles: float = Field(0.0, ge=0)
    # Extra beats a vector repeat takes when it reads and writes one UB bank in the same beat (a read-write bank
    # conflict, tw/timing/ub_banks.h); 0 when the chip file says nothing. Read-read and write-write conflicts need no
    # constant: their beats are counted from the addresses.
    ub_rw_conflict_beats: float = Field(0.0, ge=0)
    # A copy's GM time grows by this share per extra core whose copy of the same round falls in the same 512-byte
    # windows (tw/timing/same_address.h; 0 for chip files without it: no same-address term).
    same_address_serial: float = Field(0.0, ge=0)
    vector_default: tuple[float, float]
    vector: dict[str, VectorCost] = {}

    # The costs the emulator's timing model (emulator/include/tw/timing/model.h) charges, for estimates made without
    # running: one place for the formulas, so hover, explain and the lint rules' gain estimates cannot drift apart
    # from each other or from the emulator. tests/emulator/test_cost_agreement.py runs the C++ model on the same
    # calls and compares cycles.

    def dma_efficiency(self, nbytes: float, clock_ghz: float) -> float:
        """Share of one core's DMA rate a copy of `nbytes` reaches when the next step waits for it: its bytes at the
        rate, over the time until its data is usable (the longer of the issue cost and the bytes at the rate, plus
        the MTE2 completion latency). Copies in flight together hide each other's latency; one waited on does not,
        which is why small copies in a serial loop are slow."""
        if nbytes <= 0:
            return 0.0
        own = nbytes / (self.dma_peak_gibps * 2**30) * clock_ghz * 1e9  # cycles at the core's rate
        return own / (max(self.dma_issue_cycles, own) + self.mte2_latency_cycles)

    def dma_gibps(self, nbytes: float, clock_ghz: float) -> float:
        """Bandwidth one core reaches on a copy of `nbytes` that is waited for (`dma_efficiency` of the rate). The
        emulator further caps it by the core's share of HBM or L2 when many cores copy at once, which a single call
        cannot know."""
        return self.dma_peak_gibps * self.dma_efficiency(nbytes, clock_ghz)

    def dma_cycles(
        self,
        nbytes: float,
        clock_ghz: float,
        bursts: int = 1,
        pad: bool = False,
        cap_bytes_per_s: float | None = None,
        outward: bool = False,
    ) -> float:
        """The cycles one MTE2 (or, `outward`, MTE3) copy occupies its pipe, as `Scheduler::cost_of` (timing.h)
        charges it: the longest of the issue cost, the bytes at the core's DMA rate for that direction and the bytes
        at `cap_bytes_per_s` (the core's share of HBM, which the scheduler computes from the whole launch), plus
        `pad_row_cycles` per row for DataCopyPad (`pad`, `bursts` rows). Completion latency comes on top for
        whatever waits for the data."""
        hz = clock_ghz * 1e9
        seconds = nbytes / ((self.dma_out_gibps if outward else self.dma_peak_gibps) * 2**30)
        if cap_bytes_per_s is not None and cap_bytes_per_s > 0:
            seconds = max(seconds, nbytes / cap_bytes_per_s)
        cycles = max(self.dma_issue_cycles, seconds * hz)
        if pad:
            cycles += self.pad_row_cycles * max(bursts, 1)
        return cycles

    def dma_us(self, nbytes: float, clock_ghz: float) -> float:
        """One copy's time in microseconds until its data is usable: `dma_cycles` plus the MTE2 latency."""
        return (self.dma_cycles(nbytes, clock_ghz) + self.mte2_latency_cycles) / (clock_ghz * 1e3)

    @staticmethod
    def datacopy_bytes(elements: int, elem_bytes: int) -> int:
        """Bytes a count-form DataCopy moves: whole 32-byte blocks only (the device drops a partial last block;
        the emulator's `whole_blocks` in tw/api/data_copy.h warns and does the same)."""
        return elements * elem_bytes // BLOCK_BYTES * BLOCK_BYTES

    @staticmethod
    def vector_repeats(elements: int, elem_bytes: int) -> int:
        """Repeats of a count-form vector instruction: one per 256 bytes started (`repeats_of` in
        tw/api/vector/core.h, which the trace records and `Scheduler::cost_of` charges)."""
        return -(-elements * elem_bytes // REPEAT_BYTES)

    def vector_row(self, name: str | None, elem_bytes: int) -> tuple[float, float]:
        """(head, cycles per repeat) of a vector API: its row (fp16 column for elements of 2 bytes or less, else
        fp32), or the default row for an API the chip file does not list (`name` None: the default row)."""
        cost = self.vector.get(name) if name is not None else None
        return (cost.fp16 if elem_bytes <= 2 else cost.fp32) if cost else self.vector_default

    def vector_busy_cycles(self, name: str | None, elem_bytes: int, repeats: int) -> float:
        """The cycles one vector instruction occupies the vector pipe, as `Scheduler::cost_of` (timing.h) charges
        it: its repeats (at least one) at the row's slope; the next instruction may start after them."""
        return max(1.0, self.vector_row(name, elem_bytes)[1] * max(repeats, 1))

    def vector_cycles(self, name: str | None, elem_bytes: int, repeats: int) -> float:
        """One vector instruction on its own, until its result is usable: head + slope x repeats + the vector
        latency (what a dependent instruction after a PipeBarrier<PIPE_V> waits for, less the barrier's drain)."""
        head = self.vector_row(name, elem_bytes)[0]
        return head + self.vector_busy_cycles(name, elem_bytes, repeats) + self.vector_latency_cycles

    def scalar_access_cycles(self, global_memory: bool) -> float:
        """One GetValue/SetValue once the pipes it waits for are drained: its issue plus the UB or GM access
        (`Scheduler::simulate`, the `Rec::Scalar` case, timing.h)."""
        return self.scalar_issue_cycles + (self.gm_scalar_cycles if global_memory else self.ub_scalar_cycles)


def timing_config(chip: Chip) -> TimingConfig:
    """The chip's validated timing section; a TilewiseError when it has none or it is invalid."""
    if isinstance(chip._timing, str):
        raise TilewiseError(chip.name, 0, chip._timing)
    return chip._timing


def cost_model(chip: Chip) -> TimingConfig:
    """The chip's cost model for estimates (hover, explain, the lint rules' gains); a user's chip file without a
    valid timing section borrows the default chip's, so an estimate never fails for want of one. A lookup: the
    section was validated with the chip."""
    return chip._timing if isinstance(chip._timing, TimingConfig) else _default_cost_model()


@cache
def _default_cost_model() -> TimingConfig:
    return timing_config(load_chip())


# How `tilewise calibrate` names the chip file it writes: `910B2-calibrated-<host>` is a 910B2 measured on one machine.
CALIBRATED = "-calibrated-"


def chip_in_soc(chip_name: str, soc: str) -> bool:
    """Whether a chip file's name belongs to a SoC family: `910B2` to `ascend910b`, `310B` to `ascend310b`; `910B2`
    is not an `ascend910` (the first-generation 910) nor an `ascend910_93`. A calibrated chip belongs where its base
    chip does."""
    family = soc.removeprefix("ascend")
    base = chip_name.split(CALIBRATED)[0]
    return re.fullmatch(re.escape(family) + r"\d*", base.lower()) is not None
