"""Kernel-side API names public operators of the corpus needed (breadth of the 910B vector-core surface), on small
kernels written for this test (breadth_driver.cpp): AscendC::printf / PRINTF, DumpTensor, ToFloat / ToBfloat16,
AscendC::Std, BroadCast (the 8.0 name of Broadcast), the vcmax / vcmin intrinsics with an Order_t operand, K_MAX_DIM,
__mix__, GetMrgSortResult and the library-internal macros kernels copied from the library use. Expected values
follow the API reference; each test fails if its form stops compiling (the driver is built once for the module,
warnings as errors) or changes meaning."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from kernel_drivers import build_driver

HERE = Path(__file__).resolve().parent
CXX = shutil.which("g++")

# One worker runs this module (--dist loadgroup) and its session fixture compiles there once, whatever runs between.
pytestmark = [
    pytest.mark.skipif(CXX is None, reason="g++ is not installed"),
    pytest.mark.xdist_group("test_breadth_api"),
]


@pytest.fixture(scope="session")
def run(tmp_path_factory: pytest.TempPathFactory):
    exe = build_driver(tmp_path_factory, HERE / "breadth_driver.cpp")

    def go(case: str) -> list[str]:
        p = subprocess.run([str(exe), case], capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        lines = p.stdout.splitlines()
        assert lines[-1] == "result ok", lines[-1]
        return lines[:-1]

    return go


def test_printf_prints_the_c_formats(run):
    assert run("printf") == ["pf 7 seven 1.50", "pf2 3", "pf3 plain"]


def test_dump_tensor_prints_desc_and_values(run):
    lines = run("dump")
    heads = [ln for ln in lines if ln.startswith("DumpTensor:")]
    values = [ln for ln in lines if ln.startswith("[")]
    assert [h.split(",")[0] for h in heads] == [
        "DumpTensor: desc=5",
        "DumpTensor: desc=6",
        "DumpTensor: desc=7",
        "DumpTensor: desc=8",
    ]
    assert heads[0].endswith("position=UB") and heads[2].endswith("position=GM")
    # the dump stops at the tensor's end (two elements are left from element 6)
    assert values == ["[1, 2, 3, 4]", "[7, 8]", "[10, 20, 30]", "[1, 2, 3, 4]"]


def test_bfloat16_scalar_conversions(run):
    (to_bf16,) = [ln for ln in run("bf16_scalars") if ln.startswith("to_bf16")]
    # 3.0 is 0x4040; 1 + 2^-8 is halfway between 0x3F80 and 0x3F81 (to even: 0x3F80); 1 + 3 * 2^-9 rounds up
    assert to_bf16.split()[1:] == [str(0x4040), str(0x3F80), str(0x3F81)]
    (to_float,) = [ln for ln in run("bf16_scalars") if ln.startswith("to_float")]
    assert to_float.split()[1:] == ["1.5", "-123.5"]


def test_std_library(run):
    assert run("std") == ["std 3 3 2.5 5 0.5"]


def test_broadcast_under_its_old_name(run):
    (line,) = run("broadcast_old_name")
    assert line.split()[1:] == ["1"] * 16 + ["2"] * 16


def test_library_macros_are_dropped_unevaluated(run):
    assert run("library_macros") == ["macros 0 12"]


def test_vcmax_vcmin_with_their_order_operand(run):
    lines = run("vcmax_order")
    # VALUE_INDEX: (100, index 10); ONLY_VALUE: 100; ONLY_INDEX of the minimum: 20; INDEX_VALUE: (20, -5)
    assert lines == ["vcmax 100 10 100", "vcmin 20 20 -5"]


def test_names_of_newer_releases(run):
    assert run("newer_names") == ["names 8 8", "pipe 1"]


def test_get_mrgsort_result_counts_what_each_list_gave(run):
    # the merge's 4th structure is 6 (the second list's last); the 6th is 3 (the first list's last)
    assert run("mrgsort_result") == ["exhausted 2 2 0 0 6", "all 4 2 0 0 3"]
