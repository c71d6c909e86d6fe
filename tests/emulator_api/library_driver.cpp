// Test driver for the emulator's high-level library reductions, scans, GLU activations and norms (tw/library_*.h).
//
//   library_driver <case>
//
// Each case is a small kernel written for this test. It prints its inputs and outputs as `key value...` lines that
// the Python side (test_library_api.py) checks against numpy, then `result ok` or `result error <kind> <line> ...`,
// then one `trace <name> <pipe>` line per instruction record.
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "tw/runtime/launcher.h"
#include "tiling/tiling_api.h"  // the norm tilings, called here the way a host calls them

using namespace AscendC;

namespace {

template <typename T>
void print(const char* key, const LocalTensor<T>& t, size_t n) {
    std::printf("%s", key);
    for (size_t i = 0; i < n; ++i) std::printf(" %.17g", static_cast<double>(static_cast<float>(t.GetValue(i))));
    std::printf("\n");
}

// A deterministic ramp with a little irregularity: (i * 7 % 23 - 11) * scale.
template <typename T>
void fill(const LocalTensor<T>& t, size_t n, float scale, float offset = 0.0f) {
    for (size_t i = 0; i < n; ++i)
        t.SetValue(i, static_cast<T>(static_cast<float>(int(i * 7 % 23) - 11) * scale + offset));
}

struct Ub {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    Ub() { pipe.InitBuffer(buf, 64 * 1024); }
    template <typename T>
    LocalTensor<T> at(uint32_t n, uint32_t byte_offset) { return buf.GetWithOffset<T>(n, byte_offset); }
};

void case_mean() {
    Ub ub;
    auto xf = ub.at<float>(24, 0);      // 3 rows, n = 5, inner = 8
    auto df = ub.at<float>(8, 1024);
    fill(xf, 24, 0.37f);
    print("mean_f32_in", xf, 24);
    Mean(df, xf, MeanParams{3, 8, 5});
    print("mean_f32", df, 3);
    auto xh = ub.at<half>(32, 2048);    // 2 rows, n = 3, inner = 16
    auto dh = ub.at<half>(16, 3072);
    fill(xh, 32, 1.3f);
    print("mean_f16_in", xh, 32);
    auto tmp = ub.at<uint8_t>(1024, 4096);
    Mean<half, float>(dh, xh, tmp, MeanParams{2, 16, 3});
    print("mean_f16_acc32", dh, 2);
    Mean<half>(dh, xh, MeanParams{2, 16, 3});
    print("mean_f16", dh, 2);
}

void case_mean_bad_n() {
    Ub ub;
    auto x = ub.at<float>(16, 0);
    auto d = ub.at<float>(8, 1024);
    Mean(d, x, MeanParams{2, 8, 9});  // n > inner
}

void case_reduce() {
    Ub ub;
    auto b = ub.at<float>(16, 0);  // {2, 8} of 0/1
    for (int i = 0; i < 16; ++i) b.SetValue(i, float((i * 5 % 7) < 4 || i == 1 || i == 9 ? 1 : 0));
    b.SetValue(0, 1.0f);
    for (int i = 0; i < 8; ++i) b.SetValue(8 + i, 1.0f);  // row 1 all ones
    b.SetValue(3, 0.0f);
    print("bool_in", b, 16);
    auto d = ub.at<float>(8, 1024);
    const uint32_t s28[] = {2, 8};
    ReduceAll<float, Pattern::Reduce::AR>(d, b, s28, true);
    print("all_ar", d, 2);
    ReduceAll<float, Pattern::Reduce::RA>(d, b, ub.at<uint8_t>(512, 8192), s28, true);
    print("all_ra", d, 8);
    ReduceAny<float, Pattern::Reduce::AR>(d, b, s28, true);
    print("any_ar", d, 2);
    auto z = ub.at<float>(16, 2048);
    for (int i = 0; i < 16; ++i) z.SetValue(i, float(i == 10 || i == 5 ? 1 : 0));
    print("zeros_in", z, 16);
    ReduceAny<float, Pattern::Reduce::RA>(d, z, s28, true);
    print("any_ra", d, 8);
    auto u = ub.at<uint8_t>(64, 3072);  // {2, 32} bytes
    for (int i = 0; i < 64; ++i) u.SetValue(i, uint8_t(i < 32 ? 1 : (i % 3 == 0 ? 0 : 1)));
    print("u8_in", u, 64);
    auto du = ub.at<uint8_t>(32, 4096);
    const uint32_t s232[] = {2, 32};
    ReduceAll<uint8_t, Pattern::Reduce::AR>(du, u, s232, true);
    print("u8_all_ar", du, 2);
    ReduceAny<uint8_t, Pattern::Reduce::RA>(du, u, s232, true);
    print("u8_any_ra", du, 32);
    auto p = ub.at<float>(24, 5120);  // {3, 8}
    fill(p, 24, 0.11f, 1.0f);
    print("prod_in", p, 24);
    const uint32_t s38[] = {3, 8};
    ReduceProd<float, Pattern::Reduce::AR>(d, p, s38, true);
    print("prod_ar", d, 3);
    ReduceProd<float, Pattern::Reduce::RA>(d, p, ub.at<uint8_t>(512, 8192), s38, true);
    print("prod_ra", d, 8);
}

void case_reduce_not_bool() {
    Ub ub;
    auto b = ub.at<float>(16, 0);
    Duplicate(b, 1.0f, 16);
    b.SetValue(6, 2.0f);
    auto d = ub.at<float>(8, 1024);
    const uint32_t s[] = {2, 8};
    ReduceAll<float, Pattern::Reduce::AR>(d, b, s, true);
}

void case_reduce_overlap() {
    Ub ub;
    auto p = ub.at<float>(16, 0);
    Duplicate(p, 1.0f, 16);
    const uint32_t s[] = {2, 8};
    ReduceProd<float, Pattern::Reduce::RA>(p, p, s, true);  // dst overlaps src
}

void case_reduce_tmp_overlap() {
    Ub ub;
    auto p = ub.at<float>(16, 0);
    Duplicate(p, 1.0f, 16);
    auto d = ub.at<float>(8, 1024);
    const uint32_t s[] = {2, 8};
    ReduceProd<float, Pattern::Reduce::AR>(d, p, ub.at<uint8_t>(256, 32), s, true);  // tmp overlaps src
}

constexpr CumSumConfig LAST_AXIS{true, false, true, CumSumAlgorithm::CUMSUM_ALGORITHM_LINEBYLINE};
constexpr CumSumConfig FIRST_AXIS{false, false, true, CumSumAlgorithm::CUMSUM_ALGORITHM_LINEBYLINE};

void case_cumsum() {
    Ub ub;
    auto x = ub.at<float>(32, 0);  // {4, 8}
    fill(x, 32, 0.25f);
    print("cs_f32_in", x, 32);
    auto d = ub.at<float>(32, 1024);
    auto l = ub.at<float>(8, 2048);
    CumSum<float, LAST_AXIS>(d, l, x, CumSumInfo{4, 8});
    print("cs_last", d, 32);
    print("cs_last_row", l, 4);
    auto xh = ub.at<half>(48, 3072);  // {3, 16}
    fill(xh, 48, 0.7f);
    print("cs_f16_in", xh, 48);
    auto dh = ub.at<half>(48, 4096);
    auto lh = ub.at<half>(16, 5120);
    auto tmp = ub.at<uint8_t>(1024, 8192);
    CumSum<half, FIRST_AXIS>(dh, lh, xh, tmp, CumSumInfo{3, 16});
    print("cs_first", dh, 48);
    print("cs_first_row", lh, 16);
    CumSum(d, l, x, CumSumInfo{4, 8});  // the default config: last axis, no last row
    print("cs_default", d, 32);
}

void case_cumsum_misaligned() {
    Ub ub;
    auto x = ub.at<float>(32, 0);
    auto d = ub.at<float>(32, 1024);
    CumSum(d, d, x, CumSumInfo{4, 5});
}

void case_glu() {
    Ub ub;
    auto a = ub.at<float>(64, 0);
    auto b = ub.at<float>(64, 1024);
    auto d = ub.at<float>(64, 2048);
    fill(a, 64, 0.3f);
    fill(b, 64, 0.27f, 0.1f);
    print("glu_a", a, 64);
    print("glu_b", b, 64);
    SwiGLU(d, a, b, 1.5f, 64);
    print("swiglu", d, 64);
    GeGLU(d, a, b, ub.at<uint8_t>(1024, 8192));
    print("geglu", d, 64);
    ReGlu(d, a, b, 64);
    print("reglu", d, 64);
    FasterGeluV2(d, b, 64);
    print("fgv2", d, 64);
    auto ah = ub.at<half>(32, 3072);
    auto bh = ub.at<half>(32, 4096);
    auto dh = ub.at<half>(32, 5120);
    fill(ah, 32, 0.3f);
    fill(bh, 32, 0.27f, 0.1f);
    print("glu_ah", ah, 32);
    print("glu_bh", bh, 32);
    SwiGLU(dh, ah, bh, 1.0f);
    print("swiglu_h", dh, 32);
    GeGLU<half>(dh, ah, bh, 32);
    print("geglu_h", dh, 32);
    FasterGeluV2(dh, bh, ub.at<uint8_t>(1024, 8192), 32);
    print("fgv2_h", dh, 32);
    auto ab = ub.at<bfloat16_t>(32, 6144);
    auto bb = ub.at<bfloat16_t>(32, 6400);
    auto db = ub.at<bfloat16_t>(32, 6656);
    fill(ab, 32, 0.3f);
    fill(bb, 32, 0.27f, 0.1f);
    print("glu_ab", ab, 32);
    print("glu_bb", bb, 32);
    ReGlu(db, ab, bb, ub.at<uint8_t>(2048, 8192), 32);  // 16-bit ReGlu needs 6 x 256 bytes
    print("reglu_bf", db, 32);
}

void case_glu_trace() {
    Ub ub;
    auto a = ub.at<float>(64, 0);
    Duplicate(a, 0.5f, 64);
    SwiGLU(a, a, a, 1.0f, 64);
}

void case_glu_tmp_overlap() {
    Ub ub;
    auto a = ub.at<float>(64, 0);
    auto d = ub.at<float>(64, 1024);
    GeGLU(d, a, a, ub.at<uint8_t>(256, 1024 + 128), 64);  // tmp overlaps dst
}

void case_rmsnorm() {
    Ub ub;
    // host side: float [1, 4, 16] stored, 13 original; tmp sizes and the tiling from the minimum
    uint32_t mx = 0, mn = 0;
    const bool ok = GetRmsNormMaxMinTmpSize(ge::Shape({1, 4, 16}), 4, mx, mn);
    RmsNormTiling t;
    const bool tok = GetRmsNormTilingInfo(ge::Shape({1, 4, 16}), ge::Shape({1, 4, 13}), mn, 4, t);
    std::printf("rms_host %d %u %u %d %u %u %u %u %u %u %u\n", ok, mx, mn, tok, t.hLength, t.originalHLength,
                t.mainBsLength, t.mainBshLength, t.mainBsLengthAlign, t.loopRound, t.tailBshLength);
    uint32_t mx2 = 0, mn2 = 0;
    RmsNormTiling t2;
    const bool ok2 = GetRmsNormMaxMinTmpSize(ge::Shape({2, 16, 64}), 2, mx2, mn2, true);
    const bool bad = GetRmsNormMaxMinTmpSize(ge::Shape({2, 3, 64}), 2, mx2, mn2, true);  // B*S not a multiple of 8
    const bool small = GetRmsNormTilingInfo(ge::Shape({2, 16, 64}), ge::Shape({2, 16, 64}), 543, 2, t2);
    const bool tok2 = GetRmsNormTilingInfo(ge::Shape({2, 16, 64}), ge::Shape({2, 16, 64}), 544 + 4 * 8 * 128, 2, t2);
    std::printf("rms_host2 %d %u %u %d %d %d %u %u %u\n", ok2, mx2, mn2, bad, small, tok2, t2.mainBsLength,
                t2.loopRound, t2.tailBsLength);
    auto x = ub.at<float>(64, 0);
    auto g = ub.at<float>(16, 1024);
    auto d = ub.at<float>(64, 2048);
    fill(x, 64, 0.21f);
    fill(g, 16, 0.1f, 1.0f);
    print("rms_x", x, 64);
    print("rms_g", g, 16);
    RmsNorm(d, x, g, ub.at<uint8_t>(mn, 4096), 1e-5f, t);
    print("rms_f32", d, 64);
    auto xh = ub.at<half>(64, 8192);  // [2, 1, 32] half, no padding
    auto gh = ub.at<half>(32, 8448);
    auto dh = ub.at<half>(64, 8704);
    fill(xh, 64, 0.5f);
    fill(gh, 32, 0.05f, 1.0f);
    print("rms_xh", xh, 64);
    print("rms_gh", gh, 32);
    RmsNormTiling th;
    GetRmsNormTilingInfo(ge::Shape({2, 1, 32}), ge::Shape({2, 1, 32}), 4096, 2, th);
    RmsNorm<half>(dh, xh, gh, static_cast<half>(1e-3f), th);
    print("rms_f16", dh, 64);
}

void case_rmsnorm_tmp_small() {
    Ub ub;
    RmsNormTiling t;
    GetRmsNormTilingInfo(ge::Shape({1, 4, 16}), ge::Shape({1, 4, 16}), 4096, 4, t);
    auto x = ub.at<float>(64, 0);
    RmsNorm(ub.at<float>(64, 1024), x, ub.at<float>(16, 2048), ub.at<uint8_t>(64, 4096), 1e-5f, t);  // small tmp
}

void case_rmsnorm_untiled() {
    Ub ub;
    RmsNormTiling t;  // never filled
    auto x = ub.at<float>(64, 0);
    RmsNorm(ub.at<float>(64, 1024), x, ub.at<float>(16, 2048), 1e-5f, t);  // untiled
}

void case_rmsnorm_gamma_overlap() {
    Ub ub;
    RmsNormTiling t;
    GetRmsNormTilingInfo(ge::Shape({1, 4, 16}), ge::Shape({1, 4, 16}), 4096, 4, t);
    auto x = ub.at<float>(64, 0);
    RmsNorm(ub.at<float>(64, 1024), x, ub.at<float>(16, 1024 + 64), 1e-5f, t);  // gamma inside dst
}

void case_layernorm() {
    Ub ub;
    uint32_t mx = 0, mn = 0;
    GetLayerNormMaxMinTmpSize(ge::Shape({1, 8, 8, 8}), 4, false, mx, mn);
    LayerNormTiling t;
    GetLayerNormNDTilingInfo(ge::Shape({1, 8, 8, 8}), mn, 4, false, t);
    std::printf("ln_host %u %u %u %u %u %u %u %u\n", mx, mn, t.hLength, t.oneTmpSize, t.loopRound, t.numberOfTmpBuf,
                t.meanVarRoundSize, t.thirdTmpStartPos);
    // the reference's example: x = 0..63 as [1, 8, 8], gamma = beta = 0..7
    auto x = ub.at<float>(64, 0);
    auto g = ub.at<float>(8, 1024);
    auto b = ub.at<float>(8, 1280);
    for (int i = 0; i < 64; ++i) x.SetValue(i, float(i));
    for (int i = 0; i < 8; ++i) {
        g.SetValue(i, float(i));
        b.SetValue(i, float(i));
    }
    auto o = ub.at<float>(64, 2048);
    auto m = ub.at<float>(8, 3072);
    auto v = ub.at<float>(8, 3328);
    LayerNorm<float, false>(o, m, v, x, g, b, ub.at<uint8_t>(mn, 4096), 1e-5f, t);
    print("ln_out", o, 64);
    print("ln_mean", m, 8);
    print("ln_var", v, 8);
    LayerNorm<float>(x, m, v, x, g, b, 1e-5f, t);  // output may share inputX
    print("ln_inplace", x, 64);
    // half [2, 1, 16] with an irregular row
    LayerNormTiling th;
    uint32_t mxh = 0, mnh = 0;
    GetLayerNormMaxMinTmpSize(ge::Shape({2, 1, 16, 16}), 2, false, mxh, mnh);
    GetLayerNormNDTilingInfo(ge::Shape({2, 1, 16, 16}), mxh, 2, false, th);
    auto xh = ub.at<half>(32, 8192);
    auto gh = ub.at<half>(16, 8448);
    auto bh = ub.at<half>(16, 8704);
    auto oh = ub.at<half>(32, 8960);
    auto mh = ub.at<half>(16, 9216);
    auto vh = ub.at<half>(16, 9472);
    fill(xh, 32, 0.4f);
    fill(gh, 16, 0.05f, 1.0f);
    fill(bh, 16, 0.02f);
    print("lnh_x", xh, 32);
    print("lnh_g", gh, 16);
    print("lnh_b", bh, 16);
    LayerNorm<half>(oh, mh, vh, xh, gh, bh, static_cast<half>(1e-3f), th);
    print("lnh_out", oh, 32);
    print("lnh_mean", mh, 2);
    print("lnh_var", vh, 2);
}

void case_layernorm_pad_nonzero() {
    Ub ub;
    LayerNormTiling t;
    GetLayerNormNDTilingInfo(ge::Shape({1, 2, 8, 6}), 4096, 4, false, t);  // 6 of 8 valid
    auto x = ub.at<float>(16, 0);
    Duplicate(x, 1.0f, 16);
    auto g = ub.at<float>(8, 1024);
    auto o = ub.at<float>(16, 2048);
    auto m = ub.at<float>(8, 3072);
    LayerNorm<float>(o, m, ub.at<float>(8, 3328), x, g, g, 1e-5f, t);  // pads of 1
}

void case_layernorm_mean_overlap() {
    Ub ub;
    LayerNormTiling t;
    GetLayerNormNDTilingInfo(ge::Shape({1, 2, 8, 8}), 4096, 4, false, t);
    auto x = ub.at<float>(16, 0);
    auto g = ub.at<float>(8, 1024);
    LayerNorm<float>(ub.at<float>(16, 2048), x, ub.at<float>(8, 3328), x, g, g, 1e-5f, t);  // mean over inputX
}

constexpr LayerNormConfig LN_NO_BETA = {true, false, false, true};

void case_layernorm_rstd() {
    Ub ub;
    uint32_t mx = 0, mn = 0;
    GetLayerNormMaxMinTmpSize(ge::Shape({3, 10}), 4, false, true, false, mx, mn);
    LayerNormSeparateTiling t;
    GetLayerNormNDTilingInfo(ge::Shape({3, 10}), mn, 4, false, true, t);
    std::printf("lnr_host %u %u %u %u %u %.9g\n", mx, mn, t.aLength, t.oneTmpSize, t.loopRound, t.rValueBack);
    auto x = ub.at<float>(48, 0);  // [3, 10] stored with rows of 16
    Duplicate(x, 0.0f, 48);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 10; ++j) x.SetValue(i * 16 + j, float(((i * 10 + j) * 7 % 13) - 6) * 0.3f);
    auto g = ub.at<float>(16, 1024);
    auto b = ub.at<float>(16, 1280);
    fill(g, 16, 0.1f, 1.0f);
    fill(b, 16, 0.05f);
    auto o = ub.at<float>(48, 2048);
    auto m = ub.at<float>(8, 3072);
    auto r = ub.at<float>(8, 3328);
    Duplicate(o, -7.0f, 48);
    print("lnr_x", x, 48);
    print("lnr_g", g, 16);
    print("lnr_b", b, 16);
    LayerNorm<float, float>(o, m, r, x, g, b, 1e-5f, ub.at<uint8_t>(mn, 4096), LayerNormPara{3, 10, 16}, t);
    print("lnr_out", o, 48);
    print("lnr_mean", m, 3);
    print("lnr_rstd", r, 3);
    auto xh = ub.at<half>(32, 8192);  // [2, 16] half, float gamma, no beta
    auto oh = ub.at<half>(32, 8448);
    fill(xh, 32, 0.45f);
    print("lnr_xh", xh, 32);
    LayerNorm<float, half, false, LN_NO_BETA>(oh, m, r, xh, g, b, 1e-5f, LayerNormPara{2, 16, 16}, t);
    print("lnr_outh", oh, 32);
    print("lnr_meanh", m, 2);
    print("lnr_rstdh", r, 2);
}

