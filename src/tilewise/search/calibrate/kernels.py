"""The micro-kernels `tilewise calibrate` times: two small AscendC operators written for this purpose, and the
fixed set of cases that run them.

Each micro-kernel is one case of one of two operators, so that a calibration builds each operator once per dtype
and varies sizes, block counts, queue depths and instruction classes through attributes read by the host tiling:

- `cal_copy` moves fp16 data GM -> UB -> GM. `mode` 0 is a round trip through one queue of `depth` buffers
  (depth 2 lets the next copy in overlap the copy out: the queue-depth pair); mode 1 reads `tiles` tiles into one
  buffer, each waited for (a read chain: each copy's issue or bytes, then its MTE2 completion latency), and writes
  the last back; mode 2 reads one tile and writes it `tiles` times, each waited for (the write chain). Small tiles
  are bound by the issue cost, large ones by the core's rate; all cores at once by HBM. A round trip of one small
  tile on growing block counts is the launch series.
- `cal_vector` runs `reps` instructions of one class (`opcode`), each on `count` elements and each behind a
  PipeBarrier<PIPE_V>, so every instruction pays its startup and its repeats in turn. Two repeat counts per class
  and dtype pin the (startup, per-repeat) pair. The copies in and out always move the same `span` elements, so
  they cost the same in every vector micro-kernel of a dtype, and `reps` = 0 times them alone (the fit's offset,
  fit.py). The operands sit in one buffer at offsets chosen so that no repeat meets a UB bank conflict: the two
  sources half a 512-byte bank row apart, the destination bank for bank on the first source.

Why micro-kernels and not real operators: each one depends on a few constants only, in a known way, so the fit can
tell the constants apart (fit.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tilewise.analysis.chip import TIMING_CONSTANTS, Chip
from tilewise.analysis.manifest import Case, InputSpec, OutputSpec

COPY_OP = "cal_copy"
VECTOR_OP = "cal_vector"
KIB = 1024

# The vector instruction classes a micro-kernel can time: the call in the kernel, and the golden's numpy expression
# of `a` and `b` (float32 copies of the two inputs). A reduction writes one value, which the golden puts first.
VECTOR_CLASSES: dict[str, tuple[str, str]] = {
    "Add": ("Add(dst, src0, src1, count)", "a + b"),
    "Sub": ("Sub(dst, src0, src1, count)", "a - b"),
    "Mul": ("Mul(dst, src0, src1, count)", "a * b"),
    "Div": ("Div(dst, src0, src1, count)", "a / b"),
    "Max": ("Max(dst, src0, src1, count)", "np.maximum(a, b)"),
    "Min": ("Min(dst, src0, src1, count)", "np.minimum(a, b)"),
    "Adds": ("Adds(dst, src0, static_cast<T>(1.5f), count)", "a + 1.5"),
    "Muls": ("Muls(dst, src0, static_cast<T>(1.5f), count)", "a * 1.5"),
    "Maxs": ("Maxs(dst, src0, static_cast<T>(1.0f), count)", "np.maximum(a, 1.0)"),
    "Mins": ("Mins(dst, src0, static_cast<T>(1.0f), count)", "np.minimum(a, 1.0)"),
    "Exp": ("Exp(dst, src0, count)", "np.exp(a)"),
    "Ln": ("Ln(dst, src0, count)", "np.log(a)"),
    "Sqrt": ("Sqrt(dst, src0, count)", "np.sqrt(a)"),
    "Rsqrt": ("Rsqrt(dst, src0, count)", "1.0 / np.sqrt(a)"),
    "Reciprocal": ("Reciprocal(dst, src0, count)", "1.0 / a"),
    "Abs": ("Abs(dst, src0, count)", "np.abs(a)"),
    "Relu": ("Relu(dst, src0, count)", "np.maximum(a, 0.0)"),
    "ReduceSum": ("ReduceSum(dst, src0, work, count)", "a.sum()"),
    "ReduceMax": ("ReduceMax(dst, src0, work, count)", "a.max()"),
    "ReduceMin": ("ReduceMin(dst, src0, work, count)", "a.min()"),
}
# The classes a calibration times by default: each family of the chip file's vector table (simple binary, scalar
# operand, transcendental, division, reduction), as many as keep a run against the emulator within a few minutes.
DEFAULT_CLASSES = ("Add", "Mul", "Div", "Max", "Adds", "Muls", "Exp", "Ln", "Sqrt", "Reciprocal", "ReduceSum")
QUICK_CLASSES = ("Add", "Exp")
DTYPE_COLUMNS = {"float16": "fp16", "float32": "fp32"}
VECTOR_REPS = 32  # dependent instructions per vector micro-kernel
VECTOR_REPEATS = (4, 48)  # repeats per instruction: the two points of each (startup, per-repeat) line


@dataclass(frozen=True)
class MicroKernel:
    """One timed case: which operator runs it, the case itself, and the constants its time depends on (the keys of
    constants.py), which is how the fit knows which runs to repeat when it moves a constant."""

    name: str
    family: str  # "copy", "launch" or "vector"
    operator: str  # COPY_OP or VECTOR_OP
    case: Case
    blocks: int
    touches: frozenset[str] = field(default_factory=frozenset)
    dtype: str = "float16"


def row_keys(cls: str, dtype: str) -> tuple[str, str]:
    """The constants of one vector table row: its startup and its cycles per repeat."""
    col = DTYPE_COLUMNS[dtype]
    return f"vector.{cls}.{col}.startup", f"vector.{cls}.{col}.per_repeat"


def offset_key(dtype: str) -> str:
    """The fit's own unknown for a dtype's vector micro-kernels: what their shared copies and launch take beyond the
    model's figure. Not a chip constant (fit.py)."""
    return f"offset.vector.{DTYPE_COLUMNS[dtype]}"


