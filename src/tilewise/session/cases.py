"""The case a `tilewise run` or `tilewise tune` command line describes: the manifest's case (by --case, else its
first) with --shape, --dtype, --attr and --input on top.

A DYNAMIC OpDef input is a tensor list, and the command line names its tensors the way a manifest case and the
device do: `--shape x[0]=512,3 --shape x[1]=15` makes the case inputs `x[0]` and `x[1]`. `--dtype x=float16` sets
every tensor of `x`, `--dtype x[1]=float32` one of them, and `--input x[0]=a.npy` one tensor's data (its shape is the
array's unless --shape says otherwise). A list has no gaps: `x[0]` and `x[2]` without `x[1]` is an error naming the
flag, because the kernel would see a two-tensor list and the user meant three. A 0-d tensor (a scalar input) is
`--shape value=[]` or `--shape value=scalar`, or an --input array of shape (); `value=1` is a 1-d tensor of one
element, another tensor to the kernel's tiling and to the golden. Errors are TilewiseErrors whose "file" is the
flag, so they print as one line naming the flag and the fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from pydantic import ValidationError

from tilewise.analysis.errors import TilewiseError
from tilewise.analysis.manifest import DTYPES, Case, InputSpec
from tilewise.analysis.model import TensorParam
from tilewise.analysis.operator import Operator

_REF_RE = re.compile(r"([A-Za-z_]\w*)(?:\[(\d+)\])?")


@dataclass(frozen=True, slots=True)
class TensorRef:
    """A tensor named on the command line: `x` (index None) or the tensor `x[2]` of a list. Hashable: flags are
    keyed by it."""

    base: str
    index: int | None

    @property
    def text(self) -> str:
        return self.base if self.index is None else f"{self.base}[{self.index}]"


def parse_assignments(items: list[str] | None, flag: str) -> dict[str, str]:
    """`NAME=VALUE` flags as a dict, the last one winning; anything else is an error naming the flag."""
    out = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise TilewiseError(flag, 0, f"'{item}' is not NAME=VALUE; write e.g. {flag} x=8,1024")
        out[name.strip()] = value.strip()
    return out


def parse_refs(items: list[str] | None, flag: str) -> dict[TensorRef, str]:
    """`x=V` and `x[i]=V` flags keyed by the tensor they name."""
    out: dict[TensorRef, str] = {}
    for name, value in parse_assignments(items, flag).items():
        m = _REF_RE.fullmatch(name)
        if not m:
            raise TilewiseError(
                flag,
                0,
                f"'{name}' is not an input name; write {flag} x=... or, for a tensor of a list input, {flag} x[0]=...",
            )
        out[TensorRef(m.group(1), int(m.group(2)) if m.group(2) is not None else None)] = value
    return out


def attr_value(text: str):
    """An --attr value as the operator sees it: bool, int, float, a [list] of those, else the string."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if text.startswith("[") and text.endswith("]"):
        return [attr_value(v.strip()) for v in text[1:-1].split(",") if v.strip()]
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def load_arrays(items: list[str] | None) -> dict[TensorRef, np.ndarray]:
    """The --input arrays, keyed by the tensor each one feeds."""
    arrays = {}
    for ref, path in parse_refs(items, "--input").items():
        try:
            arrays[ref] = np.load(path)
        except (OSError, ValueError) as exc:
            raise TilewiseError(path, 0, f"cannot load --input {ref.text}: {exc}; give a .npy file") from None
    return arrays


# A shape may be bracketed as a manifest (`[8, 1024]`) or numpy (`(8, 1024)`) writes it; empty brackets are a 0-d
# tensor's shape (a scalar input such as Addcdiv's `value`), and so is the word `scalar`, which no shell globs.
_BRACKETS = {"[": "]", "(": ")"}


def parse_shape(text: str, ref: TensorRef) -> list[int]:
    """A --shape value as dims: `D0,D1,...` (or `D0xD1`), optionally in brackets (`[8,1024]`, `(4,)`), and for a
    0-d tensor `[]`, `()` or `scalar` (no dims: one element). Anything else is a TilewiseError on --shape that
    shows the spellings; a dimension's sign is the InputSpec's to judge."""
    body = text.strip()
    if body.lower() == "scalar":
        return []
    bracketed = body[:1] in _BRACKETS and body.endswith(_BRACKETS[body[0]])
    if bracketed:
        body = body[1:-1].strip()
        if not body:  # `[]`, `( )`
            return []
    pieces = [p.strip() for p in re.split(r"[,x]", body)]
    if len(pieces) > 1 and pieces[-1] == "":  # a trailing separator, as in the tuple (4,)
        pieces.pop()
    if pieces and all(re.fullmatch(r"[+-]?\d+", p) for p in pieces):
        return [int(p) for p in pieces]
    raise TilewiseError(
        "--shape",
        0,
        f"'{ref.text}={text}' is not a shape; write --shape {ref.text}=D0,D1,... "
        f"(or {ref.text}=[] / {ref.text}=scalar for a 0-d tensor)",
    )


