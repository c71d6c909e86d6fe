"""The AscendC C API (`#include "c_api/asc_simd.h"`, `asc_*` functions) on small kernels written for this test
(capi_driver.cpp), and the build step that places `__ubuf__` arrays in the emulated Unified Buffer
(device/emulator/ubuf_arrays.py). Expected values follow the C API reference: count forms compute the first `count`
elements, repeat forms take their lanes from the mask register (the reference's 0b0101... int32 example), `_sync`
forms wait for every pipe, copies move 32-byte blocks (or bytes, for the _align forms) on MTE2 / MTE3, and
asc_sync_notify / asc_sync_wait are the hardware events between two pipes."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
from kernel_drivers import build_driver, run_driver

from tilewise.device.emulator.ubuf_arrays import rewrite_ubuf_arrays

# One worker runs this module (--dist loadgroup) and its session fixture compiles there once, whatever runs between.
pytestmark = pytest.mark.xdist_group("test_c_api")

HERE = Path(__file__).resolve().parent
PIPE_S, PIPE_V, PIPE_MTE2, PIPE_MTE3 = 0, 1, 4, 5

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")


def line_of(text: str, marker: str) -> int:
    """The 1-based line of the driver holding `marker` (the rewrite keeps every line in place)."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if marker in line)


@pytest.fixture(scope="session")
def run(tmp_path_factory: pytest.TempPathFactory):
    source = (HERE / "capi_driver.cpp").read_text()
    rewritten = tmp_path_factory.mktemp("capi_src") / "capi_driver.cpp"
    rewritten.write_text(rewrite_ubuf_arrays(source))
    exe = build_driver(tmp_path_factory, rewritten)
    return lambda case: run_driver(exe, case)


def nums(words: list[str]) -> list[float]:
    return [float(w) for w in words]


def test_rewrite_keeps_lines_and_leaves_other_declarations_alone():
    src = (
        "__ubuf__ float global_one[8];\n"
        "void k(__ubuf__ float* p) {\n"
        "    __ubuf__ float x[2 *\n      N];  // __ubuf__ float c[3];\n"
        "    __ubuf__ S s{};\n"
        "    __ubuf__ float* q = p;\n"
        '    const char* t = "__ubuf__ float d[4];";\n'
        "}\n"
    )
    out = rewrite_ubuf_arrays(src)
    assert out.count("\n") == src.count("\n")
    assert out.startswith("__ubuf__ float global_one[8];")  # namespace scope: left to the compiler
    assert '__ubuf__ float* const x = ::tw::ub_array<float>((2 * N), "x", __FILE__, __LINE__);' in out
    assert '__ubuf__ S& s = ::tw::ub_object<S>("s", __FILE__, __LINE__);' in out
    assert "// __ubuf__ float c[3];" in out and '"__ubuf__ float d[4];"' in out
    assert "__ubuf__ float* q = p;" in out


def test_sync_forms_compute_the_first_count_elements(run):
    o = run("sync_add")
    assert o.ok, o.error
    gm1 = nums(o.lines["gm1"])
    assert gm1[:40] == [0.5 * i + 2.0 for i in range(40)]
    assert gm1[40:48] == [-1.0] * 8  # past count: untouched
    assert o.lines["mode"] == ["0"]  # the count form leaves the core in normal mask mode
    assert o.lines["offsets"] == ["0", "256", "512"]  # UB from address 0, in declaration order
    names = [(name, int(pipe)) for name, pipe, _ in o.trace]
    assert ("DataCopy", PIPE_MTE2) in names and ("Add", PIPE_V) in names and ("DataCopy", PIPE_MTE3) in names
    assert not any(k == "warning" for k in o.lines)


def test_repeat_form_takes_lanes_from_the_mask_register(run):
    o = run("repeat_mask")
    assert o.ok, o.error
    assert nums(o.lines["dst"]) == [2, 0, 6, 0, 10, 0, 14, 0]  # the reference: [2 undefined 6 ...]