# The constants the `cal_copy` micro-kernels (the copy and launch series) pin, as the table of timing constants marks
# them (analysis.chip), in its order.
COPY_KEYS = tuple(c.name for c in TIMING_CONSTANTS if c.fit in ("copy", "launch"))


def micro_kernels(
    chip: Chip, classes: tuple[str, ...] = DEFAULT_CLASSES, dtypes: tuple[str, ...] = ("float16", "float32")
) -> list[MicroKernel]:
    """The micro-kernels for `chip`: the copy and launch series sized to its UB and core count, then, per dtype, the
    copies-only vector kernel and two repeat counts of each vector class."""
    unknown = [c for c in classes if c not in VECTOR_CLASSES]
    if unknown:
        raise ValueError(f"unknown vector class {', '.join(unknown)}; use some of {', '.join(VECTOR_CLASSES)}")
    cores = chip.vector_cores
    big = min(64 * KIB, chip.ub_bytes // 4 // 512 * 512)
    copy_touch = frozenset(COPY_KEYS)
    kernels: list[MicroKernel] = []

    def copy(name: str, family: str, tile_bytes: int, tiles: int, depth: int, mode: int, blocks: int) -> None:
        tile = tile_bytes // 2
        elements = blocks * (tile if mode == 2 else tile * tiles)
        attrs: dict = {"blocks": blocks, "tile": tile, "tiles": tiles, "depth": depth, "mode": mode}
        case = Case(name=_case_name(name), inputs={"x": InputSpec(shape=[elements], dtype="float16")}, attrs=attrs)
        kernels.append(MicroKernel(name, family, COPY_OP, case, blocks, copy_touch))

    for size, tiles in ((512, 16), (8 * KIB, 8), (big, 4)):
        copy(f"copy {_bytes(size)} x{tiles}, 1 buffer", "copy", size, tiles, 1, 0, 1)
    for size, tiles in ((8 * KIB, 8), (big, 4)):
        copy(f"copy {_bytes(size)} x{tiles}, 2 buffers", "copy", size, tiles, 2, 0, 1)
    for mode, what in ((1, "read chain"), (2, "write chain")):
        for size, tiles in ((512, 16), (big, 4)):
            copy(f"{what} {_bytes(size)} x{tiles}", "copy", size, tiles, 1, mode, 1)
    if cores > 1:
        copy(f"copy {_bytes(big)} x4, 2 buffers, {cores} cores", "copy", big, 4, 2, 0, cores)
        half = max(cores // 2, 2)
        copy(f"copy {_bytes(8 * KIB)} x4, 1 buffer, {half} cores", "copy", 8 * KIB, 4, 1, 0, half)
    for blocks in sorted({1, max(cores // 4, 1), max(cores // 2, 1), cores}):
        copy(f"launch {blocks} block{'s' if blocks > 1 else ''}", "launch", 512, 1, 1, 0, blocks)

    for dtype in dtypes:
        col = DTYPE_COLUMNS[dtype]
        per_repeat = 256 // (2 if dtype == "float16" else 4)
        span = max(VECTOR_REPEATS) * per_repeat
        base_touch = copy_touch | {offset_key(dtype)}
        kernels.append(_vector(f"vector {col} copies only", dtype, 0, span, span, 0, base_touch))
        for cls in classes:
            for repeats in VECTOR_REPEATS:
                kernels.append(
                    _vector(
                        f"{cls} {col} x{VECTOR_REPS}, {repeats} repeats",
                        dtype,
                        list(VECTOR_CLASSES).index(cls),
                        repeats * per_repeat,
                        span,
                        VECTOR_REPS,
                        base_touch | set(row_keys(cls, dtype)),
                    )
                )
    return kernels


def _vector(name: str, dtype: str, opcode: int, count: int, span: int, reps: int, touch: frozenset[str]) -> MicroKernel:
    # positive inputs: Ln, Sqrt, Rsqrt, Div and Reciprocal stay finite
    spec = InputSpec(shape=[span], dtype=dtype, init="positive")
    reduce = list(VECTOR_CLASSES)[opcode].startswith("Reduce")
    case = Case(
        name=_case_name(name),
        inputs={"x": spec, "x2": spec},
        attrs={"count": count, "span": span, "reps": reps, "opcode": opcode},
        # a sum over thousands of fp16 elements rounds at every partial sum, differently from numpy's
        outputs={"y": OutputSpec(rtol=0.05, atol=0.05)} if reduce and reps else {},
    )
    return MicroKernel(name, "vector", VECTOR_OP, case, 1, frozenset(touch), dtype)


def _bytes(n: int) -> str:
    return f"{n // KIB} KiB" if n >= KIB and n % KIB == 0 else f"{n} B"


def _case_name(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def soc_of(chip: Chip) -> str:
    """The SoC the operators register for (`AddConfig`): `ascend910b` for 910B2, `ascend310b` for 310B; a chip file
    named otherwise registers none, and the emulator runs it on the chip it is given."""
    m = re.match(r"(\d+[a-z]?)", chip.name.lower())
    return f"ascend{m.group(1)}" if m else ""
