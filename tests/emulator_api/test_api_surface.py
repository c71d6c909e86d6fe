"""The emulator's API surface that public AscendC kernels use beyond the core calls, on small kernels written for
this test (api_driver.cpp): the `float32_t` alias and constexpr `half` constants, TBuf's Get / GetWithOffset forms,
LocalTensor element access with every index type, and the lower-case legacy intrinsics (core identity, set_flag /
wait_flag, the mask register, vadd-style repeat instructions on UB addresses, burst copies, atomic mode). Expected
values follow the instructions' documented semantics; the trace must name the AscendC instruction each intrinsic
is (so the timing model costs it as that instruction, on its pipe)."""

from __future__ import annotations

import math
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from kernel_drivers import build_driver, run_driver

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "src" / "tilewise" / "device" / "emulator" / "include"
HERE = Path(__file__).resolve().parent
CXX = shutil.which("g++")
PIPE_V, PIPE_MTE2, PIPE_MTE3, PIPE_S = 1, 4, 5, 0

# One worker runs this module (--dist loadgroup) and its session fixture compiles there once, whatever runs between.
pytestmark = [
    pytest.mark.skipif(CXX is None, reason="g++ is not installed"),
    pytest.mark.xdist_group("test_api_surface"),
]


def line_of(needle: str) -> str:
    """Line number (as printed) of the driver line containing `needle`."""
    text = (HERE / "api_driver.cpp").read_text().splitlines()
    return str(next(i for i, line in enumerate(text, 1) if needle in line))


@dataclass
class Out:
    values: dict[str, list[float]] = field(default_factory=dict)
    ok: bool = False
    error: str = ""
    trace: list[tuple[str, int]] = field(default_factory=list)


@pytest.fixture(scope="session")
def run(tmp_path_factory: pytest.TempPathFactory):
    exe = build_driver(tmp_path_factory, HERE / "api_driver.cpp")

    def go(case: str) -> Out:
        r = run_driver(exe, case)
        return Out(
            {k: [float(v) for v in words] for k, words in r.lines.items()},
            r.ok,
            r.error,
            [(name, int(pipe)) for name, pipe in r.trace],
        )

    return go


def test_float32_alias_and_constexpr_half(run):
    o = run("aliases")
    assert o.ok, o.error
    assert o.values["f32"] == [1.5, 1.5]
    # constexpr half MIN_VALUE = static_cast<half>(-65504.0f), a constexpr 0.25 and a constexpr bfloat16 3.0
    assert o.values["half"] == [-65504.0, 0.25, 3.0]
    assert o.values["dup"] == [-65504.0, -65504.0]
    assert o.values["acl"] == [0x3C00, -2.5, 0]  # aclFloatToFloat16(1.0) is binary16 0x3C00; ACL_ERROR_NONE is 0


def test_tbuf_get_forms_view_the_same_buffer_and_check_bounds(run):
    o = run("tbuf")
    # Get<float>() of 1024 bytes, Get<float>(64), GetWithOffset<int32_t>(32, 512), Get<half>() of a 256-byte TBuf<>
    assert o.values["sizes"] == [256, 64, 32, 128]
    assert o.values["addr"] == [0, 512, 1024]  # UB byte offsets: the second TBuf follows the first
    assert o.values["alias"] == [7]  # byte 512 is int32 element 128 of the whole-buffer view
    # The write 4 bytes past the buffer is a warning and lands in the next buffer (UB has no per-buffer
    # protection); only the access past the physical UB stops the run.
    assert o.values["warn:ub_out_of_bounds"] == [float(line_of("the access past the buffer's end"))]
    assert o.values["neighbour"] == [1.0]
    assert not o.ok and o.error.split()[:2] == ["ub_out_of_bounds", line_of("past the physical UB")]


def test_local_tensor_access_with_every_index_type(run):
    o = run("index")
    assert o.ok, o.error
    # t[5] = 11 + 12 + 13 + 14; t[1][2] is t[3] = 13, t[3](1) is t[4] = 14, t[4][5] is t[9] = 100
    assert o.values["values"] == [50, 127, 14]


