"""The emulator's high-level library reductions, scans and GLU activations (tw/api/library/reduce_scan.h,
tw/api/library/glu.h) on small kernels written for this test (library_driver.cpp). Each case prints its inputs and
outputs; the expected values are computed here with numpy from the semantics the Ascend C API reference documents
(asc-devkit docs/zh/api/SIMD-API/高阶API/...), and the documented constraints the emulator checks must stop the
kernel at the offending call."""

from __future__ import annotations

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
PIPE_V = 1

# One worker runs this module (--dist loadgroup) and its session fixture compiles there once, whatever runs between.
pytestmark = [
    pytest.mark.skipif(CXX is None, reason="g++ is not installed"),
    pytest.mark.xdist_group("test_library_api"),
]


def line_of(needle: str) -> int:
    text = (HERE / "library_driver.cpp").read_text().splitlines()
    return next(i for i, line in enumerate(text, 1) if needle in line)


@dataclass
class Out:
    values: dict[str, np.ndarray] = field(default_factory=dict)
    ok: bool = False
    error: str = ""
    trace: list[tuple[str, int]] = field(default_factory=list)


@pytest.fixture(scope="session")
def run(tmp_path_factory: pytest.TempPathFactory):
    exe = build_driver(tmp_path_factory, HERE / "library_driver.cpp")

    def go(case: str) -> Out:
        r = run_driver(exe, case)
        return Out(
            {k: np.array([float(v) for v in words]) for k, words in r.lines.items()},
            r.ok,
            r.error,
            [(name, int(pipe)) for name, pipe in r.trace],
        )

    return go


def fails_at(o: Out, kind: str, needle: str, text: str) -> None:
    assert not o.ok
    got_kind, got_line, *_ = o.error.split()
    assert (got_kind, int(got_line)) == (kind, line_of(needle)), o.error
    assert text in o.error, o.error


def test_mean_rows_with_and_without_a_wider_accumulator(run):
    """归约操作/Mean接口/Mean.md: dst[r] = sum(src[r, :n]) / n over rows of `inner` (n rounded up to 32 bytes);
    accType float widens half before summing; 1 <= n <= inner."""
    o = run("mean")
    assert o.ok, o.error
    x = o.values["mean_f32_in"].reshape(3, 8)
    np.testing.assert_allclose(o.values["mean_f32"], (x[:, :5].sum(1) / 5).astype(np.float32), rtol=1e-6)
    xh = o.values["mean_f16_in"].reshape(2, 16)
    want = (xh[:, :3].sum(1) / 3).astype(np.float16)
    np.testing.assert_array_equal(o.values["mean_f16_acc32"], want)
    np.testing.assert_array_equal(o.values["mean_f16"], want)
    # float: sum then scale; half with a float accumulator: Cast up, sum, scale, Cast down
    assert [n for n, _ in o.trace[:6]] == ["WholeReduceSum", "Muls", "Cast", "WholeReduceSum", "Muls", "Cast"]
    assert all(p == PIPE_V for _, p in o.trace)
    fails_at(run("mean_bad_n"), "invalid_argument", "MeanParams{2, 8, 9}", "1 <= n <= inner")


