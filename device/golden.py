"""Load a numpy golden (`golden.py:function`), run it, and compare an operator's outputs with its answer."""

from __future__ import annotations

import importlib.util
import sys
import traceback
from pathlib import Path

import numpy as np

from device.emulator.dtypes import as_float
from device.protocol import OutputCheck, RunError


class GoldenError(Exception):
    def __init__(self, error: RunError):
        super().__init__(error.message)
        self.error = error


def load_golden(spec: str, base: Path):
    file, _, name = spec.rpartition(":")
    path = (base / file).resolve() if not Path(file).is_absolute() else Path(file)
    if not path.exists():
        raise GoldenError(RunError(kind="golden_error", file=str(path), message=(
            f"golden file {path} does not exist; give it as FILE.py:FUNCTION relative to the operator")))
    module_name = f"tilewise_golden_{abs(hash(str(path)))}"
    try:
        loader_spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[module_name] = module
        loader_spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - user code: report it, never crash the caller
        raise GoldenError(RunError(kind="golden_error", message=f"importing the golden failed: {exc!r}",
                                   file=str(path), line=_user_line(exc, path))) from None
    fn = getattr(module, name, None)
    if not callable(fn):
        raise GoldenError(RunError(kind="golden_error", message=f"{path.name} has no function '{name}'",
                                   file=str(path)))
    return fn, path


def run_golden(spec: str, base: Path, inputs: list[np.ndarray], attrs: dict) -> list[np.ndarray]:
    fn, path = load_golden(spec, base)
    try:
        result = fn(*[np.array(a, copy=True) for a in inputs], **attrs)
    except Exception as exc:  # noqa: BLE001 - user code
        raise GoldenError(RunError(kind="golden_error", message=f"the golden raised {exc!r}", file=str(path),
                                   line=_user_line(exc, path))) from None
    outputs = list(result) if isinstance(result, tuple | list) else [result]
    return [np.asarray(o) for o in outputs]


def check_outputs(outputs: list[OutputCheck], produced: list[np.ndarray], expected: list[np.ndarray],
                  rtol: float, atol: float) -> list[OutputCheck]:
    if len(expected) != len(produced):
        raise GoldenError(RunError(kind="golden_shape", message=(
            f"the golden returned {len(expected)} output(s) but the operator has {len(produced)}")))
    checks = []
    for out, got, want in zip(outputs, produced, expected, strict=True):
        if want.size != got.size:
            raise GoldenError(RunError(kind="golden_shape", message=(
                f"the golden's {out.name} has shape {list(want.shape)}, the operator produced {list(got.shape)}")))
        g = as_float(got, out.dtype).reshape(-1)
        w = np.asarray(want, dtype=np.float64).reshape(-1)
        diff = np.abs(g - w)
        finite = np.isfinite(diff)
        # A 16-bit output cannot come closer than its own rounding: one unit in the last place of the output dtype
        # is always accepted (bfloat16 keeps 8 bits, so rtol=1e-3 alone would fail every correctly rounded sum).
        bad = ~(diff <= np.maximum(atol + rtol * np.abs(w), ulp_of(w, out.dtype)))
        bad &= ~((np.isnan(g) & np.isnan(w)) | ((g == w) & ~finite))  # matching nan/inf count as equal
        rel = diff / np.maximum(np.abs(w), 1e-12)
        checks.append(OutputCheck(
            name=out.name, shape=out.shape, dtype=out.dtype,
            max_abs_err=float(np.max(diff[finite])) if finite.any() else None,
            max_rel_err=float(np.max(rel[finite])) if finite.any() else None,
            mismatches=int(bad.sum()), ok=not bool(bad.any())))
    return checks


def ulp_of(values: np.ndarray, dtype: str) -> np.ndarray:
    """The spacing of `dtype` at each value (0 for dtypes of 32 bits or more and for integers)."""
    v = np.abs(np.nan_to_num(np.asarray(values, dtype=np.float64), nan=0.0, posinf=0.0, neginf=0.0))
    if dtype == "float16":
        return np.spacing(v.astype(np.float16)).astype(np.float64)
    if dtype == "bfloat16":  # 8 significand bits: float32's spacing scaled by 2^16, at least the smallest subnormal
        return np.maximum(np.spacing(v.astype(np.float32)).astype(np.float64) * 65536.0, 2.0**-133)
    return np.zeros_like(v)


def _user_line(exc: BaseException, path: Path) -> int | None:
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if Path(frame.filename) == path:
            return frame.lineno
    return None
