"""What every device (the emulator, an Ascend NPU) takes and returns.

`Device` is the contract the tuner (search/tuner.py), the fix verifier (search/verify_fix.py), lint's case facts
(device/facts.py) and the CLI and language server are written against; `EmulatorDevice` and `NpuDevice` implement
it. A device runs one operator on what a `RunRequest` asks: one case, with knob overrides (a tiling to try) or whole
source texts (a fix to verify), a seed or given inputs, a golden and tolerances, a trace; and it answers with a
`Measurement`: whether it ran and was correct, the timing model's figures, and, when asked, the output arrays
themselves (`Measurement.produced_outputs`) for callers that compare two runs without a golden. Before paying for a
run, a caller may `screen` the same request: the host tiling and the kernel's set-up alone, answered with a
`Screening`. The request is one plain value so that the executors (search/executors.py) hand it on, and Ray ships
it to a worker, as it is.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, Field, PrivateAttr

from tilewise.analysis.chip import Chip
from tilewise.analysis.manifest import Case
from tilewise.analysis.operator import Operator


class RunError(BaseModel):
    """A typed failure: compile, sanitizer (ub_overflow, gm_out_of_bounds, deadlock, ...), timeout, crash, golden."""

    kind: str
    message: str
    file: str | None = None
    line: int | None = None


# Sanitizer warnings for memory the kernel touches outside what it was given (past a UB buffer, into a GM tensor's
# guard, InitBuffers past the UB's end): the device goes on, so the run does, but the result depends on neighbours.
MEMORY_WARNING_KINDS = frozenset({"ub_out_of_bounds", "gm_out_of_bounds", "ub_overflow"})

# Failures that say more about the machine at that moment than about the configuration (a timeout under load, a run
# or a compiler killed from outside: the OOM killer, a user's kill -9): never kept in the results cache, so the next
# tune measures again instead of inheriting them.
TRANSIENT_ERROR_KINDS = frozenset({"timeout", "killed", "build_killed", "build_timeout"})


class RunWarning(RunError):
    """A sanitizer warning: the device went on (an unaligned DataCopy tail dropped, an unsynchronised cross-pipe
    access), so the run did too; `count` is how often the call site hit it."""

    count: int = 1


class OutputCheck(BaseModel):
    name: str
    shape: list[int]
    dtype: str
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    mismatches: int = 0
    ok: bool = True


class PipeUse(BaseModel):
    busy_us: float
    ratio: float


class SiteUse(BaseModel):
    """What one API call site (a call at a file and line) did in one block of a run, from the emulator's trace:
    how many calls, the bytes they moved or touched, their vector repeats, and their busy time on the pipe."""

    block: int
    pipe: str  # MTE2, MTE3, VECTOR or SCALAR
    api: str
    file: str
    line: int
    calls: int
    bytes: int
    min_bytes: int
    max_bytes: int
    repeats: int
    min_repeats: int
    max_repeats: int
    busy_us: float


class InitBufferUse(BaseModel):
    """One TPipe::InitBuffer as it ran in block 0: its site, how many buffers, the length asked (before rounding)."""

    file: str
    line: int
    num: int
    len: int


class Measurement(BaseModel):
    ok: bool
    correct: bool | None = None  # None when there was nothing to compare against
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    block_dim: int | None = None
    tiling_key: int | None = None
    tiling_digest: str | None = None  # (a screening's: see Screening)
    workspace: list[int] = []
    ub_peak_bytes: int | None = None
    init_buffers: list[InitBufferUse] = Field(default=[], exclude=True)  # block 0's, for lint's case facts
    outputs: list[OutputCheck] = []
    error: RunError | None = None
    warnings: list[RunWarning] = []
    compile_s: float = 0.0
    run_s: float = 0.0
    cached_build: bool = False
    case: str | None = None
    trace_path: str | None = None
    # the timing model's estimate (simulated time on the chip, not the CPU's wall time)
    time_us: float | None = None
    cycles: float | None = None
    launch_us: float | None = None
    pipes: dict[str, PipeUse] = {}
    bottleneck: str | None = None
    hbm_bytes: float | None = None  # what crossed HBM in the kernel (L2 misses, write-backs), when the device knows
    waves: int | None = None
    chip: str | None = None
    schedule_s: float | None = None
    # per block and call site, when the run was asked for them; left out of dumps (thousands of rows on big runs)
    sites: list[SiteUse] = Field(default=[], exclude=True)
    # The produced arrays, when the caller asked to keep them: private so that neither a dump nor the results
    # cache carries them (megabytes per run); `produced_outputs` / `keep_outputs` are the way in and out.
    _outputs: list[np.ndarray] | None = PrivateAttr(default=None)

    def produced_outputs(self) -> list[np.ndarray] | None:
        """The arrays the run produced, in `outputs` order and as floats, when the run was asked to keep them
        (`RunRequest.keep_outputs`); None otherwise, and always for a measurement read from a cache."""
        return self._outputs

    def keep_outputs(self, arrays: list[np.ndarray]) -> None:
        """Attach the produced arrays (the device does, when the request asked to keep them)."""
        self._outputs = list(arrays)


# What a screening found wrong with a configuration, without running the kernel through (Device.screen):
SCREEN_KINDS = frozenset(
    {
        "tiling_failed",  # the tiling function returned GRAPH_FAILED, threw, or set blockDim 0
        "ub_overflow",  # the kernel's InitBuffers ask for more than the chip's Unified Buffer
        "unaligned_copy",  # a GM<->UB DataCopy moves a length that is not a multiple of 32 bytes
        "block_dim",  # blockDim a device cannot launch, or more blocks than cores for a kernel that SyncAlls
        "build_failed",  # the configuration does not compile
    }
)


class Screening(BaseModel):
    """A configuration checked before it costs a measurement: the host tiling run alone, then block 0 of the kernel
    up to its first copy or vector instruction. `ok` is False only when the configuration is known not to work; a
    device that cannot tell says ok (the measurement decides). `kind` is one of SCREEN_KINDS, `file` and `line` the
    site that decided (an InitBuffer, a DataCopy) when there is one."""

    ok: bool
    reason: str | None = None
    kind: str | None = None
    file: str | None = None
    line: int | None = None
    block_dim: int | None = None
    tiling_key: int | None = None
    # A fingerprint of the tiling bytes the kernel would be handed: equal fingerprints (with equal blockDim and
    # tiling key) mean two configurations give the kernel the same tiling. None when the device cannot tell.
    tiling_digest: str | None = None
    # Block 0's InitBuffers as the screening made them (site, count, length asked): what the configuration's buffers
    # weigh, for fitting the tile knobs' domains to the UB (search/domains.py). None when the device cannot tell.
    buffers: list[InitBufferUse] | None = None


@dataclass(frozen=True)
class RunRequest:
    """What one run of an operator takes besides the operator and the device: everything `Device.run` and
    `Device.screen` read, in one plain value (a frozen dataclass of picklable fields: it crosses to a Ray worker as
    one argument). `dataclasses.replace(request, knobs=...)` makes a variant.

    - `case`: the shapes, dtypes and attributes to run on;
    - `knobs`: tiling constants overridden by name (search/space.py's Config); empty for the shipped values;
    - `texts`: whole source files replaced (path -> text) without touching the disk (a fix to verify);
    - `seed` draws the inputs, unless `inputs` gives them (name -> array);
    - `golden` (`file.py:function`), `rtol` and `atol` override the manifest's check;
    - `trace_path` asks for a Chrome trace there;
    - `keep_outputs` keeps the produced arrays on the measurement (`Measurement.produced_outputs`);
    - `sites` asks for per-call-site figures (`Measurement.sites`).
    """

    case: Case
    _: KW_ONLY
    knobs: dict[str, int] = field(default_factory=dict)
    texts: dict[str, str] | None = None
    seed: int = 0
    inputs: dict[str, np.ndarray] | None = None
    golden: str | None = None
    rtol: float | None = None
    atol: float | None = None
    trace_path: str | None = None
    keep_outputs: bool = False
    sites: bool = False


@runtime_checkable
class Device(Protocol):
    """A place to measure an operator. `name` and `chip.name` key the results cache (a measurement on one device or
    chip says nothing about another); `chip` is what the search checks a configuration against before paying for a
    run (buffers within the UB; block counts up to the core count). `isinstance(x, Device)` checks the members
    exist; tests/emulator/test_device_protocol.py checks each device's `run` and `screen` signatures against these."""

    name: str
    chip: Chip

    def run(self, op: Operator, request: RunRequest) -> Measurement:
        """Build and run `op` as `request` says (see RunRequest for each option). Failures are reported in the
        measurement (`ok`, `error`), never raised."""
        ...

    def screen(self, op: Operator, request: RunRequest) -> Screening:
        """Check `request.knobs` on `request.case` without a measurement: what the host tiling and the kernel's
        set-up say (the tuner screens every candidate this way, so that a tiling that cannot work never costs a
        run). `seed` and `inputs` are read as `run` reads them (value-dependent tilings read the inputs); the
        options that only a run uses (golden, trace, outputs, sites) are ignored. Never raises; when in doubt, ok."""
        ...