void case_pad() {
    Ub ub;
    uint32_t mx = 0, mn = 0;
    GetPadMaxMinTmpSize(ge::Shape({320, 63}), 2, mx, mn);
    uint32_t umx = 7, umn = 7;
    GetUnPadMaxMinTmpSize(platform_ascendc::PlatformAscendC(), ge::Shape({16, 16}), 2, umx, umn);
    std::printf("pad_host %u %u %u %u\n", mx, mn, umx, umn);
    // the reference's example: half 16 x 15, one column of 321 on the right
    PadTiling t;
    PadTilingFunc(ge::Shape({16, 15}), ge::Shape({16, 15}), mn, 2, t);
    std::printf("pad_tiling %u %u %u %u %u %u\n", t.srcHeight, t.srcWidth, t.srcOriWidth, t.blocksPerRow,
                t.tmpBuffer1BlockNum, t.widthTiling);
    auto x = ub.at<half>(240, 0);
    for (int i = 0; i < 240; ++i) x.SetValue(i, static_cast<half>(float(i)));
    auto d = ub.at<half>(256, 1024);
    PadParams p1{0, 1, 321};
    Pad(d, x, p1, ub.at<uint8_t>(mn, 8192), t);
    print("pad_half", d, 256);
    // float 4 x 6 rows, one value each side: rows of 8
    PadTiling tf;
    PadTilingFunc(ge::Shape({4, 6}), ge::Shape({4, 6}), 0, 4, tf);
    auto xf = ub.at<float>(24, 2048);
    fill(xf, 24, 1.0f);
    print("pad_f32_in", xf, 24);
    auto df = ub.at<float>(32, 3072);
    Duplicate(df, 99.0f, 32);
    PadParams p2{1, 1, -4};
    Pad(df, xf, p2, tf);
    print("pad_f32", df, 32);
    // int32 4 x 8 with 5 valid columns: columns 5 and 6 take -9, column 7 stays
    PadTiling ti;
    PadTilingFunc(ge::Shape({4, 8}), ge::Shape({4, 5}), 0, 4, ti);
    auto xi = ub.at<int32_t>(32, 4096);
    for (int i = 0; i < 32; ++i) xi.SetValue(i, i);
    auto di = ub.at<int32_t>(32, 5120);
    PadParams p3{0, 2, -9};
    Pad(di, xi, p3, ti);
    print("pad_i32", di, 32);
    // UnPad: half 16 x 16 -> 16 x 15; float 3 x 8 -> 3 x 5
    UnPadTiling u;
    UnPadTilingFunc(ge::Shape({16, 16}), 0, 2, u);
    auto uh = ub.at<half>(240, 6144);
    UnPadParams q1{0, 1};
    UnPad(uh, d, q1, u);
    print("unpad_half", uh, 240);
    UnPadTiling uf;
    UnPadTilingFunc(ge::Shape({3, 8}), 4096, 4, uf);
    std::printf("unpad_tiling %u %u %u %u %u\n", uf.srcHeight, uf.srcWidth, uf.tmpBuffer1BlockNum, uf.widthTiling,
                uf.widthFractalTail);
    auto xu = ub.at<float>(24, 7168);
    fill(xu, 24, 0.5f);
    print("unpad_f32_in", xu, 24);
    auto du = ub.at<float>(16, 7424);
    UnPadParams q2{0, 3};
    LocalTensor<uint8_t> tmp = ub.at<uint8_t>(1024, 8192);
    UnPad(du, xu, q2, tmp, uf);
    print("unpad_f32", du, 15);
}

