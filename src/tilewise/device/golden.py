"""Load a numpy golden (`golden.py:function`), run it, and compare an operator's outputs with its answer.

The golden's calling convention follows the OpDef, so a golden reads like the operator's signature: one positional
argument per OpDef input in OpDef order (a DYNAMIC input is a Python list of arrays, an OPTIONAL input the case
leaves out is None), the attributes as keyword arguments, and it returns one entry per OpDef output (a bare array
when there is one), a DYNAMIC output's entry being a list of arrays. The device sees the answer flattened in OpDef
order, `y[0]`, `y[1]`, ... for a DYNAMIC `y`, with how many arrays belong to each output.
"""

from __future__ import annotations

import importlib.util
import sys
import traceback
from pathlib import Path

import numpy as np

from tilewise.analysis.model import TensorParam
from tilewise.device.dtypes import as_float
from tilewise.device.protocol import OutputCheck, RunError


class GoldenError(Exception):
    def __init__(self, error: RunError):
        super().__init__(error.message)
        self.error = error


def golden_location(spec: str, base: Path) -> tuple[Path, str]:
    """The golden's file and function name for `FILE.py:FUNCTION` (FILE relative to `base`); GoldenError when the
    file does not exist."""
    file, _, name = spec.rpartition(":")
    path = (base / file).resolve() if not Path(file).is_absolute() else Path(file)
    if not path.exists():
        raise GoldenError(
            RunError(
                kind="golden_error",
                file=str(path),
                message=(f"golden file {path} does not exist; give it as FILE.py:FUNCTION relative to the operator"),
            )
        )
    return path, name


def load_golden(spec: str, base: Path):
    path, name = golden_location(spec, base)
    module_name = f"tilewise_golden_{abs(hash(str(path)))}"
    try:
        loader_spec = importlib.util.spec_from_file_location(module_name, path)
        if loader_spec is None or loader_spec.loader is None:
            raise ImportError(f"cannot load {path} as a Python module")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[module_name] = module
        loader_spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - user code: report it, never crash the caller
        raise GoldenError(
            RunError(
                kind="golden_error",
                message=f"importing the golden failed: {exc!r}",
                file=str(path),
                line=_user_line(exc, path),
            )
        ) from None
    fn = getattr(module, name, None)
    if not callable(fn):
        raise GoldenError(
            RunError(kind="golden_error", message=f"{path.name} has no function '{name}'", file=str(path))
        )
    return fn, path


class GoldenOutputs(list):
    """The golden's arrays flattened in OpDef output order; `counts[i]` of them belong to OpDef output i (a DYNAMIC
    output has as many as the golden made, every other output one). Empty `counts` when no OpDef names outputs."""

    def __init__(self, arrays: list[np.ndarray], counts: list[int] | None = None):
        super().__init__(arrays)
        self.counts: list[int] = counts or []


def _list_index(name: str, base: str) -> int | None:
    """The index of `name` in the tensor list `base` (`x[2]` -> 2), None for another name."""
    if name.startswith(base + "[") and name.endswith("]") and name[len(base) + 1 : -1].isdigit():
        return int(name[len(base) + 1 : -1])
    return None


def golden_arguments(params: list[TensorParam], arrays: dict[str, np.ndarray]) -> list:
    """The golden's positional arguments: one per OpDef input, a DYNAMIC input's tensors (`x[0]`, `x[1]`, ... in
    `arrays`) as a list in index order, an absent OPTIONAL input as None. Without OpDef inputs (a kernel-invocation
    program), the arrays in their given order."""
    known = {t.name for t in params}
    lists = [t.name for t in params if t.param_type == "DYNAMIC"]
    if not params or any(n not in known and all(_list_index(n, d) is None for d in lists) for n in arrays):
        return list(arrays.values())  # names the OpDef does not know: keep the case's order, as given
    args: list = []
    for t in params:
        if t.param_type == "DYNAMIC":
            items = sorted(
                ((i, a) for n, a in arrays.items() if (i := _list_index(n, t.name)) is not None),
                key=lambda item: item[0],
            )
            args.append([a for _, a in items] if items else ([arrays[t.name]] if t.name in arrays else []))
        else:
            args.append(arrays.get(t.name))
    return args


