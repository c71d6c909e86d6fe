"""One calibration: time the micro-kernels on the device and on the emulator, fit the chip constants in two stages,
and hand back the calibrated chip file with a row per micro-kernel.

The stages follow what depends on what. The copy and launch micro-kernels run no vector instruction, so the copy,
HBM and launch constants are fitted first, on them alone. Every vector micro-kernel also copies and launches, so
the vector table's rows are fitted second, with those constants already at their fitted values (and an offset per
dtype for what error they leave, fit.py).
"""

from __future__ import annotations

import math
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tilewise.analysis.chip import CALIBRATED, Chip, TimingConfig
from tilewise.analysis.operator import load_operator
from tilewise.device.cache_dir import default_cache_dir
from tilewise.device.protocol import Device
from tilewise.search.calibrate.constants import Constant, as_chip, chip_data, with_values
from tilewise.search.calibrate.fit import Bench, CalibrationError, Fitter, Progress, StageFit
from tilewise.search.calibrate.kernels import (
    COPY_KEYS,
    DEFAULT_CLASSES,
    VECTOR_CLASSES,
    MicroKernel,
    micro_kernels,
    offset_key,
    soc_of,
)
from tilewise.search.calibrate.operators import write_operators
from tilewise.search.calibrate.report import finish_chip

# Constants the vector micro-kernels see only added to every instruction's startup: the startups take them.
_IN_STARTUP = ("vector_latency_cycles", "barrier_v_cycles")


@dataclass
class KernelRow:
    """One micro-kernel: its time on the device and the model's before and after the fit (None where a run
    failed, with the reason in `note`)."""

    name: str
    family: str
    device_us: float | None
    before_us: float | None
    after_us: float | None = None
    note: str = ""

    @property
    def error_before(self) -> float | None:
        return _error(self.before_us, self.device_us)

    @property
    def error_after(self) -> float | None:
        return _error(self.after_us, self.device_us)


@dataclass
class ConstantChange:
    key: str  # constants.py's key: `dma_peak_gibps`, `vector.Add.fp16.startup`
    unit: str
    before: float
    after: float
    fitted: bool
    why: str = ""  # why it was left at its value
    kernels: int = 0  # the micro-kernels whose time moves with it


@dataclass
class Calibration:
    base: str
    device: str
    chip: dict  # the calibrated chip file's data
    rows: list[KernelRow]
    constants: list[ConstantChange]
    kept: dict[str, str] = field(default_factory=dict)  # chip constants no micro-kernel pins -> why
    runs: int = 0
    seconds: float = 0.0

    @property
    def typical_before(self) -> float | None:
        return _typical([(r.before_us, r.device_us) for r in self.rows])

    @property
    def typical_after(self) -> float | None:
        return _typical([(r.after_us, r.device_us) for r in self.rows])


def default_workdir() -> Path:
    """Where the micro-kernels' operators are written: beside the emulator's build cache, so that a second
    calibration finds them built."""
    return default_cache_dir() / "calibrate"


def calibrate(
    device: Device,
    base: Chip,
    *,
    model_for: Callable[[Chip], Device] | None = None,
    classes: tuple[str, ...] = DEFAULT_CLASSES,
    dtypes: tuple[str, ...] = ("float16", "float32"),
    workdir: Path | None = None,
    workers: int = 2,
    repeats: int = 1,
    progress: Progress | None = None,
    name: str | None = None,
) -> Calibration:
    """Fit `base`'s constants to `device`. `model_for(chip)` is the emulator on a chip (the registry's emulator by
    default); `classes` the vector instruction classes timed; `repeats` runs per micro-kernel on the device (the
    median counts); `name` the calibrated chip's name (default `<base>-calibrated-<host>`)."""
    start = time.perf_counter()
    model_for = model_for or _emulator
    kernels = micro_kernels(base, classes, dtypes)
    folders = write_operators(workdir or default_workdir(), kernels, soc_of(base))
    bench = Bench({op: load_operator(folder) for op, folder in folders.items()}, workers, progress)
    on_device = bench.times(device, kernels, repeats, f"timing {len(kernels)} micro-kernels on the {device.name}")
    before = bench.times(model_for(base), kernels, what="timing them on the emulator with the base chip")
    rows = [
        KernelRow(k.name, k.family, d if isinstance(d, float) else None, b if isinstance(b, float) else None)
        for k, d, b in zip(kernels, on_device, before, strict=True)
    ]
    for row, d, b in zip(rows, on_device, before, strict=True):
        row.note = f"device: {d}" if isinstance(d, str) else (f"model: {b}" if isinstance(b, str) else "")
    usable = [i for i, r in enumerate(rows) if r.device_us and r.before_us is not None]
    if not usable:
        why = next((r.note for r in rows if r.note), "no times")
        raise CalibrationError(f"no micro-kernel ran on both the {device.name} and the emulator; the first: {why}")
    fitter = Fitter(bench, model_for, base.vector_cores)
    data = chip_data(base)

    copies = [i for i in usable if kernels[i].family != "vector"]
    stage_a = _stage(fitter, data, [Constant(k) for k in COPY_KEYS], kernels, copies, rows, "copies and launch")
    data = _apply(data, stage_a)
    vector = [i for i in usable if kernels[i].family == "vector"]
    row_constants = _vector_constants([kernels[i] for i in vector])
    if stage_a is not None and vector:  # the vector kernels' copies and launch now cost what stage A found
        moved = bench.times(model_for(as_chip(data)), [kernels[i] for i in vector], what="re-timing vector kernels")
        for i, t in zip(vector, moved, strict=True):
            if isinstance(t, str):
                raise CalibrationError(
                    f"the model failed micro-kernel '{kernels[i].name}' with the copy constants fitted: {t}"
                )
            rows[i].after_us = t
    stage_b = _stage(fitter, data, row_constants, kernels, vector, rows, "vector rows", start_from_after=True)
    data = _apply(data, stage_b)

    changes = _changes(base, [s for s in (stage_a, stage_b) if s is not None])
    kept = _kept(changes, classes)
    cal = Calibration(base.name, device.name, data, rows, changes, kept, bench.runs, 0.0)
    cal.chip = finish_chip(cal, base, [kernels[i] for i in usable], name or _default_name(base))
    cal.seconds = time.perf_counter() - start
    return cal


