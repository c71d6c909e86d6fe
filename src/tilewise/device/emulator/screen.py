"""Screening a configuration on the emulator before it costs a measurement (`Device.screen`).

A tuner pays for every candidate it measures: a build, inputs, a golden, a run of every block and a schedule. Many
candidates of a real tiling function cannot work, and what rules them out shows before the kernel computes
anything: the tiling function fails or sets blockDim 0, the kernel's InitBuffers ask for more than the Unified
Buffer holds, the first GM<->UB DataCopy moves a length that is not a whole number of 32-byte blocks, or blockDim
exceeds what the device can run. So a screening runs the host tiling and then block 0 only, told the real
blockDim, and stops it at its first copy or vector instruction (the runner's `screen` spec line, tw/runtime/launcher.h).

It uses the run's own build (the same knob split and build cache key), the usual inputs (the GM tensors must
exist) and no golden. Only the failures above screen a configuration out: anything else the stopped kernel runs
into (an output whose shape only the golden knows, say) is left for the measurement to judge, so a screening
never refuses what a run would accept.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from tilewise.analysis.operator import Operator
from tilewise.device.binding import bind_dtypes
from tilewise.device.emulator.build import BuildError
from tilewise.device.emulator.device import knob_env
from tilewise.device.emulator.target import choose_chip
from tilewise.device.inputs import make_inputs
from tilewise.device.protocol import TRANSIENT_ERROR_KINDS, Measurement, RunRequest, Screening

if TYPE_CHECKING:
    from tilewise.device.emulator.device import EmulatorDevice

# The most blocks one launch may have (the runtime's blockDim limit): a tiling that asks for more cannot launch.
MAX_BLOCK_DIM = 65535

# Runner errors that mean the host tiling itself failed (tw/runtime/runner_main.cpp): the configuration cannot launch.
_TILING_ERRORS = frozenset({"tiling_failed", "tiling_exception", "host_crash"})


def screen_case(device: EmulatorDevice, op: Operator, request: RunRequest) -> Screening:
    """Screen the request's knobs (on its source texts, when it gives some) on its case (see the module's
    docstring). Problems that are not the configuration's (a case that does not fit the operator, a
    kernel-invocation program with its own host) pass: the run reports them."""
    if op.model.layout == "invocation":  # the program's own main runs the tiling: nothing to stop half-way
        return Screening(ok=True, reason="not screened: a kernel-invocation program runs its own host code")
    case, knobs = request.case, request.knobs
    chip, _ = choose_chip(op, device.chip, device.chip_given)
    try:
        type_macros, _ = bind_dtypes(op, case)
        arrays = make_inputs(case, request.seed, overrides=request.inputs)
    except ValueError as exc:
        return Screening(ok=True, reason=f"not screened: {exc}")
    try:
        build, runtime = device._build(op, type_macros, knobs, request.texts)
    except BuildError as exc:
        if exc.error.kind in TRANSIENT_ERROR_KINDS:  # the machine's failure: raised, so that no one keeps it
            raise
        return Screening(
            ok=False, kind="build_failed", reason=exc.error.message, file=exc.error.file, line=exc.error.line
        )
    workdir = Path(tempfile.mkdtemp(prefix="tilewise-screen-"))
    env = knob_env(runtime, knobs)
    m = Measurement(ok=False, case=case.name)
    try:
        device._execute(build.exe, op, case, arrays, workdir, m, None, [], env, chip=chip, screen=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if m.error is not None and m.error.kind in TRANSIENT_ERROR_KINDS:
        raise RuntimeError(f"the screening run failed: {m.error.kind}: {m.error.message}")
    return verdict(op, m, max(chip.vector_cores, chip.cube_cores))


def verdict(op: Operator, m: Measurement, cores: int) -> Screening:
    """What a screening run's measurement says about the configuration. An InitBuffer past the UB's end comes
    first: it is why a copy into that buffer then fails."""
    seen = Screening(
        ok=True,
        block_dim=m.block_dim,
        tiling_key=m.tiling_key,
        tiling_digest=m.tiling_digest,
        buffers=list(m.init_buffers) if m.error is None or m.init_buffers else None,
    )
    overflow = next((w for w in m.warnings if w.kind == "ub_overflow"), None)
    if overflow is not None:
        return _failed(seen, "ub_overflow", overflow.message, overflow.file, overflow.line)
    if m.error is not None and m.error.kind in _TILING_ERRORS:
        return _failed(seen, "tiling_failed", m.error.message, m.error.file, m.error.line)
    if m.error is not None and m.error.kind == "unaligned_copy":
        return _failed(seen, "unaligned_copy", m.error.message, m.error.file, m.error.line)
    if m.block_dim is not None and m.block_dim > MAX_BLOCK_DIM:
        return _failed(seen, "block_dim", f"blockDim {m.block_dim} is over the {MAX_BLOCK_DIM} a launch may have")
    if m.block_dim is not None and m.block_dim > cores and op.model.calls("SyncAll"):
        # Every block must be resident for a SyncAll to return: with more blocks than cores, the first wave waits
        # for blocks that never start (the emulator runs every block at once and would not notice).
        return _failed(
            seen,
            "block_dim",
            f"blockDim {m.block_dim} is over the chip's {cores} cores, and the kernel calls SyncAll: the blocks of "
            "the first wave would wait for the others forever",
        )
    if m.error is not None:  # another error of the stopped kernel: the measurement judges it
        seen.reason = f"not screened out: {m.error.kind}: {m.error.message}"
    return seen


def _failed(seen: Screening, kind: str, reason: str, file: str | None = None, line: int | None = None) -> Screening:
    return seen.model_copy(update={"ok": False, "kind": kind, "reason": reason, "file": file, "line": line})