def group_outputs(result, outputs: list[TensorParam]) -> GoldenOutputs:
    """Check the golden's answer against the OpDef outputs and flatten it: one entry per output, a list of arrays
    for a DYNAMIC one. A lone DYNAMIC output may be answered with just its list."""
    if not outputs:  # no OpDef: whatever arrays the golden returned, in order
        return GoldenOutputs([np.asarray(o) for o in (result if isinstance(result, tuple | list) else [result])])
    if len(outputs) == 1:
        entries = [result]
        if isinstance(result, tuple | list) and (
            outputs[0].param_type != "DYNAMIC" or (len(result) == 1 and isinstance(result[0], tuple | list))
        ):
            entries = list(result)
    else:
        entries = list(result) if isinstance(result, tuple | list) else [result]
    if len(entries) != len(outputs):
        raise GoldenError(
            RunError(
                kind="golden_shape",
                message=(
                    f"the golden returned {len(entries)} output(s) but the OpDef has {len(outputs)} "
                    f"({_signature(outputs)}); return a tuple with one entry per output"
                ),
            )
        )
    arrays: list[np.ndarray] = []
    counts: list[int] = []
    for t, entry in zip(outputs, entries, strict=True):
        if t.param_type == "DYNAMIC":
            if not isinstance(entry, tuple | list):
                raise GoldenError(
                    RunError(
                        kind="golden_shape",
                        message=(
                            f"the golden's entry for the DYNAMIC output {t.name} is not a list; return a list of "
                            "arrays, "
                            f"one per tensor of {t.name}"
                        ),
                    )
                )
            arrays += [np.asarray(a) for a in entry]
            counts.append(len(entry))
        else:
            if isinstance(entry, tuple | list):
                raise GoldenError(
                    RunError(
                        kind="golden_shape",
                        message=(
                            f"the golden's entry for the output {t.name} is a list, but {t.name} is not DYNAMIC; "
                            "return one array for it"
                        ),
                    )
                )
            arrays.append(np.asarray(entry))
            counts.append(1)
    return GoldenOutputs(arrays, counts)


def _signature(outputs: list[TensorParam]) -> str:
    return ", ".join(f"{t.name}: a list" if t.param_type == "DYNAMIC" else t.name for t in outputs)


def run_golden(
    spec: str, base: Path, inputs: list, attrs: dict, outputs: list[TensorParam] | None = None
) -> GoldenOutputs:
    """Call the golden with `inputs` as positional arguments (a list stays a list: a DYNAMIC input) and return its
    answer flattened, checked against the OpDef `outputs` when they are known."""
    fn, path = load_golden(spec, base)
    args = [
        [np.array(a, copy=True) for a in x] if isinstance(x, list) else (None if x is None else np.array(x, copy=True))
        for x in inputs
    ]
    try:
        result = fn(*args, **attrs)
    except Exception as exc:  # noqa: BLE001 - user code
        raise GoldenError(
            RunError(
                kind="golden_error", message=f"the golden raised {exc!r}", file=str(path), line=_user_line(exc, path)
            )
        ) from None
    try:
        return group_outputs(result, outputs or [])
    except GoldenError as exc:
        exc.error.file = str(path)
        raise