def build_case(op: Operator, args, arrays: dict[TensorRef, np.ndarray] | None = None) -> Case:
    """The case to run: the manifest's (by --case, else its first), with --shape/--dtype/--attr/--input on top.

    `args` needs `case`, `shape`, `dtype` and `attr` (lists of NAME=VALUE or None); `arrays` are the loaded --input
    arrays, which give a tensor its shape when no --shape does.
    """
    arrays = arrays or {}
    shapes = parse_refs(args.shape, "--shape")
    dtypes = parse_refs(args.dtype, "--dtype")
    attrs = {k: attr_value(v) for k, v in parse_assignments(args.attr, "--attr").items()}
    manifest = op.manifest
    base = None
    if manifest and manifest.cases:
        base = manifest.case(args.case) if args.case else manifest.cases[0]
    elif args.case:
        raise TilewiseError(str(op.project.root), 0, f"--case {args.case}: the operator has no tilewise.toml cases")
    given = (("--shape", shapes), ("--dtype", dtypes), ("--input", arrays))
    params = op.model.inputs
    if params:
        _check_refs(params, given)
        inputs = _opdef_inputs(op, params, base, shapes, dtypes, arrays)
    else:
        inputs = _plain_inputs(op, base, shapes, dtypes, arrays)
    if base is None:
        return Case(name="cli", inputs=inputs, attrs=attrs)
    # The base case's output dtypes and output initialisation stand: no flag sets them.
    return Case(
        name=base.name,
        inputs=inputs,
        attrs={**base.attrs, **attrs},
        outputs=base.outputs,
        outputs_init=base.outputs_init,
    )


def _check_refs(params: list[TensorParam], given) -> None:
    """Every flag names an OpDef input, indexed exactly when that input is a tensor list."""
    kinds = {t.name: t.param_type for t in params}
    names = ", ".join(f"{t.name}[i]" if t.param_type == "DYNAMIC" else t.name for t in params)
    for flag, refs in given:
        for ref in refs:
            if ref.base not in kinds:
                raise TilewiseError(flag, 0, f"unknown input '{ref.text}'; the inputs are {names}")
            if ref.index is not None and kinds[ref.base] != "DYNAMIC":
                raise TilewiseError(
                    flag,
                    0,
                    f"'{ref.text}': input '{ref.base}' is one tensor, not a list "
                    f"(DYNAMIC); write {flag} {ref.base}=...",
                )
            if ref.index is None and kinds[ref.base] == "DYNAMIC" and flag != "--dtype":
                raise TilewiseError(
                    flag,
                    0,
                    f"'{ref.base}' is a tensor list (DYNAMIC): give each tensor, "
                    f"{flag} {ref.base}[0]=... {flag} {ref.base}[1]=...",
                )


def _opdef_inputs(
    op: Operator, params: list[TensorParam], base: Case | None, shapes, dtypes, arrays
) -> dict[str, InputSpec]:
    inputs: dict[str, InputSpec] = {}
    for t in params:
        if t.param_type == "DYNAMIC":
            manifest_path = op.manifest.path if op.manifest and op.manifest.path else "tilewise.toml"
            for index in _list_indexes(t.name, base, shapes, dtypes, arrays, manifest_path):
                ref = TensorRef(t.name, index)
                spec = _tensor(
                    t,
                    ref,
                    base.inputs.get(ref.text) if base else None,
                    shapes,
                    dtypes,
                    arrays,
                    dtypes.get(TensorRef(t.name, None)),
                )
                inputs[ref.text] = spec
            continue
        ref = TensorRef(t.name, None)
        prev = base.inputs.get(t.name) if base else None
        if ref not in shapes and ref not in arrays and prev is None:
            if t.param_type == "OPTIONAL":
                continue  # left out: the kernel sees nullptr, the golden None
            listed = ", ".join(p.name for p in params)
            raise TilewiseError(
                "--shape", 0, f"no shape for input '{t.name}': pass --shape {t.name}=D0,D1,... (inputs: {listed})"
            )
        inputs[t.name] = _tensor(t, ref, prev, shapes, dtypes, arrays, None)
    return inputs