void case_pad_aligned_full() {
    Ub ub;
    PadTiling t;
    PadTilingFunc(ge::Shape({4, 8}), ge::Shape({4, 8}), 0, 4, t);
    auto x = ub.at<float>(32, 0);
    PadParams p{0, 1, 0};
    Pad(ub.at<float>(32, 1024), x, p, t);  // aligned and all valid
}

void case_pad_too_wide() {
    Ub ub;
    PadTiling t;
    PadTilingFunc(ge::Shape({4, 6}), ge::Shape({4, 6}), 0, 4, t);
    auto x = ub.at<float>(24, 0);
    PadParams p{2, 1, 0};
    Pad(ub.at<float>(32, 1024), x, p, t);  // 2 + 6 + 1 > 8
}

void case_pad_tmp_small() {
    Ub ub;
    PadTiling t;
    PadTilingFunc(ge::Shape({4, 6}), ge::Shape({4, 6}), 1024, 4, t);
    auto x = ub.at<float>(24, 0);
    PadParams p{0, 2, 0};
    Pad(ub.at<float>(32, 1024), x, p, ub.at<uint8_t>(512, 4096), t);  // tmp of 512
}

void case_unpad_bad_right() {
    Ub ub;
    UnPadTiling t;
    UnPadTilingFunc(ge::Shape({4, 8}), 0, 4, t);
    auto x = ub.at<float>(32, 0);
    UnPadParams p{0, 8};
    UnPad(ub.at<float>(32, 1024), x, p, t);  // a whole block
}

