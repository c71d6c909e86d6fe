"""The emulator's AscendC vector instructions (device/emulator/include/tw/vector*.h) against numpy goldens.

One C++ driver (vector_driver.cpp) is compiled per session; each test writes operand buffers, runs one API on them
in a one-block launch, and compares every buffer afterwards: computed slots against the golden, everything else
(masked-off slots, stride gaps, the tail past the count) against the initial contents.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from kernel_drivers import build_driver

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "src" / "tilewise" / "device" / "emulator" / "include"
HERE = Path(__file__).resolve().parent
CXX = shutil.which("g++")

# One worker runs this module (--dist loadgroup) and its session fixture compiles there once, whatever runs between.
pytestmark = [
    pytest.mark.skipif(CXX is None, reason="g++ is not installed"),
    pytest.mark.xdist_group("test_vector_api"),
]

NP = {
    "f16": np.float16,
    "f32": np.float32,
    "i32": np.int32,
    "i16": np.int16,
    "u16": np.uint16,
    "i8": np.int8,
    "u8": np.uint8,
    "bf16": np.uint16,
}
SIZE = {"f16": 2, "f32": 4, "i32": 4, "i16": 2, "u16": 2, "i8": 1, "u8": 1, "bf16": 2}
FLOAT = ("f16", "f32")
RNG = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _seed(request: pytest.FixtureRequest) -> None:
    """Each test draws the same data however the suite is selected or ordered."""
    global RNG
    RNG = np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


# ----------------------------------------------------------------------------------------------------------------
# running the driver


@dataclass
class Res:
    bufs: list[np.ndarray]
    ok: bool
    kind: str = ""
    line: int = 0
    file: str = ""
    message: str = ""
    ret: str = ""
    trace: list[tuple] = field(default_factory=list)
    warnings: list[tuple[str, int]] = field(default_factory=list)  # (kind, line)


@pytest.fixture(scope="session")
def drv(tmp_path_factory: pytest.TempPathFactory):
    exe = build_driver(tmp_path_factory, HERE / "vector_driver.cpp", error_lines=60)
    out = exe.parent

    def run(case: str, bufs: list[np.ndarray], **kw) -> Res:
        d = Path(tempfile.mkdtemp(dir=out))
        for i, b in enumerate(bufs):
            (d / f"b{i}.bin").write_bytes(np.ascontiguousarray(b).tobytes())
        args = [str(exe), str(d), case, *(f"{k}={v}" for k, v in kw.items())]
        p = subprocess.run(args, capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        res = Res(
            [np.frombuffer((d / f"b{i}.bin").read_bytes(), dtype=b.dtype).copy() for i, b in enumerate(bufs)], ok=False
        )
        lines = (d / "result.txt").read_text().splitlines()
        head = lines[0].split()
        res.ok = head[0] == "ok"
        if not res.ok:
            res.kind, res.line, res.file = head[1], int(head[2]), head[3] if len(head) > 3 else ""
            res.message = "\n".join(lines[1:])
        res.ret = (d / "ret.txt").read_text().strip()
        res.trace = [tuple(ln.split()) for ln in (d / "trace.txt").read_text().splitlines() if ln]
        res.warnings = [(w[0], int(w[1])) for w in map(str.split, (d / "warnings.txt").read_text().splitlines())]
        shutil.rmtree(d)
        return res

    return run


def ok(r: Res) -> Res:
    assert r.ok, f"{r.kind} at line {r.line}: {r.message}"
    return r


# ----------------------------------------------------------------------------------------------------------------
# data and layout helpers


def rand(dt: str, n: int, lo: float = -4, hi: float = 4) -> np.ndarray:
    if dt in FLOAT:
        return RNG.uniform(lo, hi, n).astype(NP[dt])
    info = np.iinfo(NP[dt])
    return RNG.integers(max(info.min, -1000), min(info.max, 1000), n, endpoint=True).astype(NP[dt])


def garbage(dt: str, n: int) -> np.ndarray:
    """Initial destination contents: distinctive values that a stray write would disturb."""
    if dt in FLOAT:
        return (np.arange(n) % 97 + 1000).astype(NP[dt])
    return (np.arange(n) % 97 + 77).astype(NP[dt])


def pairs(E: int, form: str, mask: int = 0, m0: int = 0, m1: int = 0, repeat: int = 1, n: int = 0):
    """(repeat, slot) pairs an instruction computes, in order."""
    if form == "counter":
        return [(e // E, e % E) for e in range(n)]
    if form == "cont":
        slots = list(range(min(mask, E)))
    else:
        bits = m0 | ((m1 << 64) if E > 64 else 0)
        slots = [s for s in range(min(E, 128)) if bits >> s & 1]
    return [(r, s) for r in range(repeat) for s in slots]


def off(r: int, s: int, es: int, blk: int, rep: int, wide: int | None = None) -> int:
    """Element offset of slot s of repeat r: blocks of 32/wide slots, block stride blk, repeat stride rep (32 B)."""
    eb = 32 // (wide or es)
    return r * rep * 32 // es + (s // eb) * blk * eb + s % eb


def extent(ps, es, blk, rep, wide=None) -> int:
    return max((off(r, s, es, blk, rep, wide) for r, s in ps), default=-1) + 1


def f64(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float64)


def assert_same(got: np.ndarray, want: np.ndarray, what: str = "", rtol: float = 0.0) -> None:
    """Bit-exact for rtol 0 (nan == nan), else close."""
    if rtol == 0 or got.dtype.kind in "iu":
        g = got.view(np.uint8).reshape(got.shape + (-1,)) if got.dtype.kind == "f" else got
        w = want.view(np.uint8).reshape(want.shape + (-1,)) if want.dtype.kind == "f" else want
        bad = np.nonzero(np.any(g != w, axis=-1) if g.ndim > 1 else g != w)[0]
        if got.dtype.kind == "f":  # nan payloads may differ; compare nan-ness
            bad = [i for i in bad if not (np.isnan(got[i]) and np.isnan(want[i]))]
        assert len(bad) == 0, f"{what}: {len(bad)} mismatches, first at {bad[0]}: got {got[bad[0]]} want {want[bad[0]]}"
    else:
        np.testing.assert_allclose(
            got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=0, equal_nan=True, err_msg=what
        )


# ----------------------------------------------------------------------------------------------------------------
# binary


BIN = {
    "Add": np.add,
    "Sub": np.subtract,
    "Mul": np.multiply,
    "Div": np.divide,
    "Max": np.maximum,
    "Min": np.minimum,
    "And": np.bitwise_and,
    "Or": np.bitwise_or,
}


def golden2(op: str, a: np.ndarray, b: np.ndarray, dt: str) -> np.ndarray:
    if dt in FLOAT:  # exact in float64, then one correct rounding (innocuous double rounding for f32)
        return BIN[op](f64(a), f64(b)).astype(NP[dt])
    return BIN[op](a.astype(np.int64), b.astype(np.int64)).astype(NP[dt])  # wraps


BIN_CASES = [(op, dt) for op in ("Add", "Sub", "Mul", "Max", "Min") for dt in ("f16", "f32", "i32")]
BIN_CASES += [("Div", "f16"), ("Div", "f32"), ("And", "i16"), ("And", "u16"), ("Or", "i16"), ("Or", "u16")]


@pytest.mark.parametrize("op,dt", BIN_CASES)
def test_binary_count(drv, op, dt):
    n = 1000
    a, b = rand(dt, n + 40), rand(dt, n + 40)
    if op == "Div":
        b = np.where(np.abs(b.astype(np.float64)) < 0.5, NP[dt](1.25), b).astype(NP[dt])
    if dt == "i32" and op == "Mul":
        a[:3], b[:3] = 2**31 - 1, 3  # wraps
    d0 = garbage(dt, n + 40)
    r = ok(drv("bin", [d0, a, b], api=op, dt=dt, form="count", count=n))
    want = d0.copy()
    want[:n] = golden2(op, a[:n], b[:n], dt)
    assert_same(r.bufs[0], want, op)
    assert_same(r.bufs[1], a, "src0 untouched")


def run_masked_binary(drv, op, dt, form, *, mask=0, m0=0, m1=0, repeat=1, n=0, p=(1, 1, 1, 8, 8, 8)):
    es = SIZE[dt]
    E = 256 // es
    ps = pairs(E, form, mask, m0, m1, repeat, n)
    db, s0b, s1b, dr, s0r, s1r = p
    nd, na, nb = extent(ps, es, db, dr) + 50, extent(ps, es, s0b, s0r) + 50, extent(ps, es, s1b, s1r) + 50
    a, b, d0 = rand(dt, na), rand(dt, nb), garbage(dt, nd)
    r = ok(
        drv(
            "bin",
            [d0, a, b],
            api=op,
            dt=dt,
            form=form,
            mask=mask,
            m0=m0,
            m1=m1,
            repeat=repeat,
            n=n,
            db=db,
            s0b=s0b,
            s1b=s1b,
            dr=dr,
            s0r=s0r,
            s1r=s1r,
        )
    )
    want = d0.copy()
    for rr, s in ps:
        x, y = a[off(rr, s, es, s0b, s0r)], b[off(rr, s, es, s1b, s1r)]
        want[off(rr, s, es, db, dr)] = golden2(op, np.array([x]), np.array([y]), dt)[0]
    assert_same(r.bufs[0], want, f"{op} {form}")
    return r


@pytest.mark.parametrize("dt", ["f16", "f32", "i32"])
@pytest.mark.parametrize("op", ["Add", "Sub", "Max"])
def test_binary_mask_continuous_strides(drv, op, dt):
    E = 256 // SIZE[dt]
    run_masked_binary(drv, op, dt, "cont", mask=E - 27, repeat=3, p=(2, 1, 3, 20, 8, 24))
    run_masked_binary(drv, op, dt, "cont", mask=E, repeat=2, p=(1, 1, 1, 8, 8, 8))
    run_masked_binary(drv, op, dt, "cont", mask=5, repeat=4, p=(1, 0, 1, 1, 0, 2))  # reuse src0's first block


@pytest.mark.parametrize("dt", ["f16", "f32", "i32"])
def test_binary_mask_bits(drv, dt):
    m0, m1 = 0xF0F0_0000_FFFF_0001, 0x8000_0000_0000_00FF
    run_masked_binary(drv, "Mul", dt, "bits", m0=m0, m1=m1, repeat=2, p=(1, 2, 1, 16, 16, 8))
    run_masked_binary(drv, "Min", dt, "preset", m0=m0, m1=m1, repeat=3, p=(1, 1, 1, 8, 8, 8))


@pytest.mark.parametrize("dt", ["f16", "f32"])
def test_binary_counter_mode(drv, dt):
    E = 256 // SIZE[dt]
    r = run_masked_binary(drv, "Add", dt, "counter", n=2 * E + 44, p=(1, 1, 1, 8, 8, 8))
    rec = [t for t in r.trace if t[0] == "Add"][0]
    assert rec[2:] == (str(2 * E + 44), "3", str(SIZE[dt]), "4")
    run_masked_binary(drv, "Add", dt, "counter", n=E + 3, p=(2, 1, 1, 20, 10, 8))


def test_trace_records(drv):
    n = 1000
    r = ok(drv("bin", [garbage("f16", n), rand("f16", n), rand("f16", n)], api="Add", dt="f16", form="count", count=n))
    assert r.trace == [("Add", "2000", "1000", "8", "2", "0")]
    r = ok(
        drv(
            "bin",
            [garbage("f32", 512), rand("f32", 512), rand("f32", 512)],
            api="Add",
            dt="f32",
            form="cont",
            mask=40,
            repeat=3,
        )
    )
    assert r.trace == [("Add", str(120 * 4), "120", "3", "4", "4")]


# ----------------------------------------------------------------------------------------------------------------
# scalar operand, unary, duplicate, axpy, copy


def golden_scalar(op, a, s, dt):
    if op == "LeakyRelu":
        x = f64(a)
        return np.where(x >= 0, x, x * s).astype(NP[dt])
    if op in ("ShiftLeft", "ShiftRight"):
        x = a.astype(np.int64)
        return (x << int(s) if op == "ShiftLeft" else x >> int(s)).astype(NP[dt])
    f = {"Adds": np.add, "Muls": np.multiply, "Maxs": np.maximum, "Mins": np.minimum}[op]
    if dt in FLOAT:
        return f(f64(a), np.float64(s)).astype(NP[dt])
    return f(a.astype(np.int64), np.int64(s)).astype(NP[dt])


SCALAR_CASES = [(op, dt) for op in ("Adds", "Muls", "Maxs", "Mins", "LeakyRelu") for dt in FLOAT]
SCALAR_CASES += [
    ("Adds", "i32"),
    ("Muls", "i32"),
    ("Maxs", "i16"),
    ("ShiftLeft", "i32"),
    ("ShiftRight", "i32"),
    ("ShiftRight", "i16"),
    ("ShiftLeft", "u16"),
    ("ShiftRight", "u16"),
]


@pytest.mark.parametrize("op,dt", SCALAR_CASES)
def test_scalar_ops(drv, op, dt):
    s = 3 if op.startswith("Shift") else (-0.25 if dt in FLOAT else -7)
    if op in ("Adds", "Muls", "Maxs", "Mins") and dt in FLOAT:
        s = 1.5
    n, es = 777, SIZE[dt]
    a, d0 = rand(dt, n + 30), garbage(dt, n + 30)
    r = ok(drv("scalar", [d0, a], api=op, dt=dt, form="count", count=n, scalar=s))
    want = d0.copy()
    want[:n] = golden_scalar(op, a[:n], s, dt)
    assert_same(r.bufs[0], want, f"{op} count")
    # mask form with strides
    E = 256 // es
    ps = pairs(E, "cont", mask=E - 3, repeat=3)
    a = rand(dt, extent(ps, es, 2, 16) + 9)
    d0 = garbage(dt, extent(ps, es, 1, 10) + 9)
    r = ok(drv("scalar", [d0, a], api=op, dt=dt, form="cont", mask=E - 3, repeat=3, scalar=s, db=1, sb=2, dr=10, sr=16))
    want = d0.copy()
    for rr, sl in ps:
        want[off(rr, sl, es, 1, 10)] = golden_scalar(op, a[[off(rr, sl, es, 2, 16)]], s, dt)[0]
    assert_same(r.bufs[0], want, f"{op} mask")


UNARY = {
    "Exp": np.exp,
    "Ln": np.log,
    "Sqrt": np.sqrt,
    "Rsqrt": lambda x: 1 / np.sqrt(x),
    "Reciprocal": lambda x: 1 / x,
    "Abs": np.abs,
    "Relu": lambda x: np.maximum(x, 0),
    "Not": np.invert,
}


def unary_input(op, dt, n):
    if op in ("Sqrt", "Rsqrt", "Reciprocal"):
        a = rand(dt, n, 0.01, 50)
    elif op == "Exp":
        a = rand(dt, n, -8, 8)
    elif op == "Ln":
        a = rand(dt, n, 0.001, 100)
        a[:4] = [-1.0, 0.0, -0.0, 1.0]  # nan, -inf, -inf, 0
    else:
        a = rand(dt, n)
    return a


@pytest.mark.parametrize(
    "op,dt",
    [(op, dt) for op in ("Exp", "Ln", "Sqrt", "Rsqrt", "Reciprocal", "Abs", "Relu") for dt in FLOAT]
    + [("Abs", "i32"), ("Not", "i16"), ("Not", "u16")],
)
def test_unary(drv, op, dt):
    n = 600
    a, d0 = unary_input(op, dt, n + 20), garbage(dt, n + 20)
    # correctly rounded ops are bit-exact; transcendental ones (and 1/sqrt, two roundings) within an ulp or so
    exact = op in ("Sqrt", "Abs", "Relu", "Not", "Reciprocal")
    rtol = 0 if exact else {"f16": 1e-3, "f32": 4e-7}[dt]
    with np.errstate(all="ignore"):
        want = d0.copy()
        want[:n] = (UNARY[op](f64(a[:n])) if dt in FLOAT else UNARY[op](a[:n])).astype(NP[dt])
    r = ok(drv("unary", [d0, a], api=op, dt=dt, form="count", count=n))
    assert_same(r.bufs[0][:n], want[:n], op, rtol=rtol)
    assert_same(r.bufs[0][n:], d0[n:], "tail untouched")
    # bit-mask form, 2 repeats, non-default strides
    es = SIZE[dt]
    E = 256 // es
    m0, m1 = 0x00FF_FF00_0F0F_F0F1, 0x7
    ps = pairs(E, "bits", m0=m0, m1=m1, repeat=2)
    a = unary_input(op, dt, extent(ps, es, 1, 8) + 5)
    d0 = garbage(dt, extent(ps, es, 3, 30) + 5)
    r = ok(drv("unary", [d0, a], api=op, dt=dt, form="bits", m0=m0, m1=m1, repeat=2, db=3, dr=30))
    want = d0.copy()
    with np.errstate(all="ignore"):
        for rr, sl in ps:
            x = a[[off(rr, sl, es, 1, 8)]]
            want[off(rr, sl, es, 3, 30)] = (UNARY[op](f64(x)) if dt in FLOAT else UNARY[op](x)).astype(NP[dt])[0]
    assert_same(r.bufs[0], want, f"{op} bits", rtol=rtol)


def test_ln_negative_is_nan(drv):
    a = np.array([-1, -0.5, 0, 1] + [1] * 12, dtype=np.float32)
    r = ok(drv("unary", [garbage("f32", 16), a], api="Ln", dt="f32", form="count", count=16))
    out = r.bufs[0]
    assert np.isnan(out[0]) and np.isnan(out[1]) and out[2] == -np.inf and out[3] == 0


@pytest.mark.parametrize("dt", ["f16", "f32", "i32", "i16"])
def test_duplicate(drv, dt):
    n, es = 300, SIZE[dt]
    d0 = garbage(dt, n + 17)
    r = ok(drv("dup", [d0], dt=dt, form="count", count=n, scalar=-2.5 if dt in FLOAT else -3))
    want = d0.copy()
    want[:n] = NP[dt](-2.5 if dt in FLOAT else -3)
    assert_same(r.bufs[0], want, "Duplicate count")
    E = 256 // es
    for form, kw in (("cont", {"mask": E // 2 + 3}), ("bits", {"m0": 0x8421_8421_8421_8421, "m1": 0xFFFF})):
        ps = pairs(E, form, repeat=3, **kw)
        d0 = garbage(dt, extent(ps, es, 2, 17) + 5)
        r = ok(drv("dup", [d0], dt=dt, form=form, repeat=3, db=2, dr=17, scalar=7, **kw))
        want = d0.copy()
        for rr, sl in ps:
            want[off(rr, sl, es, 2, 17)] = 7
        assert_same(r.bufs[0], want, f"Duplicate {form}")


@pytest.mark.parametrize("dt,dt2", [("f16", "f16"), ("f32", "f32"), ("f32", "f16")])
def test_axpy(drv, dt, dt2):
    n = 500
    s = 0.75
    a, d0 = rand(dt2, n + 8), rand(dt, n + 8)
    r = ok(drv("axpy", [d0, a], dt=dt, dt2=dt2, form="count", count=n, scalar=s))
    want = d0.copy()
    want[:n] = (f64(a[:n]) * s + f64(d0[:n])).astype(NP[dt])  # s exact: product exact in f64, one rounding
    assert_same(r.bufs[0], want, "Axpy count")
    # mask form: the repeat is driven by the wider type (64 slots for f32 <- f16)
    wide = max(SIZE[dt], SIZE[dt2])
    E = 256 // wide
    sr = 8 * SIZE[dt2] // wide
    ps = pairs(E, "cont", mask=E - 1, repeat=2)
    a = rand(dt2, extent(ps, SIZE[dt2], 1, sr, wide) + 3)
    d0 = rand(dt, extent(ps, SIZE[dt], 1, 8, wide) + 3)
    r = ok(drv("axpy", [d0, a], dt=dt, dt2=dt2, form="cont", mask=E - 1, repeat=2, scalar=s, sr=sr))
    want = d0.copy()
    for rr, sl in ps:
        i, j = off(rr, sl, SIZE[dt], 1, 8, wide), off(rr, sl, SIZE[dt2], 1, sr, wide)
        want[i] = NP[dt](np.float64(a[j]) * s + np.float64(d0[i]))
    assert_same(r.bufs[0], want, "Axpy mask")


@pytest.mark.parametrize("dt", ["f16", "f32", "i32"])
def test_copy(drv, dt):
    es = SIZE[dt]
    E = 256 // es
    m0 = 0xFFFF_0000_FFFF_00FF
    ps = pairs(E, "bits", m0=m0, m1=m0, repeat=3)
    a = rand(dt, extent(ps, es, 2, 12) + 4)
    d0 = garbage(dt, extent(ps, es, 1, 9) + 4)
    r = ok(drv("copy", [d0, a], dt=dt, form="bits", m0=m0, m1=m0, repeat=3, db=1, sb=2, dr=9, sr=12))
    want = d0.copy()
    for rr, sl in ps:
        want[off(rr, sl, es, 1, 9)] = a[off(rr, sl, es, 2, 12)]
    assert_same(r.bufs[0], want, "Copy")


# ----------------------------------------------------------------------------------------------------------------
# Cast


CAST_NONE, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD = range(7)
MODES = {
    "none": CAST_NONE,
    "rint": CAST_RINT,
    "floor": CAST_FLOOR,
    "ceil": CAST_CEIL,
    "round": CAST_ROUND,
    "trunc": CAST_TRUNC,
    "odd": CAST_ODD,
}


def _table16(kind: str):
    """All finite values of a 16-bit float format, sorted, with their bit patterns."""
    bits = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    with np.errstate(invalid="ignore"):
        if kind == "f16":
            vals = bits.view(np.float16).astype(np.float64)
        else:
            vals = (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    keep = np.isfinite(vals) & ~(bits == 0x8000)
    order = np.argsort(vals[keep], kind="stable")
    return vals[keep][order], bits[keep][order]


TABLES = {k: _table16(k) for k in ("f16", "bf16")}


def round_to_16(x: float, kind: str, mode: int) -> int:
    """Bit pattern of x rounded to half / bfloat16 with a mode (reference by exhaustive neighbour search)."""
    vals, bits = TABLES[kind]
    neg_zero = 0x8000
    if np.isnan(x):
        return 0x7E00 if kind == "f16" else 0x7FC0
    if x == 0:
        return neg_zero if np.signbit(x) else 0
    inf = 0x7C00 if kind == "f16" else 0x7F80
    sign = 0x8000 if x < 0 else 0
    if np.isinf(x):
        return sign | inf
    i = np.searchsorted(vals, x)
    if i < len(vals) and vals[i] == x:
        return int(bits[i])
    mx = vals[-1]
    if abs(x) > mx:  # beyond the largest finite value
        ax = abs(x)
        ulp = mx - vals[-2]
        to_inf = {
            CAST_NONE: ax >= mx + ulp / 2,
            CAST_RINT: ax >= mx + ulp / 2,
            CAST_ROUND: ax >= mx + ulp / 2,
            CAST_FLOOR: x < 0,
            CAST_CEIL: x > 0,
            CAST_TRUNC: False,
            CAST_ODD: False,
        }[mode]
        return sign | inf if to_inf else int(bits[-1] if x > 0 else bits[0])
    lo_v, hi_v, lo_b, hi_b = vals[i - 1], vals[i], int(bits[i - 1]), int(bits[i])
    if mode in (CAST_NONE, CAST_RINT, CAST_ROUND):
        dl, dh = x - lo_v, hi_v - x
        if dl != dh:
            res = lo_b if dl < dh else hi_b
        elif mode == CAST_ROUND:
            res = hi_b if x > 0 else lo_b
        else:
            res = lo_b if (lo_b & 1) == 0 else hi_b
    elif mode == CAST_FLOOR:
        res = lo_b
    elif mode == CAST_CEIL:
        res = hi_b
    elif mode == CAST_TRUNC:
        res = lo_b if x > 0 else hi_b
    else:  # odd
        res = lo_b if lo_b & 1 else hi_b
    if res & 0x7FFF == 0:  # rounded to zero: keep the sign of x
        res = sign
    return res


def round_to_f32(x: float, mode: int) -> np.float32:
    f = np.float32(x)
    if np.isnan(x) or float(f) == x:
        return f
    if float(f) < x:
        lo, hi = f, np.nextafter(f, np.float32(np.inf))
    else:
        lo, hi = np.nextafter(f, np.float32(-np.inf)), f
    if mode in (CAST_NONE, CAST_RINT):
        return f
    if mode == CAST_ROUND:
        dl, dh = x - float(lo), float(hi) - x
        return (hi if x > 0 else lo) if dl == dh else (lo if dl < dh else hi)
    if mode == CAST_FLOOR:
        return lo
    if mode == CAST_CEIL:
        return hi
    if mode == CAST_TRUNC:
        return lo if x > 0 else hi
    return lo if lo.view(np.uint32) & 1 else hi


def round_int(x: float, mode: int, dt: str) -> int:
    if np.isnan(x):
        return 0
    if mode == CAST_FLOOR:
        v = np.floor(x)
    elif mode == CAST_CEIL:
        v = np.ceil(x)
    elif mode == CAST_TRUNC:
        v = np.trunc(x)
    elif mode == CAST_ROUND:
        v = np.sign(x) * np.floor(abs(x) + 0.5)
    else:
        v = np.rint(x)
    info = np.iinfo(NP[dt])
    return int(np.clip(v, info.min, info.max))


def to_f64(a: np.ndarray, dt: str) -> np.ndarray:
    if dt == "bf16":
        return (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return a.astype(np.float64)


def golden_cast(src: np.ndarray, sdt: str, ddt: str, mode: int) -> np.ndarray:
    xs = to_f64(src, sdt)
    if ddt in ("f16", "bf16"):
        out = np.array([round_to_16(x, ddt, mode) for x in xs], dtype=np.uint16)
        # a finite value beyond the 16-bit type's range saturates to its largest finite one (precision_conversion.md)
        inf, top = (0x7C00, 0x7BFF) if ddt == "f16" else (0x7F80, 0x7F7F)
        over = np.isfinite(xs) & ((out & 0x7FFF) == inf)
        out[over] = (out[over] & 0x8000) | top
        return out.view(np.float16) if ddt == "f16" else out
    if ddt == "f32":
        if sdt == "f32":  # float -> float: round to an integral value
            with np.errstate(all="ignore"):
                f = {
                    CAST_FLOOR: np.floor,
                    CAST_CEIL: np.ceil,
                    CAST_TRUNC: np.trunc,
                    CAST_ROUND: lambda v: np.where(np.isfinite(v), np.sign(v) * np.floor(np.abs(v) + 0.5), v),
                }
                r = f.get(mode, np.rint)(xs).astype(np.float32)
                return np.where(xs == 0, src, np.copysign(r, xs)).astype(np.float32)
        return np.array([round_to_f32(x, mode) for x in xs], dtype=np.float32)
    return np.array([round_int(x, mode, ddt) for x in xs], dtype=NP[ddt])


TRICKY = [
    0.0,
    -0.0,
    0.5,
    1.5,
    2.5,
    -0.5,
    -1.5,
    -2.5,
    0.49999997,
    1 / 3,
    -1 / 3,
    2049.0,
    2051.0,
    -2049.0,
    4097.0,
    255.5,
    256.0,
    -128.5,
    -129.0,
    127.5,
    126.5,
    300.0,
    -300.0,
    65504.0,
    65519.99,
    65520.0,
    -65520.0,
    1e5,
    -1e5,
    1e-8,
    -1e-8,
    2.0**-25,
    3 * 2.0**-25,
    2.0**-24,
    5.9604645e-08,
    6.1e-5,
    3.4e38,
    -3.4e38,
    1 + 2.0**-8,
    1 + 3 * 2.0**-8,
    -(1 + 2.0**-8),
    2.1e9,
    3e9,
    -3e9,
    np.nan,
    np.inf,
    -np.inf,
]
TRICKY_INT = [
    0,
    1,
    -1,
    2049,
    -2049,
    2051,
    16777216,
    16777217,
    16777219,
    -16777217,
    33554435,
    2**31 - 1,
    -(2**31),
    127,
    128,
    -128,
    -129,
    255,
    256,
    32767,
    -32768,
    65519,
    65520,
    100000,
    -100000,
]

# (dst, src). int32 -> half is the DEQSCALE conversion (test_documented_semantics.py), not a rounding one.
CAST_PAIRS = [
    ("f16", "f32"),
    ("f32", "f16"),
    ("i32", "f32"),
    ("f32", "i32"),
    ("i32", "f16"),
    ("i8", "f16"),
    ("u8", "f16"),
    ("f16", "i8"),
    ("f16", "u8"),
    ("bf16", "f32"),
    ("f32", "bf16"),
    ("i16", "f16"),
    ("f16", "i16"),
    ("f32", "f32"),
]
# The round modes Cast.md's Atlas A2 table lists per (dst, src); another mode is a sanitizer error.
ROUNDING = [CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC]
DOC_MODES = {
    ("f32", "f16"): [CAST_NONE],
    ("f16", "i8"): [CAST_NONE],
    ("f16", "u8"): [CAST_NONE],
    ("f32", "bf16"): [CAST_NONE],
    ("f16", "i16"): ROUNDING + [CAST_NONE],
    ("i8", "f16"): ROUNDING + [CAST_NONE],
    ("u8", "f16"): ROUNDING + [CAST_NONE],
    ("i16", "f16"): ROUNDING,
    ("i32", "f16"): ROUNDING,
    ("f32", "i32"): ROUNDING + [CAST_NONE],
    ("f16", "f32"): ROUNDING + [CAST_ODD, CAST_NONE],
    ("bf16", "f32"): ROUNDING,
    ("i32", "f32"): ROUNDING,
    ("f32", "f32"): ROUNDING,
}


def cast_source(sdt: str) -> np.ndarray:
    if sdt == "f32":
        return np.concatenate([np.array(TRICKY, dtype=np.float32), rand("f32", 80, -1e4, 1e4)])
    if sdt == "f16":
        with np.errstate(over="ignore"):
            t = np.array(TRICKY, dtype=np.float64).astype(np.float16)
        return np.concatenate([t, rand("f16", 80, -400, 400), rand("f16", 40, -3, 3)])
    if sdt == "bf16":
        f = np.concatenate([np.array(TRICKY, dtype=np.float32), rand("f32", 40, -1e3, 1e3)])
        return (f.view(np.uint32) >> 16).astype(np.uint16)
    info = np.iinfo(NP[sdt])
    t = np.array([v for v in TRICKY_INT if info.min <= v <= info.max], dtype=NP[sdt])
    return np.concatenate([t, RNG.integers(info.min, info.max, 60, endpoint=True).astype(NP[sdt])])


@pytest.mark.parametrize("ddt,sdt", CAST_PAIRS)
def test_cast_count_all_modes(drv, ddt, sdt):
    src = cast_source(sdt)
    n = len(src)
    for mode in DOC_MODES[(ddt, sdt)]:
        d0 = garbage(ddt, n + 5) if ddt != "bf16" else np.full(n + 5, 0x1234, np.uint16)
        r = ok(drv("cast", [d0, src], dt=ddt, dt2=sdt, form="count", count=n, round=mode))
        want = d0.copy()
        want[:n] = golden_cast(src, sdt, ddt, mode)
        assert_same(r.bufs[0], want, f"Cast {sdt}->{ddt} mode {mode}")


@pytest.mark.parametrize("ddt,sdt", [("f32", "f16"), ("f16", "f32"), ("i32", "f32"), ("f16", "i8")])
def test_cast_mask_form(drv, ddt, sdt):
    ds, ss = SIZE[ddt], SIZE[sdt]
    wide = max(ds, ss)
    E = 256 // wide
    dr, sr = 8 * ds // wide, 8 * ss // wide  # contiguous repeats for both operands
    ps = pairs(E, "cont", mask=E - 10, repeat=3)
    src = cast_source(sdt)
    src = np.resize(src, extent(ps, ss, 1, sr, wide) + 7)
    d0 = garbage(ddt, extent(ps, ds, 1, dr, wide) + 7)
    mode = CAST_ROUND if CAST_ROUND in DOC_MODES[(ddt, sdt)] else CAST_NONE
    r = ok(drv("cast", [d0, src], dt=ddt, dt2=sdt, form="cont", mask=E - 10, repeat=3, round=mode, dr=dr, sr=sr))
    want = d0.copy()
    for rr, sl in ps:
        want[off(rr, sl, ds, 1, dr, wide)] = golden_cast(src[[off(rr, sl, ss, 1, sr, wide)]], sdt, ddt, mode)[0]
    assert_same(r.bufs[0], want, "Cast mask")


# ----------------------------------------------------------------------------------------------------------------
# reductions


def rnd(v: float, dt: str):
    """Round to dt; half saturates at +-65504 (documented for the reduction trees)."""
    x = NP[dt](v) if dt == "f32" else np.float64(v).astype(np.float16)
    if dt == "f16" and np.isinf(x) and not np.isinf(v):
        x = np.float16(65504 if v > 0 else -65504)
    return x


def tree(vals: list, dt: str):
    v = list(vals)
    while len(v) > 1:
        v = [rnd(float(v[2 * i]) + float(v[2 * i + 1]), dt) for i in range(len(v) // 2)]
    return v[0]


def ref_reduce_sum_count(x: np.ndarray, dt: str):
    E = 256 // SIZE[dt]
    acc = None
    for b in range(0, len(x), E):
        chunk = list(x[b : b + E]) + [NP[dt](0)] * (E - len(x[b : b + E]))
        part = tree(chunk, dt)
        acc = part if acc is None else rnd(float(acc) + float(part), dt)
    return acc


@pytest.mark.parametrize("dt", FLOAT)
def test_reduce_sum_count(drv, dt):
    for n in (1, 100, 1000, 4097 if dt == "f32" else 2000):
        x = rand(dt, n, -2, 2)
        r = ok(drv("reduce", [garbage(dt, 16), x, garbage(dt, 512)], api="ReduceSum", dt=dt, form="count", count=n))
        got = r.bufs[0][0]
        assert_same(np.array([got]), np.array([ref_reduce_sum_count(x, dt)], dtype=NP[dt]), f"ReduceSum n={n}")
        assert abs(float(got) - float(f64(x).sum())) <= (0.05 if dt == "f16" else 1e-3) * max(1, np.abs(x).sum() / 10)
        assert_same(r.bufs[0][1:], garbage(dt, 16)[1:], "dst tail")


def test_reduce_sum_half_saturates(drv):
    x = np.array([60000, 60000, -30000, 100], dtype=np.float16)
    r = ok(
        drv("reduce", [garbage("f16", 16), x, garbage("f16", 128)], api="ReduceSum", dt="f16", form="count", count=4)
    )
    # The reference's worked example: 60000 + 60000 saturates to 65504, -30000 + 100 = -29900, 65504 - 29900 =
    # 35604 "exactly"; in half precision -29900 rounds to -29904 and 35600 (a tie) to 35584.
    assert float(r.bufs[0][0]) == 35584.0


@pytest.mark.parametrize("dt", FLOAT)
def test_reduce_sum_mask_form(drv, dt):
    es = SIZE[dt]
    E = 256 // es
    m0, m1 = 0xFFFF_FFFF_0000_FFFF, 0x00FF_FF00_0000_0001
    ps = pairs(E, "bits", m0=m0, m1=m1, repeat=5)
    x = rand(dt, extent(ps, es, 1, 12) + 3, -2, 2)
    r = ok(
        drv(
            "reduce",
            [garbage(dt, 16), x, garbage(dt, 256)],
            api="ReduceSum",
            dt=dt,
            form="bits",
            m0=m0,
            m1=m1,
            repeat=5,
            sr=12,
        )
    )
    parts = []
    for rr in range(5):
        vals = [NP[dt](0)] * E
        for r2, sl in ps:
            if r2 == rr:
                vals[sl] = x[off(rr, sl, es, 1, 12)]
        parts.append(tree(vals, dt))
    want = tree(parts + [NP[dt](0)] * (E - len(parts)), dt)
    assert_same(np.array([r.bufs[0][0]]), np.array([want], dtype=NP[dt]), "ReduceSum mask")


@pytest.mark.parametrize("dt", FLOAT)
@pytest.mark.parametrize("api", ["ReduceMax", "ReduceMin"])
def test_reduce_max_min(drv, api, dt):
    idx_t = np.uint16 if dt == "f16" else np.uint32
    f = np.argmax if api == "ReduceMax" else np.argmin
    for n in (7, 1000):
        x = rand(dt, n)
        x[n // 2] = x[n // 3] = x.max() + 1 if api == "ReduceMax" else x.min() - 1  # tie: first index wins
        r = ok(drv("reduce", [garbage(dt, 16), x, garbage(dt, 512)], api=api, dt=dt, form="count", count=n, calindex=1))
        i = int(f(x))
        assert i == n // 3
        assert r.bufs[0][0] == x[i]
        assert int(r.bufs[0][1:2].view(idx_t)[0]) == i
        assert_same(r.bufs[0][2:], garbage(dt, 16)[2:], "dst tail")
        r = ok(drv("reduce", [garbage(dt, 16), x, garbage(dt, 512)], api=api, dt=dt, form="count", count=n))
        assert r.bufs[0][0] == x[i] and r.bufs[0][1] == garbage(dt, 16)[1]
    # mask form: index = repeat * elements-per-repeat + slot
    E = 256 // SIZE[dt]
    x = rand(dt, E * 6)
    ps = pairs(E, "cont", mask=E // 2, repeat=3)
    pos = {rr * E + sl: off(rr, sl, SIZE[dt], 1, 16) for rr, sl in ps}
    best = None
    for k in sorted(pos):  # first index holding the extreme value
        v = float(x[pos[k]])
        if best is None or (v > float(x[pos[best]]) if api == "ReduceMax" else v < float(x[pos[best]])):
            best = k
    r = ok(
        drv(
            "reduce",
            [garbage(dt, 16), x, garbage(dt, 512)],
            api=api,
            dt=dt,
            form="cont",
            mask=E // 2,
            repeat=3,
            sr=16,
            calindex=1,
        )
    )
    assert r.bufs[0][0] == x[pos[best]]
    assert int(r.bufs[0][1:2].view(idx_t)[0]) == best


@pytest.mark.parametrize("dt", FLOAT)
@pytest.mark.parametrize("form", ["cont", "bits"])
def test_whole_reduce_sum(drv, dt, form):
    es = SIZE[dt]
    E = 256 // es
    kw = {"mask": E - 5} if form == "cont" else {"m0": 0xFFFF_0000_FFFF_0F0F, "m1": 0xF0}
    ps = pairs(E, form, repeat=4, **kw)
    x = rand(dt, extent(ps, es, 2, 16) + 3, -2, 2)
    d0 = garbage(dt, 3 * 3 + 6)
    r = ok(drv("whole", [d0, x], api="WholeReduceSum", dt=dt, form=form, repeat=4, dr=3, sb=2, sr=16, **kw))
    want = d0.copy()
    for rr in range(4):
        vals = [NP[dt](0)] * E
        for r2, sl in ps:
            if r2 == rr:
                vals[sl] = x[off(rr, sl, es, 2, 16)]
        want[rr * 3] = tree(vals, dt)
    assert_same(r.bufs[0], want, "WholeReduceSum")


@pytest.mark.parametrize("dt", FLOAT)
@pytest.mark.parametrize("api", ["WholeReduceMax", "WholeReduceMin"])
@pytest.mark.parametrize("order", [0, 1, 2, 3])
def test_whole_reduce_max_min(drv, dt, api, order):
    es = SIZE[dt]
    E = 256 // es
    idx_t = np.uint16 if dt == "f16" else np.uint32
    ps = pairs(E, "cont", mask=E - 9, repeat=3)
    x = rand(dt, extent(ps, es, 1, 8) + 3)
    dr = 2
    unit = {0: 2, 1: 2, 2: 1, 3: 4 // es}[order]
    d0 = garbage(dt, 3 * dr * unit + 8)
    r = ok(drv("whole", [d0, x], api=api, dt=dt, form="cont", mask=E - 9, repeat=3, dr=dr, sb=1, sr=8, order=order))
    want = d0.copy()
    for rr in range(3):
        vals = [(float(x[off(rr, sl, es, 1, 8)]), sl) for r2, sl in ps if r2 == rr]
        v, i = (
            max(vals, key=lambda t: (t[0], -t[1])) if api == "WholeReduceMax" else min(vals, key=lambda t: (t[0], t[1]))
        )
        base = rr * dr * unit
        iv = np.array([i], dtype=idx_t).view(NP[dt])[0]
        if order == 0:
            want[base], want[base + 1] = NP[dt](v), iv
        elif order == 1:
            want[base], want[base + 1] = iv, NP[dt](v)
        elif order == 2:
            want[base] = NP[dt](v)
        else:
            want[base : base + 4 // es] = np.array([i], dtype=np.uint32).view(NP[dt])
    assert_same(r.bufs[0], want, f"{api} order {order}")


@pytest.mark.parametrize("dt", FLOAT)
@pytest.mark.parametrize("api", ["BlockReduceSum", "BlockReduceMax", "BlockReduceMin", "PairReduceSum"])
def test_block_and_pair_reduce(drv, dt, api):
    es = SIZE[dt]
    E, EB = 256 // es, 32 // es
    m0, m1 = 0xFFFF_FFFF_FFFF_0FFF, 0xFFFF_FFFF_0000_FFFF
    ps = pairs(E, "bits", m0=m0, m1=m1, repeat=3)
    x = rand(dt, extent(ps, es, 2, 20) + 3, -2, 2)
    group = 2 if api == "PairReduceSum" else EB
    per = E // group
    dr = 2
    d0 = garbage(dt, 3 * dr * per + 5)
    r = ok(drv("block", [d0, x], api=api, dt=dt, form="bits", m0=m0, m1=m1, repeat=3, dr=dr, sb=2, sr=20))
    want = d0.copy()
    for rr in range(3):
        sel = {sl: x[off(rr, sl, es, 2, 20)] for r2, sl in ps if r2 == rr}
        for g in range(per):
            slots = range(g * group, (g + 1) * group)
            if api in ("BlockReduceSum", "PairReduceSum"):
                v = tree([sel.get(s, NP[dt](0)) for s in slots], dt)
            else:
                vs = [float(sel[s]) for s in slots if s in sel]
                v = (
                    (max if api == "BlockReduceMax" else min)(vs)
                    if vs
                    else (-np.inf if api == "BlockReduceMax" else np.inf)
                )
            want[rr * dr * per + g] = NP[dt](v)
    assert_same(r.bufs[0], want, api)


# ----------------------------------------------------------------------------------------------------------------
# compare / select


CMP = [np.less, np.greater, np.equal, np.less_equal, np.greater_equal, np.not_equal]  # LT GT EQ LE GE NE


def cmp_input(dt, n):
    a, b = rand(dt, n, -3, 3), rand(dt, n, -3, 3)
    if dt in FLOAT:
        a = np.round(a).astype(NP[dt])  # plenty of equal pairs
        b = np.round(b).astype(NP[dt])
        a[:2] = np.nan
    else:
        a, b = a % 4, b % 4
    return a, b


@pytest.mark.parametrize("dt", ["f16", "f32", "i32"])
@pytest.mark.parametrize("mode", range(6))
def test_compare_count(drv, dt, mode):
    n = 512
    a, b = cmp_input(dt, n)
    d0 = np.full(n // 8 + 4, 0xA5, np.uint8)
    r = ok(drv("cmp", [d0, a, b], dt=dt, form="count", count=n, cmp=mode))
    want = d0.copy()
    want[: n // 8] = np.packbits(CMP[mode](a, b), bitorder="little")
    assert_same(r.bufs[0], want, "Compare count")
    s = 1
    r = ok(drv("cmps", [d0, a], dt=dt, form="count", count=n, cmp=mode, scalar=s))
    want[: n // 8] = np.packbits(CMP[mode](a, NP[dt](s)), bitorder="little")
    assert_same(r.bufs[0], want, "CompareScalar count")


@pytest.mark.parametrize("dt", FLOAT)
@pytest.mark.parametrize("form", ["cont", "bits", "counter"])
def test_compare_mask_forms(drv, dt, form):
    es = SIZE[dt]
    E = 256 // es
    kw = {"cont": {"mask": E - 20}, "bits": {"m0": 0xFF00_FF00_FF00_FF0F, "m1": 0x1}, "counter": {"n": E + 40}}[form]
    # The compare instructions have no mask: in normal mode every slot of each repeat is compared.
    ps = pairs(E, form, repeat=3, **kw) if form == "counter" else pairs(E, "cont", mask=E, repeat=3)
    a = cmp_input(dt, extent(ps, es, 2, 16) + 3)[0]
    b = cmp_input(dt, extent(ps, es, 1, 8) + 3)[1]
    R = max(p[0] for p in ps) + 1
    d0 = np.full(R * E // 8 + 4, 0x5A, np.uint8)
    r = ok(drv("cmp", [d0, a, b], dt=dt, form=form, repeat=3, cmp=3, s0b=2, s0r=16, **kw))
    bits = np.unpackbits(d0, bitorder="little")
    for rr, sl in ps:
        bits[rr * E + sl] = a[off(rr, sl, es, 2, 16)] <= b[off(rr, sl, es, 1, 8)]
    assert_same(r.bufs[0], np.packbits(bits, bitorder="little"), f"Compare {form}")
    # CompareScalar, same selection, UnaryRepeatParams strides
    r = ok(drv("cmps", [d0, a], dt=dt, form=form, repeat=3, cmp=1, scalar=0.5, sb=2, sr=16, **kw))
    bits = np.unpackbits(d0, bitorder="little")
    for rr, sl in ps:
        bits[rr * E + sl] = a[off(rr, sl, es, 2, 16)] > NP[dt](0.5)
    assert_same(r.bufs[0], np.packbits(bits, bitorder="little"), f"CompareScalar {form}")


@pytest.mark.parametrize("dt", FLOAT)
def test_compare_register_and_select_cmpmask(drv, dt):
    es = SIZE[dt]
    E = 256 // es
    a, b = cmp_input(dt, 3 * E)
    d0 = np.zeros(16, np.uint8)
    out0 = garbage(dt, 3 * E)
    r = ok(drv("cmpreg", [d0, a, b, out0], dt=dt, form="cont", mask=E - 4, cmp=0, repeat=3))
    lt = np.zeros(128, bool)
    lt[:E] = a[:E] < b[:E]  # the mask (E - 4) does not limit a compare
    assert_same(r.bufs[0], np.packbits(lt, bitorder="little"), "GetCmpMask")
    want = np.where(np.tile(lt[:E], 3), a, b)  # the same E bits select in every repeat
    assert_same(r.bufs[3], want, "Select VSEL_CMPMASK_SPR register form")


@pytest.mark.parametrize("dt", ["f16", "f32", "i32"])
@pytest.mark.parametrize("selmode", [0, 1, 2])
def test_select_count(drv, dt, selmode):
    es = SIZE[dt]
    E = 256 // es
    n = 3 * E + 20
    sel = RNG.integers(0, 256, (n + 7) // 8 + 8, dtype=np.uint8)
    a, b, d0 = rand(dt, n + 5), rand(dt, n + 5), garbage(dt, n + 5)
    r = ok(drv("select", [d0, sel, a, b], dt=dt, form="count", count=n, selmode=selmode, scalar=-1))
    bits = np.unpackbits(sel, bitorder="little")
    idx = np.arange(n) % E if selmode == 0 else np.arange(n)  # mode 0: the first E bits serve every repeat
    other = b[:n] if selmode != 1 else np.full(n, -1, NP[dt])
    want = d0.copy()
    want[:n] = np.where(bits[idx] == 1, a[:n], other)
    assert_same(r.bufs[0], want, f"Select mode {selmode}")


@pytest.mark.parametrize("dt", FLOAT)
@pytest.mark.parametrize("selmode", [0, 1, 2])
def test_select_mask_form(drv, dt, selmode):
    es = SIZE[dt]
    E = 256 // es
    kw = {"m0": 0x0FF0_FFFF_0000_FFFF, "m1": 0xFFFF}
    ps = pairs(E, "bits", repeat=3, **kw)
    p = dict(db=2, s0b=1, s1b=1, dr=16, s0r=8, s1r=10)
    a = rand(dt, extent(ps, es, 1, 8) + 3)
    b = rand(dt, extent(ps, es, 1, 10) + 3)
    d0 = garbage(dt, extent(ps, es, 2, 16) + 3)
    sel = RNG.integers(0, 256, 3 * E // 8 + 8, dtype=np.uint8)
    r = ok(drv("select", [d0, sel, a, b], dt=dt, form="bits", repeat=3, selmode=selmode, scalar=2.5, **kw, **p))
    bits = np.unpackbits(sel, bitorder="little")
    want = d0.copy()
    for rr, sl in ps:
        bit = bits[sl] if selmode == 0 else bits[rr * E + sl]
        y = NP[dt](2.5) if selmode == 1 else b[off(rr, sl, es, 1, 10)]
        want[off(rr, sl, es, 2, 16)] = a[off(rr, sl, es, 1, 8)] if bit else y
    assert_same(r.bufs[0], want, f"Select mask mode {selmode}")


# ----------------------------------------------------------------------------------------------------------------
# gather family


@pytest.mark.parametrize("dt", ["f16", "f32", "i32"])
def test_gather(drv, dt):
    es = SIZE[dt]
    n, m = 300, 500
    src = rand(dt, m)
    base = 8 * es
    idx = RNG.integers(0, m - 8, n)
    offs = (idx * es).astype(np.uint32)
    d0 = garbage(dt, n + 6)
    r = ok(drv("gather", [d0, src, offs], dt=dt, form="count", count=n, base=base))
    want = d0.copy()
    want[:n] = src[idx + 8]
    assert_same(r.bufs[0], want, "Gather count")
    E = 256 // es
    ps = pairs(E, "cont", mask=E - 3, repeat=2)
    offs = (RNG.integers(0, m, 2 * E) * es).astype(np.uint32)
    d0 = garbage(dt, extent(ps, es, 1, 12) + 4)
    r = ok(drv("gather", [d0, src, offs], dt=dt, form="cont", mask=E - 3, repeat=2, dr=12, base=0))
    want = d0.copy()
    for rr, sl in ps:
        want[off(rr, sl, es, 1, 12)] = src[offs[rr * E + sl] // es]
    assert_same(r.bufs[0], want, "Gather mask")


def test_gather_misaligned_offset(drv):
    offs = np.array([0, 4, 6, 8], dtype=np.uint32)
    r = drv("gather", [garbage("f32", 8), rand("f32", 16), offs], dt="f32", form="count", count=4, base=0)
    assert not r.ok and r.kind == "misaligned"


PATTERN = {
    1: lambda i: i % 2 == 0,
    2: lambda i: i % 2 == 1,
    3: lambda i: i % 4 == 0,
    4: lambda i: i % 4 == 1,
    5: lambda i: i % 4 == 2,
    6: lambda i: i % 4 == 3,
    7: lambda i: True,
}


@pytest.mark.parametrize("dt", ["f16", "f32", "i32"])
@pytest.mark.parametrize("pattern", range(1, 8))
def test_gather_mask_builtin(drv, dt, pattern):
    es = SIZE[dt]
    E = 256 // es
    R, s0r = 2, 10
    x = rand(dt, (R - 1) * s0r * 32 // es + E + 5)
    d0 = garbage(dt, R * E + 5)
    r = ok(drv("gmask", [d0, x], dt=dt, pattern=pattern, repeat=R, s0r=s0r, reduce=0, mask=0))
    kept = [x[rr * s0r * 32 // es + i] for rr in range(R) for i in range(E) if PATTERN[pattern](i)]
    assert int(r.ret.split()[0]) == len(kept)
    want = d0.copy()
    want[: len(kept)] = kept
    assert_same(r.bufs[0], want, f"GatherMask pattern {pattern}")


@pytest.mark.parametrize("dt", ["f16", "f32"])
def test_gather_mask_user_pattern(drv, dt):
    es = SIZE[dt]
    E = 256 // es
    ut = np.uint16 if es == 2 else np.uint32
    # normal mode, 2 repeats, the second repeat's pattern one 32-byte block further on
    pat = RNG.integers(0, 256, 64, dtype=np.uint8).view(ut)
    x = rand(dt, 2 * E + 3)
    d0 = garbage(dt, 2 * E + 5)
    r = ok(drv("gmask", [d0, x, pat], dt=dt, pattern=0, repeat=2, s0r=8, s1r=1, reduce=0, mask=0))
    bits = np.unpackbits(pat.view(np.uint8), bitorder="little")
    kept = [x[rr * E + i] for rr in range(2) for i in range(E) if bits[rr * 256 + i]]
    assert int(r.ret.split()[0]) == len(kept)
    want = d0.copy()
    want[: len(kept)] = kept
    assert_same(r.bufs[0], want, "GatherMask user pattern")
    # counter mode (reduceMode): mask = number of elements, set back to Normal mode afterwards
    n = E + 37
    x = rand(dt, n + 3)
    r = ok(drv("gmask", [d0, x, pat], dt=dt, pattern=0, repeat=1, s0r=8, s1r=0, reduce=1, mask=n, counter_before=1))
    kept = [x[i] for i in range(n) if bits[i]]
    cnt, counter_after = map(int, r.ret.split())
    assert cnt == len(kept) and counter_after == 0
    want = d0.copy()
    want[: len(kept)] = kept
    assert_same(r.bufs[0], want, "GatherMask counter")


@pytest.mark.parametrize("dt", ["f16", "f32", "i32"])
def test_brcb(drv, dt):
    es = SIZE[dt]
    EB = 32 // es
    R, db, dr = 3, 2, 20
    x = rand(dt, R * 8 + 2)
    d0 = garbage(dt, (R - 1) * dr * EB + 7 * db * EB + EB + 6)
    r = ok(drv("brcb", [d0, x], dt=dt, repeat=R, db=db, dr=dr))
    want = d0.copy()
    for rr in range(R):
        for k in range(8):
            s = rr * dr * EB + k * db * EB
            want[s : s + EB] = x[rr * 8 + k]
    assert_same(r.bufs[0], want, "Brcb")


def test_transpose(drv):
    x = rand("f16", 256)
    r = ok(drv("transpose", [garbage("f16", 256), x], dt="f16"))
    assert_same(r.bufs[0], x.reshape(16, 16).T.reshape(-1), "Transpose")


# ----------------------------------------------------------------------------------------------------------------
# sanitizer: UB is one memory with no per-buffer protection, so an overrun inside it is a warning at the user's line
# and really touches the neighbouring buffer; only one reaching past the physical UB fails.
#
# The driver lays its buffers end to end from UB byte 0: b0 (d, 64 floats) at 0, b1 (a) at 256, b2 (b) at 512, b3 (16
# bytes, a 32-byte TBuf) at 768; the rest of the 192 KiB UB is zeros.


@pytest.mark.parametrize(
    "what,kw",
    [
        ("count", {"count": 65}),
        ("repeat", {"repeat": 2}),
        ("view", {"offset": 60, "count": 8}),
        ("gather", {"count": 4}),
        ("reduce", {"repeat": 2, "dr": 70}),
    ],
)
def test_an_overrun_inside_ub_is_a_warning_and_touches_the_neighbour(drv, what, kw):
    d, a, b = garbage("f32", 64), rand("f32", 64), rand("f32", 64)
    idx = np.array([0, 4, 400, 8], dtype=np.uint32)  # byte offsets into a: 400 is b's element 36
    r = ok(drv("oob", [d, a, b, idx], what=what, **kw))
    assert r.warnings == [("ub_out_of_bounds", int(r.ret))], r.warnings
    got_a = r.bufs[1]
    if what == "count":  # element 64 of d is a's first: a[64] (b[0]) + b[64] (idx[0] = 0, the float 0.0)
        assert_same(got_a, np.concatenate([b[:1], a[1:]]), "a, its first element overwritten through d")
        assert_same(r.bufs[0], a + b, "d")
    elif what == "repeat":  # the second repeat writes d[64:128), which is a: b + the bits of idx, then zeros
        tail = np.concatenate([idx.view(np.float32), np.zeros(60, np.float32)])
        assert_same(got_a, b + tail, "a, overwritten by the second repeat")
    elif what == "view":  # d[60:68): its last 4 elements and a's first 4
        assert_same(got_a, np.concatenate([np.exp(a[4:8]), a[4:]]), "a, its first 4 overwritten", rtol=1e-6)
    elif what == "gather":  # the third index reads b[36], 400 bytes into a
        assert_same(r.bufs[0][:4], np.array([a[0], a[1], b[36], a[2]], np.float32), "gathered past a")
    elif what == "reduce":  # the second repeat's sum (of b, a[64:128)) lands at d[70], which is a[6]
        assert got_a[6] == pytest.approx(float(b.astype(np.float64).sum()), rel=1e-5)
        assert_same(np.delete(got_a, 6), np.delete(a, 6), "a, but element 6")


@pytest.mark.parametrize("offset,count", [(49150, 8), (49160, 8)])
def test_an_overrun_past_the_physical_ub_is_an_error_at_the_users_line(drv, offset, count):
    # The UB is 196608 bytes = 49152 floats: d[49150] with 8 elements crosses its end, d[49160] starts past it.
    bufs = [garbage("f32", 64), rand("f32", 64), rand("f32", 64), np.zeros(4, np.uint32)]
    r = drv("oob", bufs, what="view", offset=offset, count=count)
    assert not r.ok and r.kind == "ub_out_of_bounds", r.message
    assert "196608-byte Unified Buffer" in r.message
    assert r.line == int(r.ret), (r.line, r.ret, r.message)
    assert r.file.endswith("vector_driver.cpp")
    assert_same(r.bufs[0], bufs[0], "nothing written by the failing call")


def test_call_shapes_from_public_kernels(drv):
    """Literal scalars of another type, braced repeat parameters, explicit template arguments, ReinterpretCast
    views: the idioms public kernels use compile and run."""
    bufs = [
        rand("f16", 256),
        rand("f16", 256),
        rand("f32", 256, 0.5, 2),
        rand("f32", 256, 0.5, 2),
        np.zeros(64, np.uint8),
        rand("i32", 64),
        np.zeros(256, np.float32),
    ]
    r = ok(drv("shapes", bufs))
    # the last GatherMask keeps the elements whose bit is set in the first 64 bits of b4 (Compare's output)
    assert int(r.ret) == int(np.unpackbits(r.bufs[4][:8]).sum())
    names = [t[0] for t in r.trace]
    assert names.count("GatherMask") == 3 and "Select" in names and "Brcb" in names
