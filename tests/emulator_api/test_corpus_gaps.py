"""API forms public operators of the corpus needed (issue 12), on small kernels written for this test
(gaps_driver.cpp): TPipe::InitBuffer(TBuf, num, len), ParamOffset<T>, DataCopy with SliceInfo and SetPadValue with
DataCopyPad. Expected values follow the API reference; each test fails if its form stops compiling (the driver is
built once for the module) or changes meaning."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from kernel_drivers import build_driver, run_driver

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "src" / "tilewise" / "device" / "emulator" / "include"
HERE = Path(__file__).resolve().parent
CXX = shutil.which("g++")
PIPE_S, PIPE_MTE2, PIPE_MTE3 = 0, 4, 5

# One worker runs this module (--dist loadgroup) and its session fixture compiles there once, whatever runs between.
pytestmark = [
    pytest.mark.skipif(CXX is None, reason="g++ is not installed"),
    pytest.mark.xdist_group("test_corpus_gaps"),
]


@dataclass
class Out:
    values: dict[str, list[float]] = field(default_factory=dict)
    ok: bool = False
    error: str = ""
    trace: list[tuple[str, int, int, int]] = field(default_factory=list)


@pytest.fixture(scope="session")
def run(tmp_path_factory: pytest.TempPathFactory):
    exe = build_driver(tmp_path_factory, HERE / "gaps_driver.cpp")

    def go(case: str) -> Out:
        r = run_driver(exe, case)
        # values may be printed comma-separated
        values = {k: [float(v) for v in " ".join(words).replace(",", " ").split()] for k, words in r.lines.items()}
        return Out(
            values,
            r.ok,
            r.error,
            [(name, int(pipe), int(nbytes), int(repeats)) for name, pipe, nbytes, repeats in r.trace],
        )

    return go


def test_initbuffer_on_tbuf_with_a_block_count(run):
    o = run("tbuf_num")
    assert o.ok, o.error
    # 1 x 100 bytes rounds up to 128 (32 floats); 2 x 64 bytes is 128; the next buffer starts after both.
    assert o.values["sizes"] == [32, 32, 8]
    assert o.values["addr"] == [0, 128, 256]


def test_initbuffer_on_tbuf_with_a_block_count_checks_the_ub(run):
    # Laying 200 KiB out is only a warning, as the device does not check it; touching the part past the UB fails.
    o = run("tbuf_num_overflow")
    assert not o.ok and o.error.startswith("ub_out_of_bounds"), o.error
    assert "elements [0, 51200)" in o.error and "196608-byte Unified Buffer" in o.error


def test_param_offset_is_this_blocks_share(run):
    o = run("param_offset")
    assert o.ok, o.error
    expect = []
    for b in range(4):
        expect += [100 + b, 0, 0, 200 + b]
    assert o.values["gm1_i32"] == expect


def slice_indices(spec: list[tuple[int, int, int, int, int]], itemsize: int) -> list[int]:
    """Row-major flat offsets a slice selects (dimension 0 innermost), from the reference's definition."""
    per_dim = []
    for d, (start, end, stride, burst, _shape) in enumerate(spec):
        seg = burst * 32 // itemsize if d == 0 else 1
        idx, p = [], start
        while p <= end:
            idx += list(range(p, p + seg))
            p += seg + stride
        per_dim.append(idx)
    pitch = [1]
    for _start, _end, _stride, _burst, shape in spec[:-1]:
        pitch.append(pitch[-1] * shape)
    flat = [0]
    for d in range(len(spec) - 1, -1, -1):
        flat = [base + i * pitch[d] for base in flat for i in per_dim[d]]
    return flat