def test_reduce_all_any_prod_on_both_patterns(run):
    """归约操作/ReduceAll接口/ReduceAll.md, ReduceAny接口/ReduceAny.md, ReduceProd接口/ReduceProd.md: AR reduces
    each row, RA each column; ReduceAll/Any take 0/1 uint8_t or float, ReduceProd float."""
    o = run("reduce")
    assert o.ok, o.error
    b = o.values["bool_in"].reshape(2, 8)
    np.testing.assert_array_equal(o.values["all_ar"], b.min(1))
    np.testing.assert_array_equal(o.values["all_ra"], b.min(0))
    np.testing.assert_array_equal(o.values["any_ar"], b.max(1))
    z = o.values["zeros_in"].reshape(2, 8)
    np.testing.assert_array_equal(o.values["any_ra"], z.max(0))
    assert list(o.values["all_ar"]) == [0, 1] and list(o.values["all_ra"]) == [1, 1, 1, 0, 0, 0, 1, 1]
    u = o.values["u8_in"].reshape(2, 32)
    np.testing.assert_array_equal(o.values["u8_all_ar"], u.min(1))
    np.testing.assert_array_equal(o.values["u8_any_ra"], u.max(0))
    p = o.values["prod_in"].reshape(3, 8).astype(np.float32)
    np.testing.assert_allclose(o.values["prod_ar"], np.prod(p, axis=1, dtype=np.float32), rtol=1e-6)
    np.testing.assert_allclose(o.values["prod_ra"], np.prod(p, axis=0, dtype=np.float32), rtol=1e-6)
    names = [n for n, _ in o.trace]
    assert names[:4] == ["WholeReduceMin", "Min", "WholeReduceMax", "Max"]
    assert names[4:7] == ["Cast", "WholeReduceMin", "Cast"]  # uint8_t goes through half
    assert names[-2:] == ["Mul", "Mul"]
    fails_at(
        run("reduce_not_bool"),
        "invalid_argument",
        "ReduceAll<float, Pattern::Reduce::AR>(d, b, s, true);",
        "only 0 and 1",
    )
    fails_at(run("reduce_overlap"), "invalid_argument", "(p, p, s, true)", "source and destination overlap")
    fails_at(run("reduce_tmp_overlap"), "invalid_argument", "tmp overlaps src", "sharedTmpBuffer and the source")


def test_cumsum_along_either_axis_with_the_last_row(run):
    """数学计算/CumSum接口/CumSum.md: isLastAxis sums along each row (lastRow: each row's total), otherwise down each
    column (lastRow: the last row); inner * sizeof(T) must be a multiple of 32 bytes."""
    o = run("cumsum")
    assert o.ok, o.error
    x = o.values["cs_f32_in"].reshape(4, 8).astype(np.float32)
    last = np.cumsum(x, axis=1, dtype=np.float32)
    np.testing.assert_array_equal(o.values["cs_last"], last.ravel())
    np.testing.assert_array_equal(o.values["cs_last_row"], last[:, -1])
    np.testing.assert_array_equal(o.values["cs_default"], last.ravel())
    xh = o.values["cs_f16_in"].reshape(3, 16).astype(np.float32)
    first = np.cumsum(xh, axis=0, dtype=np.float32).astype(np.float16)  # summed in float, each output rounded
    np.testing.assert_array_equal(o.values["cs_first"], first.ravel())
    np.testing.assert_array_equal(o.values["cs_first_row"], first[-1])
    assert ("Cast", PIPE_V) in o.trace and o.trace[0] == ("Gather", PIPE_V)
    fails_at(run("cumsum_misaligned"), "misaligned", "CumSumInfo{4, 5}", "multiple of 32 bytes")


def gelu(x):
    return x / (1 + np.exp(-1.59576912 * (x + 0.044715 * x**3)))


def faster_gelu_v2(x):
    s = x + 1e-12
    c = np.minimum(np.abs(0.7071 * x), 1.769) - 1.769
    return x * (s / np.abs(s) * (-0.1444 * c * c + 0.5) + 0.5)


