"""Kernel-side API that ATB (mki) kernels call, on small kernels written for this test (atb_api_driver.cpp):
AscendCUtils' mask helpers (SetMask by length or by register halves, isSetMask = false, ResetMask, counter/normal
mode) and size helpers, InitOutput (the deprecated GM fill), the byte-granular copy_gm_to_ubuf_align_b8/b16/b32 and
copy_ubuf_to_gm_align_b* intrinsics (DataCopyPad's semantics: filler, strides, padding from set_mov_pad_val), vcadd
with its accumulate operand and get_acc_val, the block_idx / block_num variables, and __bf16 as a type name.
Expected values follow the API reference."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from kernel_drivers import build_driver, run_driver

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "src" / "tilewise" / "device" / "emulator" / "include"
HERE = Path(__file__).resolve().parent
CXX = shutil.which("g++")
PIPE_S, PIPE_V, PIPE_MTE2, PIPE_MTE3 = 0, 1, 4, 5
FULL = (1 << 64) - 1

# One worker runs this module (--dist loadgroup) and its session fixture compiles there once, whatever runs between.
pytestmark = [
    pytest.mark.skipif(CXX is None, reason="g++ is not installed"),
    pytest.mark.xdist_group("test_atb_kernel_api"),
]


@dataclass
class Out:
    lines: dict[str, list[str]] = field(default_factory=dict)
    ok: bool = False
    error: str = ""
    trace: list[tuple[str, int, int]] = field(default_factory=list)

    def nums(self, key: str) -> list[float]:
        return [float(v) for v in self.lines[key]]

    def mask(self, key: str) -> tuple[int, int, int]:
        hi, lo, counter = self.lines[key]
        return int(hi, 16), int(lo, 16), int(counter)


@pytest.fixture(scope="session")
def run(tmp_path_factory: pytest.TempPathFactory):
    exe = build_driver(tmp_path_factory, HERE / "atb_api_driver.cpp")

    def go(case: str) -> Out:
        r = run_driver(exe, case)
        return Out(r.lines, r.ok, r.error, [(name, int(pipe), int(nbytes)) for name, pipe, nbytes in r.trace])

    return go


def test_ascendc_utils_set_mask_selects_the_first_lanes(run):
    o = run("mask")
    assert o.ok, o.error
    assert o.mask("f10") == (0, (1 << 10) - 1, 0)
    assert o.mask("f64") == (0, FULL, 0)
    assert o.mask("h100") == ((1 << 36) - 1, FULL, 0)
    assert o.mask("h128") == (FULL, FULL, 0)
    assert o.mask("b200") == (FULL, FULL, 0)  # 128 lanes or more: the whole register
    assert o.mask("keep") == (FULL, FULL, 0)  # isSetMask = false leaves it
    assert o.mask("pair") == (0x5, 0xF0, 0)
    assert o.mask("reset") == (FULL, FULL, 0)
    assert o.mask("count")[2] == 1 and o.mask("norm")[2] == 0
    # GetBitSize(4), GetC0Size(), GetC0Count(half), GetC0Count(float), GetDefaultBlockNum()
    assert o.nums("sizes") == [32, 32, 16, 8, 8]
    # vadd under SetMask<float>(10): ten lanes computed, the rest of the destination untouched.
    assert o.nums("vadd") == [100 + i for i in range(10)] + [-1, -1]
    assert ("Add", PIPE_V, 40) in o.trace


def test_get_c0_count_refuses_a_zero_size(run):
    o = run("c0_zero")
    assert not o.ok and o.error.startswith("invalid_argument") and "dtypeSize 0" in o.error


def test_init_output_fills_gm_through_the_vector_unit_and_mte3(run):
    o = run("init_output")
    assert o.ok, o.error
    assert o.nums("out") == [2.5, 2.5, 0]
    assert o.nums("ints") == [-7, -7, 0, 0, 0]  # the value defaults to 0
    assert o.trace == [
        ("Duplicate", PIPE_V, 400),
        ("InitOutput", PIPE_MTE3, 400),
        ("Duplicate", PIPE_V, 16),
        ("InitOutput", PIPE_MTE3, 16),
        ("Duplicate", PIPE_V, 8),
        ("InitOutput", PIPE_MTE3, 8),
    ]


def test_init_output_past_the_end_of_gm_is_out_of_bounds(run):
    o = run("init_output_overrun")
    assert not o.ok and o.error.startswith("gm_out_of_bounds")


def test_copy_align_b16_moves_bytes_with_datacopypads_rows(run):
    o = run("align_b16")
    assert o.ok, o.error
    # Rows of 5 half-words from GM elements 3.. and 10.. (2 skipped); each UB row filled to 32 bytes with its first
    # element; the second row one extra block further (dstGap 1), the block between untouched.
    assert o.nums("in") == [3, 4, 5, 6, 7] + [3] * 11 + [9999] * 16 + [10, 11, 12, 13, 14] + [10] * 11
    # Out again: UB rows one extra block apart, GM rows 3 elements apart (those left alone).
    assert o.nums("out") == [3, 4, 5, 6, 7, 0, 0, 0, 10, 11, 12, 13, 14, 0]
    # Padding and filler from set_mov_pad_val.
    assert o.nums("pad") == [7777, 7777, 40, 41, 42] + [7777] * 11
    assert o.trace == [
        ("DataCopyPad", PIPE_MTE2, 20),
        ("DataCopyPad", PIPE_MTE3, 20),
        ("SetPadValue", PIPE_S, 0),
        ("DataCopyPad", PIPE_MTE2, 6),
    ]


def test_copy_align_b8_and_b32(run):
    o = run("align_b8_b32")
    assert o.ok, o.error
    # GM holds uint16 i at element i: bytes 2..8 are 1 0 2 0 3 0 4; the filler repeats the first byte.
    assert o.nums("b8") == [1, 0, 2, 0, 3, 0, 4] + [1] * 25
    words = [(2 * i) | ((2 * i + 1) << 16) for i in range(1, 4)]
    assert o.nums("b32") == [0, *words, 0]
    assert o.trace == [("DataCopyPad", PIPE_MTE2, 7), ("DataCopyPad", PIPE_MTE2, 12), ("DataCopyPad", PIPE_MTE3, 12)]


def test_copy_align_b16_of_an_odd_byte_count_is_refused(run):
    o = run("align_odd")
    assert not o.ok and o.error.startswith("misaligned") and "lenBurst 5 bytes" in o.error


def test_bf16_type_name(run):
    o = run("bf16")
    assert o.ok, o.error
    assert o.lines["bf16"] == ["1.5", "1.5", "2", "3fc0"]


def test_vcadd_with_mode_zero_sums_each_repeat(run):
    o = run("vcadd_mode0")
    assert o.ok, o.error
    assert o.nums("sums") == [sum(range(64)), sum(range(64, 128))]
    assert [t[0] for t in o.trace] == ["WholeReduceSum"]


def test_vcadd_accumulates_into_the_register_get_acc_val_reads(run):
    o = run("vcadd_acc")
    assert o.ok, o.error
    assert o.nums("acc_full") == [sum(range(128)), -1]  # dst not written
    assert o.nums("acc_masked") == [sum(range(10)) + sum(range(64, 74))]
    assert o.nums("acc_count") == [sum(range(100))]
    assert [(t[0], t[2]) for t in o.trace] == [("ReduceSum", 128 * 4), ("ReduceSum", 20 * 4), ("ReduceSum", 100 * 4)]


def test_block_idx_and_block_num_variables(run):
    o = run("block_vars")
    assert o.ok, o.error
    assert o.nums("blocks") == [30, 31, 32, 200]