def test_legacy_vector_intrinsics_follow_the_mask_register(run):
    o = run("legacy_vector")
    assert o.ok, o.error
    x = list(range(256))
    # mask 0xF: slots 0..3 of each of 2 repeats computed, the rest untouched (-1)
    assert o.values["vadd"] == [v + 0.5 for v in x[:4]] + [-1.0] * 4
    assert o.values["vadd_r1"] == [v + 0.5 for v in x[64:68]] + [-1.0]
    assert o.values["vmuls"] == [120, 122, 124, 126, 64.5, 65.5]  # one full repeat: elements 0..63 only
    assert o.values["vexp"] == pytest.approx([20.085537], rel=1e-6)
    assert o.values["vcadd"] == [sum(x[:64]), sum(x[64:128])]
    assert o.values["vcmax"] == [0.5]
    # counter mode: 70 elements whatever the repeat argument; element 70 keeps the earlier vexp result
    assert o.values["vadds_count"][:2] == [69, 70]
    assert o.values["vadds_count"][2] == pytest.approx(20.085537, rel=1e-6)
    assert o.trace == [
        ("Add", PIPE_V),
        ("Muls", PIPE_V),
        ("Duplicate", PIPE_V),
        ("Exp", PIPE_V),
        ("WholeReduceSum", PIPE_V),
        ("WholeReduceMax", PIPE_V),
        ("Adds", PIPE_V),
    ]


def test_legacy_burst_copies_gaps_and_atomic_add(run):
    o = run("legacy_copy")
    assert o.ok, o.error
    gm_in = list(range(64))
    burst = gm_in[0:8] + gm_in[16:24]  # srcGap of one block between the two bursts
    assert o.values["gm1"] == [2 * v for v in burst[:8]] + burst[8:]  # then out[0..7] += in[0..7] atomically
    assert o.values["ub_copy"] == [0, 1]
    assert o.trace == [
        ("DataCopy", PIPE_MTE2),
        ("DataCopy", PIPE_MTE3),
        ("SetAtomicAdd", PIPE_S),
        ("DataCopy", PIPE_MTE3),
        ("SetAtomicNone", PIPE_S),
        ("DataCopy", PIPE_V),
    ]


def test_legacy_wait_flag_without_set_flag_hangs(run):
    o = run("legacy_flags_unpaired")
    kind, line = o.error.split()[:2]
    assert (kind, line) == ("unpaired_flag", line_of("never set")) and "MTE2_V" in o.error


def test_legacy_core_identity(run):
    o = run("identity")
    assert o.ok, o.error
    assert o.values["gm0_i64"] == [0 * 100 + 30, 1 * 100 + 30, 2 * 100 + 30]


def f32(v) -> np.ndarray:
    return np.asarray(v, dtype=np.float32)


def test_fused_arithmetic_count_and_mask_forms(run):
    o = run("fused")
    assert o.ok, o.error
    k = np.arange(64, dtype=np.float32)
    a, b, d = k / f32(4) - f32(8), f32(1.5) - k / f32(8), np.full(64, 2, np.float32)
    want = {
        "AddRelu": np.maximum(a + b, 0),
        "SubRelu": np.maximum(a - b, 0),
        "FusedMulAdd": a * d + b,
        "FusedMulAddRelu": np.maximum(a * d + b, 0),
        "MulAddDst": a * b + d,
    }
    for name, w in want.items():
        np.testing.assert_array_equal(f32(o.values[name]), w.astype(np.float32), err_msg=name)
    np.testing.assert_array_equal(f32(o.values["FusedMulAdd_mask"]), np.r_[(a * d + b)[:8], 2, 2])
    assert o.values["CreateVecIndex"] == [-5, -4, -3, -2, -1, 0]
    m = np.r_[(a * d + b)[:8], 2, 2, 2, 2].astype(np.float32)
    m[[5, 1, 7, 2]] = a[:4]  # Scatter to byte offsets 4 + (16, 0, 24, 4)
    m[8:12] = [0.5, 0.25, 0.0, -0.25]  # Arange(0.5, -0.25)
    np.testing.assert_array_equal(f32(o.values["Scatter"]), m)
    assert o.values["RepeatReduceSum"] == [float(a[:16].sum()), float(a.sum())]
    assert [t for t, _ in o.trace if t != "Duplicate"] == list(want) + [
        "FusedMulAdd",
        "CreateVecIndex",
        "Scatter",
        "ArithProgression",
        "WholeReduceSum",
        "WholeReduceSum",
    ]