// The reference's TopK examples (TopK.md): Normal mode, float [2, 32], the 5 smallest with given indices and the
// second row finished; Small mode, float [4, 32] of 17 values padded with -inf, the 8 largest.
const float TOPK_NORMAL_IN[64] = {
    -18096.555f, -11389.83f, -43112.895f, -21344.77f, 57755.918f, 50911.145f, 24912.621f, -12683.089f,
    45088.004f, -39351.043f, -30153.293f, 11478.329f, 12069.15f, -9215.71f, 45716.44f, -21472.398f,
    -37372.16f, -17460.414f, 22498.03f, 21194.838f, -51229.17f, -51721.918f, -47510.38f, 47899.11f,
    43008.176f, 5495.8975f, -24176.97f, -14308.27f, 53950.695f, 7652.6035f, -45169.168f, -26275.518f,
    -9196.681f, -31549.518f, 18589.23f, -12427.927f, 50491.81f, -20078.11f, -25606.107f, -34466.773f,
    -42512.805f, 50584.48f, 35919.934f, -17283.5f, 6488.137f, -12885.134f, 1942.2147f, -50611.96f,
    52671.477f, 23179.662f, 25814.875f, -69.73492f, 33906.797f, -34662.61f, 46168.71f, -52391.258f,
    57435.332f, 50269.414f, 40935.05f, 21164.176f, 4028.458f, -29022.918f, -46391.133f, 1971.2042f};
