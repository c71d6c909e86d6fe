"""`tilewise.toml`: what the sources do not say (shape cases, the golden, knob domains), validated with pydantic.

Every error names the file, the line and the field. tomllib gives no positions for values, so `_line_of` walks the
text to find the line where a validation error's key path is written.
"""

from __future__ import annotations

import math
import re
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from tilewise.analysis.dtypes import RUNNABLE
from tilewise.analysis.errors import ManifestError

DTYPES = RUNNABLE  # the dtypes a case may give a tensor: those the emulator runs (analysis/dtypes.py)
_DTYPE_ALIASES = {"half": "float16", "fp16": "float16", "float": "float32", "fp32": "float32", "bf16": "bfloat16"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class InputSpec(_Strict):
    """One input tensor of a case. `shape` is required: `[]` is a 0-d tensor (a scalar input such as Addcdiv's
    `value`: one element, which the golden gets as an array of shape () and the tiling as a shape of dim count 0),
    not a missing shape."""

    shape: list[int] = Field(min_length=0, max_length=8)
    dtype: str
    init: Literal["normal", "uniform", "positive", "zeros", "ones", "randint"] = "normal"
    low: float | None = None
    high: float | None = None

    @field_validator("shape")
    @classmethod
    def _positive(cls, v: list[int]) -> list[int]:
        if any(d <= 0 for d in v):
            raise ValueError("every dimension must be a positive integer")
        return v

    @field_validator("dtype")
    @classmethod
    def _known_dtype(cls, v: str) -> str:
        v = _DTYPE_ALIASES.get(v, v)
        if v not in DTYPES:
            raise ValueError(f"unknown dtype '{v}'; use one of {', '.join(DTYPES)}")
        return v


class OutputSpec(_Strict):
    """What a case says about one output: its dtype where the sources cannot say it (an ATB kernel has no OpDef:
    outputs take input 0's), and its own golden tolerance where the operator's design computes it at a lower
    precision than the golden (a float32 sum of float16-rounded products: each term carries float16's error)."""

    dtype: str | None = None
    rtol: float | None = Field(None, ge=0)
    atol: float | None = Field(None, ge=0)

    @field_validator("dtype")
    @classmethod
    def _known_dtype(cls, v: str | None) -> str | None:
        return None if v is None else InputSpec._known_dtype(v)


class FileSpec(_Strict):
    """A data file a kernel-invocation program reads besides its input_<name>.bin files, with fixed values: the
    tiling.bin its data script writes (blockDim, totalLength, tileNum), which random inputs cannot stand for. The
    runner writes `values` as `dtype` (little-endian, packed) to `path`, relative to the program's working
    directory, before the run; entries naming the same path follow each other in the file (a struct of mixed
    fields)."""

    path: str = Field(min_length=1)
    dtype: str
    values: list[int | float] = Field(min_length=1)

    @field_validator("path")
    @classmethod
    def _inside(cls, v: str) -> str:
        parts = Path(v).parts
        if Path(v).is_absolute() or ".." in parts or v.startswith("~"):
            raise ValueError(f"'{v}' must be relative to the program's working directory, without '..'")
        return v

    @field_validator("dtype")
    @classmethod
    def _known_dtype(cls, v: str) -> str:
        return InputSpec._known_dtype(v)

    @field_validator("values")
    @classmethod
    def _values_fit(cls, v: list[int | float], info: ValidationInfo) -> list[int | float]:
        dtype = info.data.get("dtype") or ""  # validated before values (declared first); absent when it was bad
        ints, top = _INT_RANGES.get(dtype), _FLOAT_MAX.get(dtype)
        for i, x in enumerate(v):
            if ints is not None and (not float(x).is_integer() or not ints[0] <= x <= ints[1]):
                raise ValueError(f"values[{i}] = {x} is not a {dtype} (integers in [{ints[0]}, {ints[1]}])")
            if top is not None and not -top <= x <= top:
                raise ValueError(f"values[{i}] = {x} is out of {dtype}'s range (±{top:g})")
        return v


_INT_RANGES = {
    "bool": (0, 1),
    **{
        f"{s}int{b}": (0 if s else -(1 << (b - 1)), (1 << b) - 1 if s else (1 << (b - 1)) - 1)
        for b in (8, 16, 32, 64)
        for s in ("", "u")
    },
}
_FLOAT_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38, "float32": 3.4028234663852886e38}


class Case(_Strict):
    name: str
    inputs: dict[str, InputSpec]
    outputs: dict[str, OutputSpec] = {}
    # kernel invocation only: data files the program reads besides its inputs, with fixed values (FileSpec)
    files: list[FileSpec] = []

    @property
    def input_elements(self) -> int:
        """Elements over all its inputs: how the tools pick a manifest's largest case."""
        return sum(math.prod(spec.shape) for spec in self.inputs.values())

    @field_validator("files")
    @classmethod
    def _not_an_input(cls, v: list[FileSpec], info: ValidationInfo) -> list[FileSpec]:
        # an input's file holds what the golden gets: fixed bytes there would leave the golden another input
        for f in v:
            if Path(f.path).name in {f"input_{n}.bin" for n in info.data.get("inputs", {})}:
                raise ValueError(
                    f"'{f.path}' is an input's file; give that input's values as an input "
                    "(`tilewise run --input`), not as a file"
                )
        return v

    attrs: dict[str, float | int | bool | str | list[int] | list[float]] = {}
    # What the outputs hold before the kernel runs. A device does not clear them, so by default the emulator fills
    # them with a poison pattern (all bits set: nan for floats, -1 for integers); "zeros" is for an operator whose
    # contract is to accumulate into memory its caller zeroed.
    outputs_init: Literal["poison", "zeros"] = "poison"