def test_high_level_math(run):
    o = run("math")
    assert o.ok, o.error
    k = np.arange(64, dtype=np.float32)
    x = (k / f32(10) - f32(3.2)).astype(np.float64)
    y = (f32(0.05) + k / f32(32)).astype(np.float64)
    even = np.round(x)  # Round: the nearest integer, halves to even (asc-devkit's adv_api/math/round.h says so)
    want = {
        "Tanh": np.tanh(x),
        "Sin": np.sin(x),
        "Cos": np.cos(x),
        "Atan": np.arctan(x),
        "Asinh": np.arcsinh(x),
        "Erf": np.array([math.erf(v) for v in x]),
        "Log2": np.log2(y),
        "Floor": np.floor(x),
        "Ceil": np.ceil(x),
        "Round": even,
        "Trunc": np.trunc(x),
        "Frac": x - np.trunc(x),
        "Sign": np.sign(x),
        "PowerTT": y**x,
        "PowerTS": x**3,
        "PowerST": 2.0**x,
        "Fmod": np.fmod(x, y),
        "ClampMax": np.minimum(x, 1.25),
        "ClampMin": np.maximum(x, -0.5),
        "Silu": x / (1 + np.exp(-x)),
        "Swish": x / (1 + np.exp(-1.5 * x)),
        "Gelu": x / (1 + np.exp(-1.59576912 * (x + 0.044715 * x**3))),
        "FasterGelu": x / (1 + np.exp(-1.702 * x)),
    }
    for name, w in want.items():
        np.testing.assert_allclose(o.values[name], w.astype(np.float32), rtol=2e-6, atol=1e-7, err_msg=name)
    np.testing.assert_allclose(o.values["Acos"][:16], np.arccos(y[:16]).astype(np.float32), rtol=2e-6)
    assert o.values["Round"][32 + 3] == 0.0 and even[62] == 3.0  # 0.1 -> 0, 3.0 -> 3
    ties = (np.arange(64) % 8) - 3.5
    assert o.values["RoundTies"] == list(np.round(ties))  # -3.5 -> -4, -2.5 -> -2, 0.5 -> 0, 1.5 -> 2
    i = (np.arange(16) * 37 - 200).astype(np.int16)
    assert o.values["Xor"] == list(np.bitwise_xor(i[:8], i[8:16]))
    assert o.values["PowerInt"] == [(v - 2) ** 3 for v in range(8)]
    # Tanh is costed as the basic instructions of (e^2x - 1) / (e^2x + 1), each on the vector pipe
    assert o.trace[:5] == [("Muls", PIPE_V), ("Exp", PIPE_V), ("Adds", PIPE_V), ("Adds", PIPE_V), ("Div", PIPE_V)]
    assert all(pipe == PIPE_V for _, pipe in o.trace)


def test_scalar_unit_bit_counting_and_casts(run):
    o = run("scalar_unit")
    assert o.ok, o.error
    # SFF: first 1 of 0b1000 at bit 3, first 0 of 0b0111 at bit 3, no 0 in all-ones: -1; CLZ(1) = 63, CLZ(0) = 64;
    # bits of value 1 / 0 in 0xF0; bits after the sign equal to it: 0 and -1 -> 63, 1 and -2 -> 62;
    # float -> int32: ROUND(2.5) = 3, RINT(2.5) = 2, FLOOR(-1.5) = -2, TRUNC(-1.5) = -1, 3e9 saturates
    assert o.values["scalar"] == [3, 3, -1, 63, 64, 4, 60, 63, 63, 62, 62, 3, 2, -2, -1, 2147483647]
    # float -> half: TRUNC drops 1.0014 to 1 + 2^-10, CEIL lifts 1.0004 to 1 + 2^-10
    assert o.values["scalar_half"] == pytest.approx([1.0009765625, 1.0009765625], rel=1e-8, abs=0)


def test_local_mem_allocator_and_in_place_queue_forms(run):
    o = run("allocator")
    assert o.values["alloc"] == [0, 416, 448, 480, 100]  # 400 bytes of float rounded up to 416, then 32, then 32
    assert o.values["inplace"] == [42, 64]
    assert o.error.split()[:2] == ["ub_out_of_bounds", line_of("480 bytes short")]


def test_ib_set_and_wait_order_two_blocks(run):
    o = run("ib_sync")
    assert o.ok, o.error
    assert o.values["gm1_i32"][:2] == [41, 42]  # block 1 read block 0's value only after IBWait