def test_glu_variants_and_faster_gelu_v2(run):
    """激活函数/SwiGLU接口/SwiGLU.md, GeGLU接口/GeGLU.md, ReGlu接口/ReGlu.md (dst = src0 * act(src1), as the
    reference's worked examples show) and Gelu接口/FasterGeluV2.md (the clipped-square FastGeluV2 formula)."""
    o = run("glu")
    assert o.ok, o.error
    a, b = o.values["glu_a"], o.values["glu_b"]
    want = {
        "swiglu": a * b / (1 + np.exp(-1.5 * b)),
        "geglu": a * gelu(b),
        "reglu": a * np.maximum(b, 0),
        "fgv2": faster_gelu_v2(b),
    }
    for k, w in want.items():
        np.testing.assert_allclose(o.values[k], w.astype(np.float32), rtol=2e-6, atol=1e-7, err_msg=k)
    ah, bh = o.values["glu_ah"], o.values["glu_bh"]
    want_h = {"swiglu_h": ah * bh / (1 + np.exp(-bh)), "geglu_h": ah * gelu(bh), "fgv2_h": faster_gelu_v2(bh)}
    for k, w in want_h.items():
        np.testing.assert_allclose(o.values[k], w.astype(np.float16), rtol=1e-3, atol=1e-4, err_msg=k)
    ab, bb = o.values["glu_ab"], o.values["glu_bb"]
    np.testing.assert_allclose(o.values["reglu_bf"], ab * np.maximum(bb, 0), rtol=8e-3)
    # the reference's SwiGLU example: src1 = 0.5, beta 1 scales src0 by 0.3112; FasterGeluV2(-1.251) = -0.1411
    assert abs(faster_gelu_v2(-1.251) - -0.1411) < 5e-4 and abs(0.5 / (1 + np.exp(-0.5)) - 0.31123) < 1e-4
    assert run("glu_trace").trace == [
        ("Duplicate", PIPE_V),
        ("Muls", PIPE_V),
        ("Exp", PIPE_V),
        ("Adds", PIPE_V),
        ("Div", PIPE_V),
        ("Mul", PIPE_V),
    ]
    fails_at(run("glu_tmp_overlap"), "invalid_argument", "tmp overlaps dst", "sharedTmpBuffer and the destination")


def test_rmsnorm_with_its_host_tiling(run):
    """归一化操作/RmsNorm.md and RmsNorm-Tiling.md: dst = x / sqrt(mean(x^2) + eps) * gamma over the original H, every
    stored element written; GetRmsNormMaxMinTmpSize / GetRmsNormTilingInfo (A2 formulas); the sharedTmpBuffer below
    the minimum, an unfilled tiling and gamma overlapping dst are errors."""
    o = run("rmsnorm")
    assert o.ok, o.error
    # [1, 4, 16] float, original H 13: max (64 + 8) x 4, min (16 + 8) x 4; one row per round, 4 rounds
    assert list(o.values["rms_host"]) == [1, 288, 96, 1, 16, 13, 1, 16, 8, 4, 0]
    # [2, 16, 64] half: min (2 x 64 + 8) x 4 = 544, max (2 x 2048 + 32) x 4; [2, 3, 64] is no basic block; a
    # buffer one byte short fails; 544 + 4096 bytes hold 8 rows: 4 rounds, no tail
    assert list(o.values["rms_host2"]) == [1, 16512, 544, 0, 0, 1, 8, 4, 0]
    x = o.values["rms_x"].reshape(4, 16)
    g = o.values["rms_g"]
    rms = np.sqrt((x[:, :13] ** 2).sum(1, keepdims=True) / 13 + 1e-5)
    np.testing.assert_allclose(o.values["rms_f32"], (x / rms * g).ravel(), rtol=2e-6, atol=1e-7)
    xh = o.values["rms_xh"].reshape(2, 32)
    gh = o.values["rms_gh"]
    rms_h = np.sqrt((xh**2).mean(1, keepdims=True) + np.float16(1e-3).astype(np.float64))
    np.testing.assert_allclose(o.values["rms_f16"], (xh / rms_h * gh).astype(np.float16).ravel(), rtol=1e-3)
    names = [n for n, _ in o.trace]
    steps = ["Mul", "WholeReduceSum", "Muls", "Adds", "Sqrt", "Brcb", "Div", "Mul"]
    assert names == steps + ["Cast"] + steps + ["Cast"]
    fails_at(run("rmsnorm_tmp_small"), "work_buffer_too_small", "// small tmp", "minimum 96")
    fails_at(run("rmsnorm_untiled"), "invalid_param", "// untiled", "GetRmsNormTilingInfo")
    fails_at(run("rmsnorm_gamma_overlap"), "invalid_argument", "// gamma inside dst", "dstLocal and gammaLocal")