const float TOPK_SMALL_IN[4][17] = {
    {55492.18f, 27748.229f, -51100.11f, 19276.926f, 14828.149f, -20771.824f, 57553.4f, -21504.092f, -57423.414f,
     142.36443f, -5223.254f, 54669.473f, 54519.184f, 10165.924f, -658.4564f, 2264.2397f, -52942.883f},
    {-52849.074f, 57778.72f, 37069.496f, 16273.109f, -25150.637f, -35680.5f, -15823.097f, 4327.308f, -35853.86f,
     -7052.2627f, 44148.117f, -17515.457f, -18926.059f, -1650.6737f, 21753.582f, -2589.2822f, 39390.4f},
    {-17539.186f, -15220.923f, 29945.332f, -4088.1514f, 28482.525f, 29750.484f, -46082.03f, 31141.16f, 23140.047f,
     8461.174f, 39955.844f, 29401.35f, 53757.543f, 33584.566f, -3543.6284f, -38318.344f, 22212.41f},
    {-9970.768f, -9191.963f, -17903.045f, 2211.4912f, 47037.562f, -41114.824f, 13305.985f, 59926.07f, -24316.797f,
     -6462.8896f, 5699.733f, -5873.5015f, 15695.861f, -38492.004f, 19581.654f, -36877.68f, 27090.158f}};

