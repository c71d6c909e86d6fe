"""Fitting chip constants to a device's times: Gauss-Newton on the relative errors, with the emulator as the model.

The emulator's time for a micro-kernel is piecewise linear in the constants it depends on (in the inverse of a
rate: bytes / rate), so instead of a black-box optimiser the fit linearises: it times every micro-kernel on the
emulator, moves each constant a little and times again (finite differences; constants that no micro-kernel shares
move together in one pass, so a pass costs one run per micro-kernel), solves the linear least-squares problem on
the relative errors (numpy), and runs the emulator at the solution to see how far it got. It keeps the linearisation
while each step at least halves the error and makes a new one where it does not (a micro-kernel that moved from
issue-bound to rate-bound). Two launch constants need no finite difference: the launch costs `base + per_core x
min(blocks, cores)` (tw/timing/model.h).

Before solving, each constant is checked for whether the micro-kernels pin it: one that no micro-kernel's time
moves with, or one that moves the times only the way already-kept constants do (a single-core chip's per-core launch
cost against the base cost), is left at its value, and the report says why.

A stage can carry offsets of its own (`offset.*`): a time added to a group of micro-kernels, fitted with the rest
and never written to the chip. The vector micro-kernels of a dtype share their copies and launch, so whatever error
the copy constants leave is the same in all of them; their offset takes it, instead of every instruction's startup.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from tilewise.analysis.chip import Chip
from tilewise.analysis.operator import Operator
from tilewise.device.protocol import Device, RunRequest
from tilewise.search.calibrate.constants import Constant, as_chip, with_values
from tilewise.search.calibrate.kernels import MicroKernel

STEP = 0.05  # a finite difference moves a constant by 5% (of its fit coordinate)
PINNED = 1e-3  # a constant pins nothing when doubling it moves no time by 0.1%
SEPARATE = 0.05  # ... nor when its pattern of moves is within 5% of the kept constants' (sine of the angle)
DONE = 2e-5  # an RMS relative error this small ends the fit (the emulator prints times to 1e-4 µs)
MAX_STEPS = 6

Progress = Callable[[str, int], None]  # what the calibration is doing, and the runs made so far


class CalibrationError(Exception):
    """The model failed a run it had passed before (which no constant should cause): the fit cannot go on."""


class Bench:
    """Runs micro-kernels on a device, several at once, and counts the runs. A time is the median of `repeats`
    runs; a failure is the one-line reason instead of a time."""

    def __init__(self, operators: dict[str, Operator], workers: int = 2, progress: Progress | None = None):
        self.operators = operators
        self.workers = max(1, workers)
        self.progress = progress
        self.runs = 0
        self._built: set[tuple[str, str, str]] = set()
        self._lock = threading.Lock()

    def times(
        self, device: Device, kernels: Sequence[MicroKernel], repeats: int = 1, what: str = ""
    ) -> list[float | str]:
        if what and self.progress:
            self.progress(what, self.runs)
        results: list[float | str] = [""] * len(kernels)
        # The first run of each operator and dtype builds it: alone, so that parallel runs find the build made.
        first = []
        for i, k in enumerate(kernels):
            key = (device.name, k.operator, k.dtype)
            if key not in self._built:
                self._built.add(key)
                first.append(i)
        for i in first:
            results[i] = self._one(device, kernels[i], repeats)
        built_now = set(first)
        rest = [i for i in range(len(kernels)) if i not in built_now]
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            for i, value in zip(rest, pool.map(lambda j: self._one(device, kernels[j], repeats), rest), strict=True):
                results[i] = value
        return results

    def _one(self, device: Device, k: MicroKernel, repeats: int) -> float | str:
        found = []
        for seed in range(max(1, repeats)):
            m = device.run(self.operators[k.operator], RunRequest(k.case, seed=seed))
            with self._lock:
                self.runs += 1
                if self.progress:
                    self.progress("", self.runs)
            if m.error is not None or not m.ok:
                kind, message = (m.error.kind, m.error.message) if m.error else ("failed", "no reason given")
                return f"{kind}: {message.splitlines()[0] if message else ''}"
            if m.correct is False:
                worst = max((o.max_rel_err or 0.0 for o in m.outputs), default=0.0)
                return f"wrong outputs (max relative error {worst:.3g})"
            if m.time_us is None:
                return "the device gave no time"
            found.append(m.time_us)
        return float(np.median(found))


@dataclass
class StageFit:
    """What one stage found: its constants' values (chip units), the emulator's times there (offsets not added),
    which constants were left and why, and how the error went."""

    values: dict[Constant, float]
    model_us: np.ndarray
    unfitted: dict[Constant, str] = field(default_factory=dict)
    pinned_by: dict[Constant, int] = field(default_factory=dict)
    steps: int = 0
    error_start: float = 0.0
    error_end: float = 0.0


@dataclass
class Fitter:
    """Fits one stage's constants to `device_us` for `kernels`, from chip-file data `data` (which holds every
    constant of earlier stages at its fitted value)."""

    bench: Bench
    model_for: Callable[[Chip], Device]
    cores: int

    def fit(
        self,
        data: dict,
        constants: list[Constant],
        kernels: list[MicroKernel],
        device_us: np.ndarray,
        model_us: np.ndarray,
        label: str,
    ) -> StageFit:
        """`model_us` is the emulator's time of each kernel at `data` (already run). Constants come in priority
        order: of two that move the times alike, the earlier is fitted."""
        u0 = np.array([c.to_fit(c.get(data)) for c in constants])
        scale = np.array([abs(u) if u else c.typical for u, c in zip(u0, constants, strict=True)])
        u, raw = u0.copy(), model_us
        err = _rms(self._total(u, raw, constants, kernels), device_us)
        result = StageFit(self._values(u, constants), raw, error_start=err, error_end=err)
        if not constants:
            return result
        # Linearised even when the model already agrees: which constants the kernels pin is part of the answer.
        jac = self._jacobian(data, u, raw, constants, kernels, scale, label)
        weighted = jac * scale / device_us[:, None]
        kept, result.unfitted = _separable(weighted, constants)
        result.pinned_by = {c: int(np.sum(np.abs(weighted[:, j]) >= PINNED)) for j, c in enumerate(constants)}
        for step in range(1, MAX_STEPS + 1):
            if not kept or err < DONE:
                break
            total = self._total(u, raw, constants, kernels)
            residual = (total - device_us) / device_us
            delta = np.zeros_like(u)
            delta[kept] = np.linalg.lstsq(weighted[:, kept], -residual, rcond=None)[0] * scale[kept]
            moved = None
            for damping in (1.0, 0.5, 0.25):
                cand = _clip(u + damping * delta, u0, constants)
                cand_raw = self._model(data, cand, constants, kernels, f"{label}: step {step}")
                cand_err = _rms(self._total(cand, cand_raw, constants, kernels), device_us)
                if cand_err < err:
                    moved = cand, cand_raw, cand_err
                    break
            if moved is None:
                break
            ratio = moved[2] / err
            u, raw, err = moved
            result.steps = step
            if err < DONE:
                break
            if ratio > 0.5:  # the linearisation no longer describes the model here: make a new one
                jac = self._jacobian(data, u, raw, constants, kernels, scale, label)
                weighted = jac * scale / device_us[:, None]
        result.values, result.model_us, result.error_end = self._values(u, constants), raw, err
        return result

    # ---- the model ------------------------------------------------------------------------------------------------
    def _model(
        self, data: dict, u: np.ndarray, constants: list[Constant], kernels: list[MicroKernel], what: str
    ) -> np.ndarray:
        """The emulator's times with the constants at `u` (offsets not added)."""
        chip = as_chip(with_values(data, {c: c.from_fit(x) for c, x in zip(constants, u, strict=True) if c.in_chip}))
        found = self.bench.times(self.model_for(chip), kernels, what=what)
        failed = [(k.name, f) for k, f in zip(kernels, found, strict=True) if isinstance(f, str)]
        if failed:
            name, why = failed[0]
            raise CalibrationError(f"the model failed micro-kernel '{name}' with moved constants: {why}")
        return np.array(found, dtype=float)

    @staticmethod
    def _total(u: np.ndarray, raw: np.ndarray, constants: list[Constant], kernels: list[MicroKernel]) -> np.ndarray:
        """The stage's prediction: the emulator's times plus the offsets of the kernels each offset covers."""
        total = raw.copy()
        for j, c in enumerate(constants):
            if not c.in_chip:
                total += u[j] * np.array([c.key in k.touches for k in kernels], dtype=float)
        return total

    def _analytic(self, c: Constant, k: MicroKernel) -> float | None:
        """d time / d constant (µs per unit) where the model's formula is a plain sum; None for the others."""
        if c.key not in k.touches:
            return 0.0
        if c.key == "launch_us_base" or not c.in_chip:
            return 1.0
        if c.key == "launch_us_per_core":
            return float(min(k.blocks, self.cores))
        return None

    def _jacobian(
        self,
        data: dict,
        u: np.ndarray,
        raw: np.ndarray,
        constants: list[Constant],
        kernels: list[MicroKernel],
        scale: np.ndarray,
        label: str,
    ) -> np.ndarray:
        """d time / d fit coordinate of each constant, per kernel (µs per unit)."""
        jac = np.zeros((len(kernels), len(constants)))
        numeric = []
        for j, c in enumerate(constants):
            col = [self._analytic(c, k) for k in kernels]
            if all(v is not None for v in col):
                jac[:, j] = [float(v or 0.0) for v in col]
            else:
                numeric.append(j)
        for n, group in enumerate(_colour(numeric, constants, kernels), 1):
            h = np.zeros_like(u)
            h[group] = STEP * scale[group]
            rows = [i for i, k in enumerate(kernels) if any(constants[j].key in k.touches for j in group)]
            moved = self._model(data, u + h, constants, [kernels[i] for i in rows], f"{label}: slope {n}")
            for i, t in zip(rows, moved, strict=True):
                j = next(j for j in group if constants[j].key in kernels[i].touches)
                jac[i, j] = (t - raw[i]) / h[j]
        return jac

    @staticmethod
    def _values(u: np.ndarray, constants: list[Constant]) -> dict[Constant, float]:
        """The constants in chip units, to 5 significant digits (a chip file of round figures; the times move by
        less than the emulator prints)."""
        return {c: float(f"{c.from_fit(float(x)):.5g}") for c, x in zip(constants, u, strict=True)}