def _emulator(chip: Chip) -> Device:
    from tilewise.device.registry import make_device

    return make_device("emulator", chip=chip)


def _stage(
    fitter: Fitter,
    data: dict,
    constants: list[Constant],
    kernels: list[MicroKernel],
    index: list[int],
    rows: list[KernelRow],
    label: str,
    start_from_after: bool = False,
) -> StageFit | None:
    """Fit `constants` on the kernels at `index` and record the model's time after it in their rows."""
    if not index or not constants:
        return None
    device_us = np.array([rows[i].device_us for i in index], dtype=float)
    start = [
        rows[i].after_us if start_from_after and rows[i].after_us is not None else rows[i].before_us for i in index
    ]
    fit = fitter.fit(data, constants, [kernels[i] for i in index], device_us, np.array(start, dtype=float), label)
    for i, t in zip(index, fit.model_us, strict=True):
        rows[i].after_us = float(t)
    return fit


def _apply(data: dict, fit: StageFit | None) -> dict:
    if fit is None:
        return data
    return with_values(data, {c: v for c, v in fit.values.items() if c.in_chip and c not in fit.unfitted})


def _vector_constants(kernels: list[MicroKernel]) -> list[Constant]:
    """The vector rows the kernels time (startup, then per repeat), then each dtype's offset: last, so that where
    the copies-only kernel failed, an offset the startups cannot be told from is the one left out."""
    keys = [t for k in kernels for t in sorted(k.touches) if t.startswith("vector.")]
    ordered = sorted(dict.fromkeys(keys), key=lambda t: (t.rsplit(".", 1)[0], t.endswith("per_repeat")))
    offsets = list(dict.fromkeys(offset_key(k.dtype) for k in kernels))
    return [Constant(k) for k in ordered + offsets]


def _changes(base: Chip, fits: list[StageFit]) -> list[ConstantChange]:
    data = chip_data(base)
    out = []
    for fit in fits:
        for c, value in fit.values.items():
            if not c.in_chip:
                continue
            fitted = c not in fit.unfitted
            out.append(
                ConstantChange(
                    key=c.key,
                    unit=c.unit,
                    before=c.get(data),
                    after=value if fitted else c.get(data),
                    fitted=fitted,
                    why=fit.unfitted.get(c, ""),
                    kernels=fit.pinned_by.get(c, 0),
                )
            )
    return out


def _kept(changes: list[ConstantChange], classes: tuple[str, ...]) -> dict[str, str]:
    """The chip's other constants, and why this calibration leaves each as it was."""
    seen = {c.key for c in changes}
    kept = {
        name: "each vector micro-kernel's startup includes it: the startups were fitted with it as it is"
        if name in _IN_STARTUP
        else "no micro-kernel is built to time it"
        for name in TimingConfig.model_fields
        if name not in seen and name not in ("vector", "vector_default")
    }
    kept["clock_ghz"] = "the unit of every cycle count: the cycle constants are fitted at this clock"
    untimed = [c for c in VECTOR_CLASSES if c not in classes]
    if untimed:
        kept["vector (other rows)"] = f"not timed ({', '.join(untimed)} and the classes no micro-kernel has)"
    return kept


def _default_name(base: Chip) -> str:
    host = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in socket.gethostname()) or "host"
    return f"{base.name.split(CALIBRATED)[0]}{CALIBRATED}{host}"  # a calibrated chip calibrated again: one suffix


def _error(model: float | None, device: float | None) -> float | None:
    return None if model is None or not device else (model - device) / device


def _typical(pairs: list[tuple[float | None, float | None]]) -> float | None:
    """exp(mean |ln(model / device)|), benchmarks/fidelity.py's figure: 1.0 is exact, 1.1 typically 10% off."""
    logs = [abs(math.log(m / d)) for m, d in pairs if m and d]
    return math.exp(sum(logs) / len(logs)) if logs else None