def test_burst_copies_and_events(run):
    o = run("events")
    assert o.ok, o.error
    assert nums(o.lines["gm1"])[:16] == [3 * 0.5 * (16 + i) for i in range(16)]
    assert "warning" not in o.lines
    copies = [(int(pipe), int(nbytes)) for name, pipe, nbytes in o.trace if name == "DataCopy"]
    assert copies == [(PIPE_MTE2, 64), (PIPE_MTE3, 64)]


def test_a_missing_event_is_a_race(run):
    o = run("missing_event")
    assert o.ok, o.error
    line = line_of((HERE / "capi_driver.cpp").read_text(), "the racecheck's warning")
    assert o.lines.get("warning") == ["race", str(line)]


def test_a_wait_without_notify_hangs(run):
    o = run("wait_without_notify")
    assert not o.ok and o.error.startswith("unpaired_flag")


def test_ubuf_arrays_are_laid_out_in_the_ub(run):
    o = run("layout")
    assert o.ok, o.error
    # 5 bytes at 0, 6 at 32, the loop's array at 64 every time, the struct after it at 96
    assert o.lines["layout"] == ["0", "32", "64", "64", "64", "96"]
    assert o.lines["pair"] == ["0", "0"]


def test_ubuf_arrays_past_the_ub_are_an_error(run):
    o = run("ub_overflow")
    line = line_of((HERE / "capi_driver.cpp").read_text(), "__ubuf__ float more[10000];")
    assert o.error.startswith(f"ub_out_of_bounds {line} ")


def test_a_size_that_is_not_whole_blocks_drops_the_tail(run):
    o = run("unaligned_size")
    assert o.ok, o.error
    line = line_of((HERE / "capi_driver.cpp").read_text(), "asc_copy_gm2ub_sync(x, G<float>(0), 40);")
    assert o.lines["warning"] == ["misaligned", str(line)]
    assert nums(o.lines["x"]) == [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 7.0, 7.0]  # one 32-byte block moved


def test_unary_scalar_fused_align_and_scalar_unit(run):
    o = run("math")
    assert o.ok, o.error
    assert nums(o.lines["relu"]) == [0, 0, 0, 1]
    assert nums(o.lines["maxs"]) == [1.5, 1.5, 1.5, 1.5]
    assert nums(o.lines["exp"]) == pytest.approx([math.exp(v) for v in (-2, -1, 0, 1)], rel=1e-6)
    assert nums(o.lines["muladd"]) == [-2 * 10 + 2, -1 * 10 + 2, 2, 12]  # dst = src0 * dst + src1
    assert nums(o.lines["fma"]) == [-2 * 2 + 10, -1 * 2 + 10, 10, 12]  # dst = src0 * src1 + dst
    assert nums(o.lines["shl"]) == [4, 8, 12, 16]
    assert nums(o.lines["align"]) == [0.5, 1.0, 1.5, 0.0]  # 12 bytes from element 1; the 4th float untouched
    # popc(0xF0F0) = 8; ffz(33) = 1 (the reference's example); ffs(40) = 3; clz(1) = 63; sflbits(-1) = 63
    assert o.lines["scalar"] == ["8", "1", "3", "63", "63"]
    assert o.lines["ids"] == ["0", "1", "0", "1"]
    pipes = {name: int(pipe) for name, pipe, _ in o.trace}
    assert pipes["Relu"] == pipes["Maxs"] == pipes["Exp"] == pipes["FusedMulAdd"] == pipes["MulAddDst"] == PIPE_V
    assert pipes["DataCopyPad"] in (PIPE_MTE2, PIPE_MTE3)


def test_sync_mte_pairs_its_own_events(run):
    o = run("sync_mte")
    assert o.ok, o.error
    assert nums(o.lines["gm1"])[:8] == [0.5 * i for i in range(8)]


def test_atomic_add_accumulates_into_gm(run):
    o = run("atomic_add")
    assert o.ok, o.error
    assert nums(o.lines["acc"]) == [1.5, 2.0, 2.5]  # 0.5 * i + 1.5
    assert nums(o.lines["gm1"])[:3] == [1.5, 1.5, 1.5]  # atomic none again: a plain copy