def test_cross_core_flags(run):
    o = run("cross_core")
    assert o.ok, o.error
    # mode 0: every block saw all three published values; mode 1 waits on the core itself
    assert o.values["gm1_i32"][8:11] == [60, 60, 60]
    o = run("cross_core_cube")  # mode 2 pairs with a cube core, which the emulator does not run
    assert o.error.split()[:2] == ["unsupported", line_of("never runs here")]
    assert o.trace == [("CrossCoreSetFlag", PIPE_MTE3)]


def test_set_atomic_type_chooses_the_accumulated_element_type(run):
    o = run("atomic_type")
    assert o.ok, o.error
    assert o.values["gm1_i32"] == [2 * (1000 * k - 3) for k in range(16)]


def test_init_global_memory_fills_the_span_only(run):
    o = run("init_gm")
    assert o.ok, o.error
    assert o.values["gm1"] == [-1.0] * 4 + [0.0] * 8 + [2.5, 2.5] + [-1.0] * 2
    assert o.trace == [("InitGlobalMemory", PIPE_MTE3), ("InitGlobalMemory", PIPE_MTE3)]


@pytest.mark.parametrize("tag", ["f32", "f16"])
def test_sort32_mrgsort_sort_and_extract(run, tag):
    o = run("sort")
    assert o.ok, o.error
    k = np.arange(64)
    score = (k * 37) % 64 // 2 - 10  # every value twice
    order = np.argsort(-score, kind="stable")  # largest first, ties in input order
    assert o.values[f"{tag}_values"] == list(score[order])
    assert o.values[f"{tag}_index"] == list(100 + order)  # two Sort32 runs merged by MrgSort
    assert o.values[f"{tag}_taken"] == [32, 32]
    assert o.values[f"{tag}_full"] == list(100 + order)  # Sort<T, isFullSort = true> after Concat
    run0 = np.argsort(-score[:32], kind="stable")[:4]  # the first 4 of run 0, then all of run 1
    run1 = 32 + np.argsort(-score[32:], kind="stable")
    merged = sorted(
        [(score[i], 0, n, i) for n, i in enumerate(run0)] + [(score[i], 1, n, i) for n, i in enumerate(run1)],
        key=lambda t: (-t[0], t[1], t[2]),
    )
    taken0 = next(j for j in range(len(merged)) if sum(t[1] == 0 for t in merged[: j + 1]) == 4)
    # isExhaustedSuspension: stops right after the 4-element list's last element went out
    assert o.values[f"{tag}_suspended"] == [4, taken0 + 1 - 4]
    assert o.values[f"{tag}_basic"] == [100 + t[3] for t in merged[:32]]


def test_datacopypad_brace_lists_and_bfloat16_from_uint64(run):
    o = run("pad_braces")
    assert o.ok, o.error
    assert o.values["pad"] == list(range(3, 11)) + list(range(20, 28))
    assert o.values["bf16"] == [3]


def test_wait_pre_block_orders_the_blocks(run):
    o = run("ordered")
    assert o.ok, o.error
    got = o.values["gm1_i32"]
    assert got[:4] == [0, 1, 2, 3] and got[15] == 4  # in block order although block 3 was ready first
    assert got[8] == 20 * 100 + 40  # GetSortLen: 10 structures = 20 floats, 40 halves
    assert got[9] == 0  # DisableDmaAtomic turned SetAtomicAdd off


def test_pattern_reduce_and_broadcast(run):
    o = run("pattern")
    r, c = np.meshgrid(np.arange(4), np.arange(8), indexing="ij")
    x = ((r + 1) * (c - 3)).astype(np.float32)
    assert o.values["sum_ar"] == list(x.sum(axis=1))
    assert o.values["sum_ra"] == list(x.sum(axis=0))
    assert o.values["max_ar"] == list(x.max(axis=1))
    assert o.values["min_ra"] == list(x.min(axis=0))
    flat = x.reshape(-1)
    assert o.values["bcast_col"] == list(np.repeat(flat[:4], 8))
    assert o.values["bcast_row"] == list(np.tile(flat[:8], 4))
    assert o.values["bcast_one"][:5] == [flat[7]] * 5 and o.values["bcast_one"][5] == flat[5]  # element 5 kept
    assert o.error.split()[:2] == ["unsupported", line_of("unaligned inner axis")]