def _list_indexes(name: str, base: Case | None, shapes, dtypes, arrays, manifest_path: str) -> list[int]:
    """The tensors of the list input `name`: those --shape names (else the manifest case's), plus those only
    --input names. Indexes run 0..n-1; a gap is an error naming the flag (or the manifest) that skipped one."""
    from_flags = {ref.index: "--shape" for ref in shapes if ref.base == name}
    if from_flags:
        origin = dict(from_flags)
    else:
        pattern = re.compile(rf"{re.escape(name)}\[(\d+)\]")
        origin = {
            int(m.group(1)): manifest_path for key in (base.inputs if base else {}) if (m := pattern.fullmatch(key))
        }
    for ref in arrays:
        if ref.base == name:
            origin.setdefault(ref.index, "--input")
    if not origin:
        raise TilewiseError(
            "--shape",
            0,
            f"no shape for input '{name}', a tensor list (DYNAMIC): pass "
            f"--shape {name}[0]=D0,D1,... --shape {name}[1]=... (one per tensor)",
        )
    indexes = sorted(origin)
    for expected, index in enumerate(indexes):
        if index != expected:
            raise TilewiseError(
                origin[index],
                0,
                (
                    f"'{name}[{index}]' but no '{name}[{expected}]': a tensor list has no gaps; "
                    f"give {name}[0] to {name}[{indexes[-1]}], or renumber from {name}[0]"
                ),
            )
    for ref in dtypes:
        if ref.base == name and ref.index is not None and ref.index not in origin:
            raise TilewiseError(
                "--dtype",
                0,
                f"'{ref.text}': the list '{name}' has tensors {name}[0] to "
                f"{name}[{indexes[-1]}]; give --shape {ref.text}=... first",
            )
    return indexes


def _tensor(
    t: TensorParam, ref: TensorRef, prev: InputSpec | None, shapes, dtypes, arrays, list_dtype: str | None
) -> InputSpec:
    """One tensor's spec: --shape, else the --input array's shape, else the manifest's; the dtype from --dtype (the
    tensor's, then the whole list's), else the manifest's, else the --input array's when the OpDef allows it, else
    the OpDef's first."""
    array = arrays.get(ref)
    if ref in shapes:
        shape = parse_shape(shapes[ref], ref)
    elif array is not None:
        shape = list(array.shape)  # a 0-d array (shape ()) is a 0-d input
    elif prev is not None:
        shape = prev.shape
    else:  # the callers pass only tensors some flag, array or manifest case gives a shape
        raise TilewiseError("--shape", 0, f"no shape for input '{ref.text}': pass --shape {ref.text}=D0,D1,...")
    from_array = str(array.dtype) if array is not None and str(array.dtype) in t.dtypes else None
    dtype = (
        dtypes.get(ref)
        or list_dtype
        or (prev.dtype if prev else None)
        or from_array
        or (t.dtypes[0] if t.dtypes and t.dtypes[0] in DTYPES else "float16")
    )
    return _spec(ref, shape, dtype, prev)


def _spec(ref: TensorRef, shape: list[int], dtype: str, prev: InputSpec | None) -> InputSpec:
    """The validated spec, the manifest's init hints kept; a bad shape or dtype is an error naming its flag."""
    try:
        return InputSpec(
            shape=shape,
            dtype=dtype,
            init=prev.init if prev else "normal",
            low=prev.low if prev else None,
            high=prev.high if prev else None,
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        flag = "--dtype" if first["loc"] and first["loc"][0] == "dtype" else "--shape"
        raise TilewiseError(flag, 0, f"'{ref.text}': {first['msg'].removeprefix('Value error, ')}") from None


def _plain_inputs(op: Operator, base: Case | None, shapes, dtypes, arrays) -> dict[str, InputSpec]:
    """Inputs of an operator without an OpDef (a kernel-invocation program): names taken as written."""
    by_text = {ref.text: value for ref, value in shapes.items()}
    dtype_by_text = {ref.text: value for ref, value in dtypes.items()}
    array_by_text = {ref.text: value for ref, value in arrays.items()}
    names = list(base.inputs) if base else list(dict.fromkeys([*by_text, *array_by_text]))
    unknown = sorted((set(by_text) | set(dtype_by_text) | set(array_by_text)) - set(names))
    if unknown:
        raise TilewiseError("--shape/--dtype/--input", 0, f"unknown input(s) {unknown}; the inputs are {names}")
    inputs = {}
    for name in names:
        prev = base.inputs.get(name) if base else None
        array = array_by_text.get(name)
        if name in by_text:
            shape = parse_shape(by_text[name], TensorRef(name, None))
        elif array is not None:
            shape = list(array.shape)
        elif prev is not None:
            shape = prev.shape
        else:  # a name comes from a --shape, an --input or the base case
            raise TilewiseError("--shape", 0, f"no shape for input '{name}': pass --shape {name}=D0,D1,...")
        dtype = (
            dtype_by_text.get(name)
            or (prev.dtype if prev else None)
            or (str(array.dtype) if array is not None and str(array.dtype) in DTYPES else "float16")
        )
        inputs[name] = _spec(TensorRef(name, None), shape, dtype, prev)
    return inputs


def input_arrays(arrays: dict[TensorRef, np.ndarray]) -> dict[str, np.ndarray]:
    """The --input arrays keyed by case input name (`x`, `x[0]`), as the device takes them."""
    return {ref.text: a for ref, a in arrays.items()}