def test_datacopy_slices_follow_the_reference_example(run):
    o = run("slice")
    assert o.ok, o.error
    src = np.arange(3 * 87, dtype=np.float32)
    picked = src[slice_indices([(16, 70, 7, 3, 87), (0, 2, 1, 1, 3)], 4)]
    assert len(picked) == 96
    tile = np.zeros(96, dtype=np.float32)
    tile[slice_indices([(0, 47, 0, 3, 48), (0, 1, 0, 1, 2)], 4)] = picked
    assert o.values["tile"] == tile.tolist()
    assert tile[:3].tolist() == [16, 17, 18] and tile[24] == 47 and tile[48] == 2 * 87 + 16
    out = np.zeros(3 * 64, dtype=np.float32)
    out[slice_indices([(8, 63, 8, 3, 64), (0, 2, 1, 1, 3)], 4)] = tile
    assert o.values["gm1"] == out.tolist()
    assert not out[64:128].any()  # row 1 is not in the slice
    # One MTE2 and one MTE3 transfer, each of 96 floats in 4 bursts of 24.
    assert o.trace == [("DataCopy", PIPE_MTE2, 384, 4), ("DataCopy", PIPE_MTE3, 384, 4)]


def test_datacopy_slice_in_one_dimension(run):
    o = run("slice_1d")
    assert o.ok, o.error
    assert o.values["tile"] == list(range(8, 24))


def test_datacopy_slices_must_select_as_many_elements(run):
    o = run("slice_mismatch")
    assert not o.ok and o.error.startswith("invalid_param")
    assert "selects 32 elements, the destination slice 16" in o.error


def test_set_pad_value_fills_datacopypad_padding_when_ispad_is_false(run):
    o = run("pad_value")
    assert o.ok, o.error
    # Rows of 5 floats from GM elements 2.. and 2 + 5 + 3 (srcStride 12 bytes), 3 floats of padding each: -1, the
    # register's value, not the params' paddingValue 9.
    assert o.values["pad"] == [2, 3, 4, 5, 6, -1, -1, -1, 10, 11, 12, 13, 14, -1, -1, -1]
    # half: 2 left, 3 data, 1 right, then filler to 32 bytes, all 0.5 from the register.
    assert o.values["padh"] == [0.5, 0.5, 1, 2, 3] + [0.5] * 11
    names = [(t[0], t[1]) for t in o.trace]
    assert names == [("SetPadValue", PIPE_S), ("DataCopyPad", PIPE_MTE2)] * 2


def test_without_set_pad_value_the_padding_stays_unspecified(run):
    o = run("pad_unset")
    assert o.ok, o.error
    assert o.values["pad"][:5] == [0, 1, 2, 3, 4]
    assert all(np.isnan(o.values["pad"][5:8]))


def test_tiling_key_header_included_twice_is_one_declaration(run):
    # gaps_driver.cpp includes the guard-less tpl_twice_key.h twice; it compiles (the module's build) and the tables
    # are the header's: the selection allows mode 0 or 2 with flag 1.
    o = run("tpl_twice")
    assert o.ok, o.error
    text = (HERE / "gaps_driver.cpp").read_text()
    assert text.count('#include "tpl_twice_key.h"') == 2
    assert "#pragma once" not in (HERE / "tpl_twice_key.h").read_text()
    assert o.values["tpl"] == [2, 0, 1, 2, 1]


def test_softmax_high_level_api_with_the_host_tiling(run):
    o = run("softmax")
    assert o.ok, o.error
    x = (np.arange(48, dtype=np.float64) * 0.25).reshape(3, 16)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(o.values["sm"], want.ravel(), rtol=1e-6)
    # sum and max: one 32-byte block (8 floats) per row, all the row's value.
    np.testing.assert_allclose(o.values["sum"], np.repeat(e.sum(axis=1), 8), rtol=1e-6)
    assert o.values["max"] == np.repeat(x.max(axis=1), 8).tolist()
    # SimpleSoftMax from those sum / max gives the same rows.
    np.testing.assert_allclose(o.values["simple"], want.ravel(), rtol=1e-6)
    # half data, float sum/max, reductions over the first 12 of each 16 (oriSrcK); every element is normalised by
    # them, the 4 padding ones included.
    xh = x.astype(np.float16).astype(np.float64)
    mh = xh[:, :12].max(axis=1, keepdims=True)
    sh = np.exp(xh[:, :12] - mh).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(o.values["smh"], (np.exp(xh - mh) / sh).ravel(), rtol=2e-3)
    np.testing.assert_allclose(o.values["sumh"], np.repeat(sh.ravel(), 8), rtol=1e-6)
    names = [t[0] for t in o.trace if t[0] not in ("DataCopy", "Muls")]
    steps = ["ReduceMax", "Brcb", "Sub", "Exp", "ReduceSum", "Brcb", "Div"]
    assert names == steps + ["Sub", "Exp", "Div"] + ["Cast", "Cast"] + steps + ["Cast"]


