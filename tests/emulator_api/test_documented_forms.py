"""Documented forms of the AscendC API used in ways the other API tests do not, on kernels written for this test
(forms_driver.cpp): an API's address taken with its documented function type, as generic Foreach code passes Sub,
Mul, Max, Adds as template arguments of type `void (*)(const LocalTensor<T>&, const LocalTensor<T>&, const
LocalTensor<T>&, const int32_t&)`; TBuf::Get with a literal 0. A call through a pointer computes what the call does
and records the same instruction on the same pipe; only its line is unknown. Direct calls still name their line.
Then the names of issue 32's list: TQueConfig and the TQue / TQueBind forms that take it, CeilDivision with DivCeil
and AlignUp, the high-level Select with a byte mask and its SelectWithBytesMaskShapeInfo, and the include paths real
kernels use for the library and the basic API's implementation headers (the driver includes a sample of them; every
such path is checked here to forward to a header of the emulator)."""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path

import pytest
from kernel_drivers import build_driver, run_driver

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "forms_driver.cpp"
INCLUDE = HERE.parents[1] / "src" / "tilewise" / "device" / "emulator" / "include"
PIPE_V, PIPE_S = 1, 0

pytestmark = [
    pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed"),
    pytest.mark.xdist_group("test_documented_forms"),
]


def marker_line(name: str) -> str:
    return str(next(i for i, ln in enumerate(DRIVER.read_text().splitlines(), 1) if ln.rstrip().endswith(f"@{name}")))


@pytest.fixture(scope="session")
def run(tmp_path_factory: pytest.TempPathFactory):
    exe = build_driver(tmp_path_factory, DRIVER)
    return lambda case, *args: run_driver(exe, case, *args)


def floats(words: list[str]) -> list[float]:
    return [float(w) for w in words]


def test_apis_called_through_pointers_of_their_documented_types(run):
    o = run("foreach")
    assert o.ok, o.error
    a = list(range(64))
    assert floats(o.lines["sub"]) == [x - 2 for x in a[:4]]
    assert floats(o.lines["mul"]) == [x * 2 for x in a[:4]]
    assert floats(o.lines["max"]) == [2, 2, 2, 3]
    assert floats(o.lines["adds"]) == [x + 0.5 for x in a[:4]]
    assert floats(o.lines["muls"]) == [x * 3 for x in a[:4]]
    assert floats(o.lines["exp"]) == pytest.approx([math.exp(2)] * 2, rel=1e-6)
    # the mask form's 4 lanes, the fifth untouched (it kept exp's value)
    assert floats(o.lines["add_mask"])[:4] == [2, 3, 4, 5]
    assert floats(o.lines["add_mask"])[4] == pytest.approx(math.exp(2), rel=1e-6)
    assert floats(o.lines["sub_bits"]) == [-2, 3]  # lane 0 only; lane 1 kept the mask form's 1 + 2
    vector = [(name, int(pipe), site) for name, pipe, site in o.trace if int(pipe) == PIPE_V]
    assert vector == [
        ("Sub", PIPE_V, "pointer"),
        ("Mul", PIPE_V, "pointer"),
        ("Max", PIPE_V, "pointer"),
        ("Adds", PIPE_V, "pointer"),
        ("Muls", PIPE_V, "pointer"),
        ("Exp", PIPE_V, "pointer"),
        ("Add", PIPE_V, "pointer"),
        ("Sub", PIPE_V, "pointer"),
    ]


def test_direct_calls_still_name_their_line(run):
    o = run("direct")
    assert o.ok, o.error
    assert o.lines["x"] == ["3"]
    sites = {(name, site) for name, _pipe, site in o.trace}
    for name, marker in [
        ("Sub", "sub"),
        ("Adds", "adds"),
        ("Add", "add_mask"),
        ("Mul", "mul_bits"),
        ("Muls", "muls_bits"),
        ("GetValue", "getvalue"),
    ]:
        assert (name, f"here:{marker_line(marker)}") in sites, (name, sorted(sites))


def test_tbuf_get_of_a_literal_zero_is_the_length_form(run):
    o = run("get0")
    assert o.ok, o.error
    assert o.lines["sizes"] == ["0", "128", "16"]


def test_tque_takes_a_tque_config_whose_numbers_must_match_init_buffer(run):
    """TQue简介.md: `template <TPosition pos, int32_t depth, auto mask = 0> class TQue`, the mask a
    `const TQueConfig*` whose bufferLen and bufferNumber, "passed 0, are allocated at InitBuffer", else must be kept
    consistent with InitBuffer's len and num. The reference's example (bufferNumber 1) runs as any queue; a config
    of 2 buffers of 256 bytes against InitBuffer(que, 1, 256) is an error at that InitBuffer."""
    o = run("tque_config")
    assert o.ok, o.error
    assert floats(o.lines["queued"]) == [1.5, 1.5]
    o = run("tque_config", "mismatch")
    kind, line = o.error.split()[:2]
    assert not o.ok and kind == "invalid_argument" and line == marker_line("config_mismatch")
    assert "bufferNumber 2" in o.error