def _colour(numeric: list[int], constants: list[Constant], kernels: list[MicroKernel]) -> list[list[int]]:
    """Groups of constants no kernel depends on two of: each group's finite difference is one pass."""
    groups: list[list[int]] = []
    for j in numeric:
        for g in groups:
            if not any(
                constants[j].key in k.touches and any(constants[i].key in k.touches for i in g) for k in kernels
            ):
                g.append(j)
                break
        else:
            groups.append([j])
    return groups


def _separable(weighted: np.ndarray, constants: list[Constant]) -> tuple[list[int], dict[Constant, str]]:
    """The columns the fit can move (in priority order), and why each other constant is left."""
    kept: list[int] = []
    why: dict[Constant, str] = {}
    for j, c in enumerate(constants):
        col = weighted[:, j]
        if np.max(np.abs(col), initial=0.0) < PINNED:
            why[c] = "no micro-kernel's time depends on it"
            continue
        if kept:
            basis, _ = np.linalg.qr(weighted[:, kept])
            rest = col - basis @ (basis.T @ col)
            if np.linalg.norm(rest) < SEPARATE * np.linalg.norm(col):
                cos = [abs(col @ weighted[:, i]) / np.linalg.norm(weighted[:, i]) for i in kept]
                like = constants[kept[int(np.argmax(cos))]].key
                why[c] = f"the micro-kernels cannot tell it from {like}"
                continue
        kept.append(j)
    return kept, why


def _clip(u: np.ndarray, u0: np.ndarray, constants: list[Constant]) -> np.ndarray:
    """Keep every chip constant where the chip file allows it: rates positive and within 50x of the base value,
    cycle counts and launch costs not negative; offsets free."""
    out = u.copy()
    for j, c in enumerate(constants):
        if c.inverse:
            out[j] = min(max(out[j], u0[j] / 50), u0[j] * 50)
        elif c.in_chip:
            out[j] = max(out[j], 0.0)
    return out


def _rms(model: np.ndarray, device: np.ndarray) -> float:
    return float(np.sqrt(np.mean(((model - device) / device) ** 2))) if len(device) else 0.0