def layer_norm(x, g, b, eps, axis=-1):
    m = x.mean(axis, keepdims=True)
    v = ((x - m) ** 2).mean(axis, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b, m.ravel(), v.ravel()


def test_layernorm_both_forms_with_their_host_tiling(run):
    """归一化操作/LayerNorm.md and LayerNorm-Tiling.md: the [B, S, H] form (mean and variance of T) on the reference's
    example (x = 0..63 as [1, 8, 8], gamma = beta = 0..7: mean 3.5 + 8 i, variance 5.25) and in half; the [A, R] form
    (float mean and rstd, gamma of a wider type, isNoBeta); GetLayerNormMaxMinTmpSize / GetLayerNormNDTilingInfo;
    the required zero padding and the forbidden overlaps."""
    o = run("layernorm")
    assert o.ok, o.error
    # float {1, 8, 8, 8}: min 3 x 32 + 2 x 32, max 3 x 256 + 2 x 32; 40 floats hold one 8-element row per buffer
    assert list(o.values["ln_host"]) == [832, 160, 8, 8, 8, 3, 1, 16]
    x = np.arange(64, dtype=np.float64).reshape(8, 8)
    g = b = np.arange(8, dtype=np.float64)
    y, m, v = layer_norm(x, g, b, 1e-5)
    np.testing.assert_allclose(o.values["ln_out"], y.ravel(), rtol=2e-6, atol=2e-6)
    assert list(o.values["ln_mean"]) == [3.5 + 8 * i for i in range(8)] and list(o.values["ln_var"]) == [5.25] * 8
    assert abs(o.values["ln_out"][1] - -0.09107912) < 2e-5  # the reference's printed output (its epsilon unstated)
    np.testing.assert_array_equal(o.values["ln_inplace"], o.values["ln_out"])
    xh = o.values["lnh_x"].reshape(2, 16)
    yh, mh, vh = layer_norm(xh, o.values["lnh_g"], o.values["lnh_b"], np.float64(np.float16(1e-3)))
    np.testing.assert_allclose(o.values["lnh_out"], yh.ravel(), rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(o.values["lnh_mean"], mh, rtol=1e-3)
    np.testing.assert_allclose(o.values["lnh_var"], vh, rtol=1e-3)
    steps = ["Muls", "WholeReduceSum", "Brcb", "Sub", "Mul", "Muls", "WholeReduceSum", "Adds", "Ln", "Muls", "Exp"]
    assert [n for n, _ in o.trace][: len(steps)] == steps
    fails_at(run("layernorm_pad_nonzero"), "invalid_argument", "// pads of 1", "padding to be 0")
    fails_at(run("layernorm_mean_overlap"), "invalid_argument", "// mean over inputX", "outputMean and inputX")

    r = run("layernorm_rstd")
    assert r.ok, r.error
    # {3, 10} float: rows padded to 16; min 2 x 64 + 32 = 160, max raised to Normalize's 2 x 64 + 2 x 1024 + 32
    assert list(r.values["lnr_host"][:5]) == [1184, 160, 3, 16, 3]
    assert r.values["lnr_host"][5] == pytest.approx(0.1)
    xr = r.values["lnr_x"].reshape(3, 16)
    gr, br = r.values["lnr_g"][:10], r.values["lnr_b"][:10]
    yr, mr, vr = layer_norm(xr[:, :10], gr, br, 1e-5)
    out = r.values["lnr_out"].reshape(3, 16)
    np.testing.assert_allclose(out[:, :10], yr, rtol=2e-6, atol=2e-6)
    assert (out[:, 10:] == -7).all()  # only the rLength elements of a row are written
    np.testing.assert_allclose(r.values["lnr_mean"], mr, rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(r.values["lnr_rstd"], 1 / np.sqrt(vr + 1e-5), rtol=2e-6)
    xh = r.values["lnr_xh"].reshape(2, 16)
    yh, mh, vh = layer_norm(xh, r.values["lnr_g"], 0.0, 1e-5)  # isNoBeta
    np.testing.assert_allclose(r.values["lnr_outh"], yh.astype(np.float16).ravel(), rtol=2e-3, atol=1e-3)
    np.testing.assert_allclose(r.values["lnr_meanh"], mh, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(r.values["lnr_rstdh"], 1 / np.sqrt(vh + 1e-5), rtol=1e-6)


def test_pad_and_unpad_with_their_host_tiling(run):
    """张量变换/Pad.md, UnPad.md, Pad-Tiling.md, UnPad-Tiling.md: Pad widens unaligned rows to the 32-byte aligned
    width (left / right values) or fills redundant right columns of aligned rows; UnPad drops right columns of
    aligned rows; the host tmp sizes and tilings; the documented limits are errors."""
    o = run("pad")
    assert o.ok, o.error
    # {320, 63} half: min 16 x 16 x 2 x 2 = 1024 bytes, max 1260 of those; UnPad needs none on the A2
    assert list(o.values["pad_host"]) == [1290240, 1024, 0, 0]
    assert list(o.values["pad_tiling"]) == [16, 15, 15, 0, 1, 16]
    # the reference's example: 16 x 15 of 0..239, a column of 321 on the right
    want = np.hstack([np.arange(240).reshape(16, 15), np.full((16, 1), 321)])
    np.testing.assert_array_equal(o.values["pad_half"], want.ravel())
    xf = o.values["pad_f32_in"].reshape(4, 6)
    np.testing.assert_array_equal(o.values["pad_f32"], np.pad(xf, ((0, 0), (1, 1)), constant_values=-4).ravel())
    xi = np.arange(32).reshape(4, 8)
    xi[:, 5:7] = -9
    np.testing.assert_array_equal(o.values["pad_i32"], xi.ravel())
    np.testing.assert_array_equal(o.values["unpad_half"], np.arange(240))
    assert list(o.values["unpad_tiling"]) == [3, 8, 4, 64, 8]
    np.testing.assert_array_equal(o.values["unpad_f32"], o.values["unpad_f32_in"].reshape(3, 8)[:, :5].ravel())
    pad = ["DataCopy", "Duplicate"]  # the rows moved, the pad values written (the driver's own Duplicate between)
    assert [n for n, _ in o.trace] == pad + ["Duplicate"] + pad + pad + ["GatherMask"] * 2
    fails_at(run("pad_aligned_full"), "invalid_argument", "// aligned and all valid", "all valid")
    fails_at(run("pad_too_wide"), "invalid_argument", "// 2 + 6 + 1 > 8", "exceeds the aligned width 8")
    fails_at(run("pad_tmp_small"), "work_buffer_too_small", "// tmp of 512", "minimum 1024")
    fails_at(run("unpad_bad_right"), "invalid_argument", "// a whole block", "less than one 32-byte block")


def test_topk_both_modes_on_the_references_examples(run):
    """排序操作/TopK.md and TopK-Tiling.md: the reference's Normal example (float [2, 32], the 5 smallest with given
    indices, row 2 finished: indices all n = 32) and Small example (float [4, 32], 17 values padded with -inf, the 8
    largest), half with positions as indices, ties in position order and NaN first in either order; the A2 host tmp
    sizes and tiling; k outside [1, n], a chosen padding element and a short tmpLocal are errors."""
    o = run("topk")
    assert o.ok, o.error
    # Normal float with indices: 16 x inner bytes; tmpLocalSize 4 inner, innerDataSize 2 inner, maskOffset 2 x 8
    assert list(o.values["topk_host"]) == [512, 512, 128, 64, 16, 8, 8]
    nv = o.values["topk_nv"].reshape(2, 8)[:, :5]
    ni = o.values["topk_ni"].reshape(2, 8)
    np.testing.assert_allclose(nv[0], [-51721.918, -51229.17, -47510.38, -45169.168, -43112.895], rtol=1e-7)
    np.testing.assert_allclose(nv[1], [-52391.258, -50611.96, -46391.133, -42512.805, -34662.61], rtol=1e-7)
    assert list(ni[0, :5]) == [21, 20, 22, 30, 2] and list(ni[1, :5]) == [32] * 5
    assert list(ni[:, 5:].ravel()) == [-1] * 6  # kpad_index = 8: the 3 after k are not written
    # Small float, largest: 8 x 128 + 64 bytes; the masks select k pairs (indices "10", values "01")
    assert list(o.values["topk_small_host"]) == [1088, 1088, 272, 256, 0xAAAA, 0x5555]
    assert [list(r) for r in o.values["topk_si"].reshape(4, 8)] == [
        [6, 0, 11, 12, 1, 3, 4, 13],
        [1, 10, 16, 2, 14, 3, 7, 13],
        [12, 10, 13, 7, 2, 5, 11, 4],
        [7, 4, 16, 14, 12, 6, 10, 3],
    ]
    np.testing.assert_allclose(
        o.values["topk_sv"][:8],
        [57553.4, 55492.18, 54669.473, 54519.184, 27748.229, 19276.926, 14828.149, 10165.924],
        rtol=1e-7,
    )
    h = o.values["topk_hin"]
    assert np.isnan(o.values["topk_hv"][0]) and o.values["topk_hi"][0] == 40
    assert list(o.values["topk_hi"][1:]) == [i for i in range(64) if h[i] == 6][:3]
    assert np.isnan(o.values["topk_hv_min"][0]) and list(o.values["topk_hi_min"][1:]) == [0, 7, 14]
    names = [n for n, _ in o.trace if n != "Duplicate"]
    normal_min = ["Muls", "Sort32", "GatherMask", "GatherMask", "Muls"]  # ascending: negate, sort, take, restore
    assert names[:5] == normal_min and names[5:9] == ["Sort32", "GatherMask", "GatherMask", "ArithProgression"]
    assert "MrgSort" in names  # inner 64: one four-way merge of the sorted 32s
    fails_at(run("topk_padding_chosen"), "invalid_argument", "// padding chosen", "selects padding element 30")
    fails_at(run("topk_bad_k"), "invalid_argument", "// k > n", "1 <= k <= n")
    fails_at(run("topk_tmp_small"), "work_buffer_too_small", "TopKInfo{1, 32, 32});  // tmp", "minimum 640")


def test_scratch_size_queries_and_the_kernels_minimums(run):
    """GetMeanMaxMinTmpSize.md, GetSwiGLUMaxMinTmpSize.md, GetGeGLUMaxMinTmpSize.md, GetReGluMaxMinTmpSize.md,
    GetCumSumMaxMinTmpSize.md (A2 formulas): the sizes, and a kernel given less than the minimum stops at the call."""
    o = run("tmp_sizes")
    # Mean half->float, n 3: 32 bytes of repeat sums + the 16-element row in float; Mean float n 200: 32;
    # SwiGLU half [4, 256]: 6 x 2048 / 6 x 256; GeGLU half [64]: 4 x 256 both; ReGlu float: 256;
    # CumSum half [20, 16] last axis: 16 x 16 x 2 cast + 2 transposes of 16 x 16 halves (max: 32 rows);
    # float first axis: none
    assert list(o.values["tmp_sizes"]) == [96, 96, 32, 32, 12288, 1536, 1024, 1024, 256, 256, 3072, 1536, 0, 0]
    fails_at(run("swiglu_tmp_small"), "work_buffer_too_small", "// half needs 6 x 256", "minimum 1536")