void case_topk() {
    Ub ub;
    const platform_ascendc::PlatformAscendC plat;
    uint32_t mx = 0, mn = 0;
    GetTopKMaxMinTmpSize(plat, 32, 2, false, true, TopKMode::TOPK_NORMAL, false, 4, mx, mn);
    TopkTiling t;
    TopKTilingFunc(plat, 32, 2, 5, 4, true, TopKMode::TOPK_NORMAL, false, t);
    std::printf("topk_host %u %u %d %d %d %d %d\n", mx, mn, t.tmpLocalSize, t.innerDataSize, t.maskOffset,
                t.kAlignFourBytes, t.mrgSortRepeat);
    auto x = ub.at<float>(64, 0);
    for (int i = 0; i < 64; ++i) x.SetValue(i, TOPK_NORMAL_IN[i]);
    auto idx = ub.at<int32_t>(32, 512);
    for (int i = 0; i < 32; ++i) idx.SetValue(i, i);
    auto fin = ub.at<bool>(32, 768);
    for (int i = 0; i < 32; ++i) fin.SetValue(i, i == 1);
    auto dv = ub.at<float>(16, 1024);
    auto di = ub.at<int32_t>(16, 1280);
    Duplicate(dv, 0.0f, 16);
    Duplicate(di, -1, 16);
    TopK<float, true, true, false, TopKMode::TOPK_NORMAL>(dv, di, x, idx, fin, ub.at<uint8_t>(mn, 8192), 5, t,
                                                          TopKInfo{2, 32, 32}, false);
    print("topk_nv", dv, 16);
    print("topk_ni", di, 16);
    // Small mode
    uint32_t smx = 0, smn = 0;
    GetTopKMaxMinTmpSize(plat, 32, 4, false, true, TopKMode::TOPK_NSMALL, true, 4, smx, smn);
    TopkTiling ts;
    TopKTilingFunc(plat, 32, 4, 8, 4, true, TopKMode::TOPK_NSMALL, true, ts);
    std::printf("topk_small_host %u %u %d %d %u %u\n", smx, smn, ts.tmpLocalSize, ts.topkMrgSrc1MaskSizeOffset,
                ts.vreduceIdxMask0, ts.vreduceValMask0);
    auto xs = ub.at<float>(128, 2048);
    auto is = ub.at<int32_t>(128, 2560);
    for (int r = 0; r < 4; ++r)
        for (int j = 0; j < 32; ++j) {
            xs.SetValue(r * 32 + j, j < 17 ? TOPK_SMALL_IN[r][j] : -INFINITY);
            is.SetValue(r * 32 + j, j);
        }
    auto sv = ub.at<float>(32, 3072);
    auto si = ub.at<int32_t>(32, 3328);
    TopK<float, true, false, false, TopKMode::TOPK_NSMALL>(sv, si, xs, is, fin, 8, ts, TopKInfo{4, 32, 17}, true);
    print("topk_sv", sv, 32);
    print("topk_si", si, 32);
    // half, Normal, positions as indices, ties (the earlier position first) and a NaN (first in either order)
    auto xh = ub.at<half>(64, 4096);
    for (int i = 0; i < 64; ++i) xh.SetValue(i, static_cast<half>(float((i * 5) % 7)));
    xh.SetValue(40, static_cast<half>(NAN));
    print("topk_hin", xh, 64);
    auto hv = ub.at<half>(16, 4352);
    auto hi = ub.at<int32_t>(16, 4608);
    TopK<half>(hv, hi, xh, idx, fin, 4, t, TopKInfo{1, 64, 64});
    print("topk_hv", hv, 4);
    print("topk_hi", hi, 4);
    TopK<half>(hv, hi, xh, idx, fin, 4, t, TopKInfo{1, 64, 64}, false);
    print("topk_hv_min", hv, 4);
    print("topk_hi_min", hi, 4);
}