def test_ceil_division_div_ceil_and_align_up(run):
    """CeilDivision.md (0 for a divisor of 0), and DivCeil / AlignUp as the ReduceMax and SoftmaxFlashV2 examples
    call them (checked at compile time in the driver); a kernel's own AlignUp of another meaning is still the one an
    unqualified call beside `using namespace AscendC` reaches (10 halves aligned to 32 bytes: 16 elements)."""
    o = run("align")
    assert o.ok, o.error
    assert o.lines["align"] == ["32", "2", "16"]


def test_select_with_a_byte_mask(run):
    """Select.md (数据过滤): "when the mask value is 0 the element comes from src0, otherwise from src1", rows of
    srcLastAxis elements, the mask's rows maskLastAxis long of which the extra part is dropped (here the mask's
    elements 16..31 of each row are all true and must not matter). Mask true at columns 1, 4, 7, ..., 13."""
    o = run("select_bm")
    assert o.ok, o.error
    src = list(range(32))
    true = [c % 16 % 3 == 1 for c in range(32)]
    assert floats(o.lines["tensor_first"]) == [35.5 if t else float(x) for x, t in zip(src, true, strict=True)]
    assert floats(o.lines["scalar_first"]) == [float(x) if t else -1.0 for x, t in zip(src, true, strict=True)]
    steps = [name for name, pipe, _site in o.trace if int(pipe) == PIPE_V]
    assert steps == ["GatherMask", "Cast", "Compare", "Select"] * 2  # mask rows of 32 for source rows of 16


@pytest.mark.parametrize(
    "args,kind,words",
    [
        (["tmp=64"], "work_buffer_too_small", "at least 288"),
        (["mask_last=24"], "invalid_argument", "multiple of 16"),
        (["mask_last=16"], "invalid_argument", "32-byte aligned"),  # 16 bools are 16 bytes
    ],
)
def test_select_with_a_byte_mask_checks_the_references_constraints(run, args, kind, words):
    """Select.md: "maskTensor's last axis must be 32-byte aligned and a multiple of 16 elements"; sharedTmpBuffer
    "sized by GetSelectMaxMinTmpSize" (its minimum here: the mask widened to half for one 128-element repeat, 256
    bytes, and its compare bits, 32)."""
    o = run("select_bm", *args)
    assert not o.ok and o.error.split()[:2] == [kind, marker_line("select_bm")]
    assert words in o.error


def test_library_forms_of_the_gaps_list(run):
    """The library's documented forms the emulator lacked: Sigmoid and Xor over the whole destination, the library's
    Axpy (src * scalar + dst), Exp<T, taylorExpandLevel> (e^x), ReduceXorSum (the sum of the element-wise xors,
    "a result beyond [-32768, 32767] gives -32768 or 32767"), ReduceMean over the AR pattern and ReduceSum over RA
    without a sharedTmpBuffer. x = i / 8 - 2, a = i, b = 3."""
    o = run("library_forms")
    assert o.ok, o.error
    assert not [k for k in o.lines if k.startswith("warn:")]
    x = [i / 8 - 2 for i in range(64)]
    assert floats(o.lines["sigmoid"]) == pytest.approx([1 / (1 + math.exp(-v)) for v in x[:2]], rel=1e-6)
    assert floats(o.lines["exp"]) == pytest.approx([math.exp(v) for v in x[:2]], rel=1e-6)
    assert floats(o.lines["axpy"]) == [2 * v + 1 for v in x[:3]] + [1]
    assert floats(o.lines["xor"]) == [i ^ 3 for i in range(4)]
    assert o.lines["xorsum"] == ["6"] and o.lines["xorsum_sat"] == ["32767"]
    assert floats(o.lines["mean_ar"]) == pytest.approx([sum(x[:32]) / 32, sum(x[32:]) / 32])
    assert floats(o.lines["sum_ra"]) == pytest.approx([x[0] + x[32], x[1] + x[33]])
    steps = [name for name, pipe, _ in o.trace if int(pipe) == PIPE_V]
    assert steps[:5] == ["Sigmoid", "Cast", "Cast", "Sub", "Exp"] and steps.count("Muls") >= 4 + 1