def check_outputs(
    outputs: list[OutputCheck],
    produced: list[np.ndarray],
    expected: list[np.ndarray],
    rtol: float,
    atol: float,
    per_output: dict[str, tuple[float, float]] | None = None,
) -> list[OutputCheck]:
    """Compare each produced output with the golden's answer; `per_output` maps an output name (a list output's
    base name covers all its tensors) to its own (rtol, atol)."""
    if len(expected) != len(produced):
        raise GoldenError(
            RunError(
                kind="golden_shape",
                message=(f"the golden returned {len(expected)} output(s) but the operator has {len(produced)}"),
            )
        )
    checks = []
    for out, got, want in zip(outputs, produced, expected, strict=True):
        if want.size != got.size:
            raise GoldenError(
                RunError(
                    kind="golden_shape",
                    message=(
                        f"the golden's {out.name} has shape {list(want.shape)}, the operator produced {list(got.shape)}"
                    ),
                )
            )
        g = as_float(got, out.dtype).reshape(-1)
        # The answer is judged as stored in the output dtype: a float16 golden rounds itself with astype, but numpy
        # has no bfloat16, so a bfloat16 golden hands back float32 and is rounded here, to the same footing.
        w = round_to(np.asarray(want, dtype=np.float64).reshape(-1), out.dtype)
        out_rtol, out_atol = (per_output or {}).get(out.name.split("[")[0], (rtol, atol))
        diff = np.abs(g - w)
        finite = np.isfinite(diff)
        # A 16-bit output cannot come closer than its own rounding: one unit in the last place of the output dtype
        # is always accepted (bfloat16 keeps 8 bits, so rtol=1e-3 alone would fail every correctly rounded sum).
        bad = ~(diff <= np.maximum(out_atol + out_rtol * np.abs(w), ulp_of(w, out.dtype)))
        bad &= ~((np.isnan(g) & np.isnan(w)) | ((g == w) & ~finite))  # matching nan/inf count as equal
        rel = diff / np.maximum(np.abs(w), 1e-12)
        checks.append(
            OutputCheck(
                name=out.name,
                shape=out.shape,
                dtype=out.dtype,
                max_abs_err=float(np.max(diff[finite])) if finite.any() else None,
                max_rel_err=float(np.max(rel[finite])) if finite.any() else None,
                mismatches=int(bad.sum()),
                ok=not bool(bad.any()),
            )
        )
    return checks


def ulp_of(values: np.ndarray, dtype: str) -> np.ndarray:
    """The spacing of `dtype` at each value (0 for dtypes of 32 bits or more and for integers)."""
    v = np.abs(np.nan_to_num(np.asarray(values, dtype=np.float64), nan=0.0, posinf=0.0, neginf=0.0))
    if dtype == "float16":
        return np.spacing(v.astype(np.float16)).astype(np.float64)
    if dtype == "bfloat16":  # 8 significand bits: float32's spacing scaled by 2^16, at least the smallest subnormal
        return np.maximum(np.spacing(v.astype(np.float32)).astype(np.float64) * 65536.0, 2.0**-133)
    return np.zeros_like(v)


def round_to(values: np.ndarray, dtype: str) -> np.ndarray:
    """`values` rounded to nearest-even in a 16-bit float `dtype` (as float64); other dtypes are left alone."""
    v = np.asarray(values, dtype=np.float64)
    if dtype == "float16":  # numpy rounds float64 to float16 in one step
        with np.errstate(over="ignore"):
            return v.astype(np.float16).astype(np.float64)
    if dtype != "bfloat16":
        return v
    # One rounding straight from float64 (not via float32, which could round twice): scale each value so its
    # quantum (8 significant bits, or 2^-133 below the normal range) is 1, round half to even, scale back.
    finite = np.isfinite(v) & (v != 0)
    _, e = np.frexp(np.where(finite, v, 1.0))
    q = np.maximum(e - 8, -133)
    r = np.ldexp(np.round(np.ldexp(v, -q)), q)
    r = np.where(np.abs(r) > _BF16_MAX, np.copysign(np.inf, v), r)
    return np.where(finite, r, v)


_BF16_MAX = (2.0 - 2.0**-7) * 2.0**127


def _user_line(exc: BaseException, path: Path) -> int | None:
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if Path(frame.filename) == path:
            return frame.lineno
    return None