void case_topk_padding_chosen() {
    Ub ub;
    TopkTiling t;
    auto x = ub.at<float>(32, 0);
    Duplicate(x, 1.0f, 32);
    x.SetValue(30, 5.0f);  // a padding value that sorts first
    auto idx = ub.at<int32_t>(32, 512);
    auto fin = ub.at<bool>(32, 768);
    auto dv = ub.at<float>(8, 1024);
    TopK<float>(dv, ub.at<int32_t>(8, 1280), x, idx, fin, 2, t, TopKInfo{1, 32, 20});  // padding chosen
}

void case_topk_bad_k() {
    Ub ub;
    TopkTiling t;
    auto x = ub.at<float>(32, 0);
    auto idx = ub.at<int32_t>(32, 512);
    auto fin = ub.at<bool>(32, 768);
    TopK<float>(ub.at<float>(8, 1024), ub.at<int32_t>(8, 1280), x, idx, fin, 21, t, TopKInfo{1, 32, 20});  // k > n
}

void case_topk_tmp_small() {
    Ub ub;
    TopkTiling t;
    auto x = ub.at<float>(32, 0);
    auto idx = ub.at<int32_t>(32, 512);
    auto fin = ub.at<bool>(32, 768);
    auto tmp = ub.at<uint8_t>(256, 4096);
    TopK<float>(ub.at<float>(8, 1024), ub.at<int32_t>(8, 1280), x, idx, fin, tmp, 2, t, TopKInfo{1, 32, 32});  // tmp
}