def test_tensor_members_and_scalar_names_of_the_reference(run):
    """ShapeInfo (the shape given as its own original one), DataFormat, the user tag, PrimType, SetAddrWithOffset in
    the source's elements, SetBufferLen, Print one 32-byte block a line, DumpAccChkPoint from its offset, the repeat
    parameters' reserved fields, and the scalar Cast forms and bit counts on the reference's examples (Cast(3.14159f)
    is 3.140625; CountLeadingZero(0x0100000000000020) is 7; GetSFFValue<1>(0x1000000000000100) is 8)."""
    o = run("tensor_members")
    assert o.ok, o.error
    assert o.lines["shape"] == ["2", "16", "0", "64", "10"]
    assert o.lines["prim"] == ["1"] and o.lines["offset"] == ["1"] and o.lines["len"] == ["4"]
    assert o.lines["0000:"] == ["16", "17", "18", "19"]  # Print: the 4 elements SetBufferLen left, one block a line
    assert o.lines["gshape"] == ["4"]
    assert o.lines["DumpTensor:"][0] == "desc=5," and o.lines["[32,"] == ["33]"]
    assert o.lines["reserved"] == ["8", "1", "0"]
    assert floats(o.lines["cast"]) == [3.140625, 1.0, -3.0]
    assert o.lines["bits"] == ["7", "8", "8"]


def test_compares_is_compare_scalar_under_its_current_name(run):
    """x = i - 3.5: LT 0.5 sets the first four bits of byte 0; GE 56 sets the top bits of byte 7 (elements 60 to 63)
    even with a mask of 8 given, as the A2 ignores the mask forms' mask. The instruction is the scalar compare."""
    o = run("compares")
    assert o.ok, o.error
    assert o.lines["compares_count"] == ["15", "0"]
    assert o.lines["compares_mask"] == ["0", str(0b11110000)]
    assert ("CompareScalar", f"here:{marker_line('compares')}") in {(n, site) for n, _p, site in o.trace}


def test_a_kernel_that_runs_out_of_memory_is_one_clear_error(run):
    """A block that exhausts memory (most often its trace, when a tiling makes millions of tiny steps) ends with an
    out_of_memory error saying how many instructions it recorded and what to check, not a bare std::bad_alloc."""
    o = run("out_of_memory")
    assert not o.ok and o.error.startswith("out_of_memory")
    assert "recording 1 instructions" in o.error and "tiles of 0 or a few elements" in o.error


def test_trap_ends_the_block_at_its_line(run):
    o = run("trap")
    assert not o.ok and o.error.startswith(f"trap {marker_line('trap')} ")


def test_mul_add_relu_clamps_src0_times_dst_plus_src1(run):
    o = run("mul_add_relu")
    assert o.ok, o.error
    assert floats(o.lines["mul_add_relu"]) == [max(0.0, (i - 32) * 1 + 2) for i in range(64)]
    assert ("MulAddRelu", f"here:{marker_line('mul_add_relu')}") in {(n, site) for n, _p, site in o.trace}


FORWARD = re.compile(r'^// An include path of [^\n]+\n#pragma once\n#include "([^"]+)"\n$')


def test_the_include_paths_real_kernels_use_forward_to_the_emulators_headers():
    """Each AscendC include path the emulator accepts for the library (lib/<area>/... and adv_api/<area>/..., the
    kernel headers and their host tiling headers), the basic API's headers (basic_api/..., and the older top-level
    kernel_operator_*_intf.h) and the implementation headers real kernels include (impl/dav_c220/...,
    impl/basic_api/dav_c220/...) is a forwarder to a header that exists; issue 32's examples and one per documented
    high-level math API of the A2 are among them."""
    forwarders = {}
    for path in INCLUDE.rglob("*.h"):
        m = FORWARD.match(path.read_text())
        if m:
            forwarders[path.relative_to(INCLUDE).as_posix()] = m.group(1)
    for rel, target in forwarders.items():
        assert (INCLUDE / target).is_file() and not FORWARD.match((INCLUDE / target).read_text()), (rel, target)
    math_apis = [
        *("acos", "acosh", "asin", "asinh", "atan", "atanh", "axpy", "ceil", "cos", "cosh", "cumsum", "digamma"),
        *("erf", "erfc", "exp", "floor", "fmod", "frac", "lgamma", "log", "power", "round", "sign", "sin", "sinh"),
        *("tan", "tanh", "trunc", "xor"),
    ]
    expected = [f"{root}/math/kernel_operator_{a}_intf.h" for a in math_apis for root in ("lib", "adv_api")]
    expected += [f"lib/math/{a}_tiling.h" for a in math_apis if a not in ("cumsum", "fmod", "xor", "axpy")]
    expected += [
        "impl/dav_c220/kernel_operator_reg_others_impl.h",
        "basic_api/kernel_operator_vec_binary_scalar_intf.h",
        "lib/activation/kernel_operator_sigmoid_intf.h",
        "tiling/math/power_tiling.h",
    ]
    assert [p for p in expected if p not in forwarders] == []
    assert forwarders["lib/math/sin_tiling.h"] == "tiling/tiling_api.h"
    assert (INCLUDE / "tiling" / "tiling_type.h").is_file() and (INCLUDE / "error" / "ops_error.h").is_file()