def test_tbuf_queue_calls_hand_out_the_whole_buffer(run):
    # TBuf (kernel_tpipe.h, a TQueBind): AllocTensor / DeQue are Get(), EnQue / FreeTensor do nothing ("TBuf获取的Tensor
    # 无需释放"), so data written through AllocTensor is still there after FreeTensor.
    o = run("tbuf_queue_calls")
    assert o.ok, o.error
    assert o.values["sizes"] == [64, 64, 64]
    assert o.values["addr"][0] == o.values["addr"][1]
    assert o.values["vals"] == [0, 0.5, 1, 1.5]


def test_copy_counter_mode_counts_per_repeat(run):
    # Copy.md: in counter mode the mask is the element count of each repeat and repeatTime applies (unlike the
    # general counter mode), ceil(n * sizeof(T) / 32) blocks a repeat, dstStride / srcStride blocks apart.
    o = run("copy_counter")
    assert o.ok, o.error
    rows = [(i // 8) * 64 + i % 8 for i in range(144)]  # the reference's scenario 3: first block of 18 rows
    assert o.values["rows"] == rows + [-1] * 16
    assert o.values["replicated"] == list(range(1, 17)) * 3 + [-1] * 16
    assert [t[:2] for t in o.trace if t[0] == "Copy"] == [("Copy", 1)] * 2  # PIPE_V


def test_get_imm_is_a_number_and_a_ub_address(run):
    o = run("get_imm")
    assert o.ok, o.error
    # pieces of 16 bits, lowest first; a wider piece keeps its low 16 bits; UB bytes 0 and 12 hold 7 and 42.
    assert o.values["imm"] == [1 | 2 << 16 | 3 << 32, 0x2345, 7, 42]


def test_icache_preload_is_one_scalar_instruction(run):
    # ICachePreLoad(ISASI).md: PIPE_S; preFetchLen in 2 KiB units below the AIV ICache (16 KiB) / 2 KiB.
    o = run("preload")
    assert o.ok, o.error
    assert [t[:2] for t in o.trace] == [("ICachePreLoad", PIPE_S)] * 2
    bad = run("preload_too_long")
    assert not bad.ok and bad.error.startswith("invalid_argument")


def test_region_proposal_calls_are_an_error_for_the_a2(tmp_path):
    # ProposalConcat.md / RpSort16.md: not supported on Atlas A2; Concat(dst, src, repeat, mode) is ProposalConcat's
    # earlier name. The call fails to compile with a message naming the chip, not "no matching function".
    src = tmp_path / "proposal.cpp"
    src.write_text(
        '#include "kernel_operator.h"\nusing namespace AscendC;\n'
        "void k(LocalTensor<half>& d, LocalTensor<half>& s) { Concat(d, s, 2, 4); }\n"
    )
    p = subprocess.run(
        [CXX, "-std=c++17", "-fsyntax-only", "-I", str(INCLUDE), str(src)], capture_output=True, text=True, timeout=600
    )
    assert p.returncode != 0
    assert "region-proposal instruction" in p.stderr and "Atlas A2" in p.stderr


def test_l2_cache_hint_takes_the_reference_enums_and_changes_no_data(run):
    # CacheMode / CacheRwMode as the SetL2CacheHint reference declares them (the driver does not build otherwise);
    # the hint is advice to the cache, so the copy through UB moves the same 16 floats, with no extra transfer.
    o = run("l2_cache_hint")
    assert o.ok, o.error
    assert o.values["gm1"][:16] == list(range(16)) and not any(o.values["gm1"][16:])
    copies = [t for t in o.trace if t[0].startswith("DataCopy")]
    assert copies == [("DataCopy", PIPE_MTE2, 64, 1), ("DataCopy", PIPE_MTE3, 64, 1)]