void case_tmp_sizes() {
    uint32_t v[2] = {0, 0};
    std::printf("tmp_sizes");
    GetMeanMaxMinTmpSize(3, 2, 4, false, v[0], v[1]);  // the reference's example: half rows of 3 summed in float
    std::printf(" %u %u", v[0], v[1]);
    GetMeanMaxMinTmpSize(200, 4, 4, false, v[0], v[1]);
    std::printf(" %u %u", v[0], v[1]);
    GetSwiGLUMaxMinTmpSize(ge::Shape({4, 256}), 2, v[0], v[1]);
    std::printf(" %u %u", v[0], v[1]);
    GetGeGLUMaxMinTmpSize(ge::Shape({64}), 2, false, v[0], v[1]);
    std::printf(" %u %u", v[0], v[1]);
    GetReGluMaxMinTmpSize(ge::Shape({1024}), 4, false, v[0], v[1]);
    std::printf(" %u %u", v[0], v[1]);
    GetCumSumMaxMinTmpSize(ge::Shape({20, 16}), 2, true, false, v[0], v[1]);
    std::printf(" %u %u", v[0], v[1]);
    GetCumSumMaxMinTmpSize(ge::Shape({20, 16}), 4, false, false, v[0], v[1]);
    std::printf(" %u %u\n", v[0], v[1]);
}

void case_swiglu_tmp_small() {
    Ub ub;
    auto a = ub.at<half>(64, 0);
    auto d = ub.at<half>(64, 1024);
    SwiGLU(d, a, a, 1.0f, ub.at<uint8_t>(1024, 4096), 64);  // half needs 6 x 256
}

const std::map<std::string, std::function<void()>> CASES = {
    {"mean", case_mean},
    {"mean_bad_n", case_mean_bad_n},
    {"reduce", case_reduce},
    {"reduce_not_bool", case_reduce_not_bool},
    {"reduce_overlap", case_reduce_overlap},
    {"reduce_tmp_overlap", case_reduce_tmp_overlap},
    {"cumsum", case_cumsum},
    {"cumsum_misaligned", case_cumsum_misaligned},
    {"glu", case_glu},
    {"glu_trace", case_glu_trace},
    {"glu_tmp_overlap", case_glu_tmp_overlap},
    {"rmsnorm", case_rmsnorm},
    {"rmsnorm_tmp_small", case_rmsnorm_tmp_small},
    {"rmsnorm_untiled", case_rmsnorm_untiled},
    {"rmsnorm_gamma_overlap", case_rmsnorm_gamma_overlap},
    {"layernorm", case_layernorm},
    {"layernorm_pad_nonzero", case_layernorm_pad_nonzero},
    {"layernorm_mean_overlap", case_layernorm_mean_overlap},
    {"layernorm_rstd", case_layernorm_rstd},
    {"pad", case_pad},
    {"pad_aligned_full", case_pad_aligned_full},
    {"pad_too_wide", case_pad_too_wide},
    {"pad_tmp_small", case_pad_tmp_small},
    {"unpad_bad_right", case_unpad_bad_right},
    {"topk", case_topk},
    {"tmp_sizes", case_tmp_sizes},
    {"swiglu_tmp_small", case_swiglu_tmp_small},
    {"topk_padding_chosen", case_topk_padding_chosen},
    {"topk_bad_k", case_topk_bad_k},
    {"topk_tmp_small", case_topk_tmp_small},
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2 || CASES.count(argv[1]) == 0) {
        std::fprintf(stderr, "usage: library_driver <case>\n");
        return 2;
    }
    tw::Launch l;
    std::fflush(stdout);
    auto r = tw::run_blocks(l, 1, CASES.at(argv[1]));
    std::fflush(stdout);
    if (r.ok) std::printf("result ok\n");
    else std::printf("result error %s %d %s\n", r.kind.c_str(), r.line, r.message.c_str());
    for (const tw::TraceRecord& t : r.blocks[0].trace)
        if (t.kind == tw::Rec::Instr) std::printf("trace %s %d\n", l.names[t.op].c_str(), int(t.pipe));
    return 0;
}