class Golden(_Strict):
    function: str = Field(pattern=r"^[^:]+\.py:[A-Za-z_]\w*$")
    rtol: float = Field(1e-3, ge=0)
    atol: float = Field(1e-3, ge=0)


class KnobOverride(_Strict):
    domain: list[int] | None = Field(None, min_length=1)
    value: int | None = None


class OperatorInfo(_Strict):
    name: str | None = None
    twin: str | None = None
    motif: str | None = None


class BuildInfo(_Strict):
    # extra include folders for the emulator's build, relative to the manifest (a repository's common/inc, ...)
    include_dirs: list[str] = []


class Manifest(_Strict):
    operator: OperatorInfo = OperatorInfo()
    build: BuildInfo = BuildInfo()
    golden: Golden | None = None
    cases: list[Case] = []
    knobs: dict[str, KnobOverride] = {}
    path: str = Field("", exclude=True)

    def case(self, name: str) -> Case:
        for c in self.cases:
            if c.name == name:
                return c
        raise ManifestError(self.path, 0, f"no case named '{name}'; cases are: {', '.join(c.name for c in self.cases)}")


def load_manifest(path: str | Path) -> Manifest:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ManifestError(str(p), 0, "is not UTF-8 text; re-save it as UTF-8") from None
    except OSError as exc:
        raise ManifestError(str(p), 0, f"cannot be read ({exc.strerror})") from None
    return parse_manifest(text, str(p))


def parse_manifest(text: str, path: str) -> Manifest:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line = int(m.group(1)) if m else 0
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise ManifestError(path, line, f"TOML syntax error: {msg}; fix the syntax at that line") from None
    try:
        manifest = Manifest.model_validate(data)
    except ValidationError as exc:
        # a misspelt key also makes its correct spelling "missing": name the misspelling, the user's actual text
        err = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")[0]
        loc = [p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
        where = _dotted(loc)
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown field; remove it or check its spelling (see examples/README.md for the schema)"
        elif err["type"] == "missing":
            msg = "required field is missing; add it"
            if loc[-1:] == ["shape"]:  # a scalar input still has a shape: the empty one
                msg += " (shape = [] for a 0-d tensor)"
        raise ManifestError(path, _line_of(text, loc), f"'{where}': {msg}") from None
    manifest.path = path
    for i, d in enumerate(manifest.build.include_dirs):
        if not (Path(path).parent / d).is_dir():
            raise ManifestError(
                path,
                _line_of(text, ["build", "include_dirs"]),
                (f"'build.include_dirs[{i}]': {d!r} is not a folder (paths are relative to the manifest)"),
            )
    return manifest


def include_dirs(manifest: Manifest) -> list[Path]:
    """The manifest's [build] include_dirs as absolute folders."""
    base = Path(manifest.path).resolve().parent
    return [(base / d).resolve() for d in manifest.build.include_dirs]


def _dotted(loc: list) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


_HEADER_RE = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY_RE = re.compile(r'^\s*("?)([A-Za-z0-9_\-.]+)\1\s*=')


def _line_of(text: str, loc: list) -> int:
    """The 1-based line where the TOML key path `loc` (as pydantic reports it, with list indexes) is written.

    Each header and key line gets its full path, array-of-tables indexes included (`[cases.inputs.x]` under the
    second `[[cases]]` is cases/1/inputs/x); the line sharing the longest prefix with `loc` wins.
    """
    target = [str(p) for p in loc]
    counts: dict[str, int] = {}
    table: list[str] = []
    best_line, best_depth = 0, 0
    for lineno, line in enumerate(text.splitlines(), 1):
        h = _HEADER_RE.match(line)
        if h:
            names = [k.strip().strip('"') for k in h.group(2).split(".")]
            if h.group(1) == "[[":
                key = ".".join(names)
                counts[key] = counts.get(key, -1) + 1
                for nested in [k for k in counts if k.startswith(key + ".")]:  # `[[cases.files]]` counts per case
                    del counts[nested]
            table = []
            for i, name in enumerate(names):
                table.append(name)
                key = ".".join(names[: i + 1])
                if key in counts:
                    table.append(str(counts[key]))
            path = table
        else:
            k = _KEY_RE.match(line)
            if not k:
                continue
            path = table + k.group(2).split(".")
            depth = _prefix_depth(path, target)
            if depth == len(path):  # inline tables: `attrs = { scale = 0.5 }`
                for inline_key in re.findall(r"([A-Za-z_]\w*)\s*=", line[k.end() :]):
                    if depth < len(target) and target[depth] == inline_key:
                        depth += 1
            if depth > best_depth:
                best_line, best_depth = lineno, depth
            continue
        depth = _prefix_depth(path, target)
        if depth == len(path) and depth > best_depth:
            best_line, best_depth = lineno, depth
    return best_line


def _prefix_depth(path: list[str], keys: list[str]) -> int:
    depth = 0
    for a, b in zip(path, keys, strict=False):
        if a != b:
            break
        depth += 1
    return depth
