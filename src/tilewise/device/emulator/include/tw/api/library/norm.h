// RmsNorm and LayerNorm of the AscendC high-level library, written from the Ascend C API reference (高阶API /
// 归一化操作: RmsNorm.md, LayerNorm.md, and their Tiling pages):
//
//   RmsNorm<T, isBasicBlock>(dst, src, gamma[, tmp], epsilon, RmsNormTiling)       src [B, S, H], gamma [H]
//       dst = src / sqrt(mean(src^2) + epsilon) * gamma, the mean over the original H (originalHLength); every
//       element of the stored (32-byte aligned) H is written, as the reference says.
//   LayerNorm<T, isReuseSource>(out, mean, variance, x, gamma, beta[, tmp], epsilon, LayerNormTiling)
//       per row of [B, S, H]: mean, variance = mean((x - mean)^2), out = (x - mean) / sqrt(variance + epsilon)
//       * gamma + beta; mean and variance are [B, S] of T.
//   LayerNorm<U, T, isReuseSource, LayerNormConfig>(out, mean, rstd, x, gamma, beta, epsilon[, tmp], LayerNormPara,
//       LayerNormSeparateTiling)    per row of [A, R]: float mean and rstd = 1 / sqrt(variance + epsilon); gamma and
//       beta (type U, at least T's precision) may be left out with isNoGamma / isNoBeta.
//
// Rows are computed in float (half cast up, as the library does) and rounded once. Checked: a tiling that was never
// filled (hLength 0), the 32-byte aligned H / R, the sharedTmpBuffer against the minimum the host's
// GetXxxMaxMinTmpSize gives (RmsNorm, the [B, S, H] LayerNorm), the zero padding LayerNorm requires, the operand
// overlaps the reference forbids, the basic-block shape of RmsNorm<T, true>, and the 950-only / unsupported configs.
//
// Cost: the trace records the reference's steps (RmsNorm: Mul, WholeReduceSum, Muls, Adds, Sqrt, Brcb, Div, Mul;
// LayerNorm: Muls, WholeReduceSum, Brcb, Sub, Mul, Muls, WholeReduceSum, Adds, Ln, Muls, Exp, Mul, Mul, Add; with
// Casts around them for half), so the timing model costs them on the vector pipe.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "tw/api/library/reduce_scan.h"
#include "tw/tiling/norm.h"

namespace tw {

inline uint32_t align32(uint32_t bytes) { return (bytes + 31) / 32 * 32; }

// The minimum scratch the host's GetRmsNormMaxMinTmpSize / GetLayerNormMaxMinTmpSize report (tw_host/norm_tiling.h).
inline uint32_t rmsnorm_min_tmp(uint32_t h, uint32_t type_size) { return (h * (type_size == 2 ? 2 : 1) + 8) * 4; }
inline uint32_t layernorm_min_tmp(uint32_t bs, uint32_t h, uint32_t type_size, bool reuse) {
    return (reuse && type_size == 4 ? 2 : 3) * align32(h * 4) + 2 * align32(bs * 4);
}

inline void check_tmp_size(const AscendC::LocalTensor<uint8_t>& tmp, uint32_t need, const char* name,
                           const char* host_fn, const char* file, int line) {
    if (tmp.GetSize() != 0 && tmp.GetSize() < need)
        fail("work_buffer_too_small", std::string(name) + ": sharedTmpBuffer holds " + std::to_string(tmp.GetSize()) +
             " bytes, less than the minimum " + std::to_string(need) + " that " + host_fn + " gives", file, line);
}

template <typename T>
inline float fval(T v) { return static_cast<float>(to_c<T>(v)); }

template <typename T>
inline void rmsnorm(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                    const AscendC::LocalTensor<T>& gamma, const AscendC::LocalTensor<uint8_t>& tmp, T epsilon,
                    const ::optiling::RmsNormTiling& t, bool basic, const char* file, int line) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "RmsNorm takes half or float");
    const uint64_t bs = uint64_t(t.bLength) * t.sLength, h = t.hLength, oh = t.originalHLength;
    if (h == 0 || bs == 0 || oh == 0 || oh > h)
        fail("invalid_param", "RmsNorm: the tiling gives no usable shape (B*S " + std::to_string(bs) + ", H " +
             std::to_string(h) + ", original H " + std::to_string(oh) + "; was it filled by GetRmsNormTilingInfo?)",
             file, line);
    if (h * sizeof(T) % 32 != 0)
        fail("misaligned", "RmsNorm: H (" + std::to_string(h) + ") is not 32-byte aligned", file, line);
    if (basic && (h % 64 != 0 || h >= 2048 || bs % 8 != 0))
        fail("invalid_argument", "RmsNorm with isBasicBlock: H must be a multiple of 64 below 2048 and B*S a multiple "
             "of 8 (H " + std::to_string(h) + ", B*S " + std::to_string(bs) + ")", file, line);
    check_tmp_size(tmp, rmsnorm_min_tmp(uint32_t(h), sizeof(T)), "RmsNorm", "GetRmsNormMaxMinTmpSize", file, line);
    const T* x = src.span(0, bs * h, "RmsNorm", file, line);
    const T* g = gamma.span(0, h, "RmsNorm", file, line);
    T* d = dst.span(0, bs * h, "RmsNorm", file, line);
    lib_no_overlap(d, bs * h * sizeof(T), g, h * sizeof(T), "RmsNorm", "dstLocal and gammaLocal", file, line);
    lib_tmp_apart(tmp, x, bs * h, d, bs * h, "RmsNorm", file, line);
    const float eps = fval<T>(epsilon);
    const float rec = t.reciprocalOfHLength != 0.0f ? t.reciprocalOfHLength : 1.0f / float(oh);
    std::vector<T> out(bs * h);
    for (uint64_t r = 0; r < bs; ++r) {
        const T* xr = x + r * h;
        float ss = 0.0f;
        for (uint64_t j = 0; j < oh; ++j) ss += fval<T>(xr[j]) * fval<T>(xr[j]);
        const float root = std::sqrt(ss * rec + eps);
        for (uint64_t j = 0; j < h; ++j) out[r * h + j] = from_c<T>(fval<T>(xr[j]) / root * fval<T>(g[j]));
    }
    for (uint64_t i = 0; i < bs * h; ++i) d[i] = out[i];
    const bool widen = std::is_same<T, half>::value;
    if (widen) vrec_count<T>("Cast", file, line, bs * h + h);
    vrec_count<float>("Mul", file, line, bs * h);
    vrec_count<float>("WholeReduceSum", file, line, bs * h);
    for (const char* n : {"Muls", "Adds", "Sqrt"}) vrec_count<float>(n, file, line, bs);
    vrec_count<float>("Brcb", file, line, bs * 8);
    vrec_count<float>("Div", file, line, bs * h);
    vrec_count<float>("Mul", file, line, bs * h);
    if (widen) vrec_count<float>("Cast", file, line, bs * h);
}

// One row of a layer norm: mean and variance over the first n of the row, out over the first w.
struct LnRow {
    float mean, var;
};
template <typename T>
inline LnRow ln_stats(const T* xr, uint64_t n) {
    float s = 0.0f;
    for (uint64_t j = 0; j < n; ++j) s += fval<T>(xr[j]);
    const float mean = s / float(n);
    float v = 0.0f;
    for (uint64_t j = 0; j < n; ++j) v += (fval<T>(xr[j]) - mean) * (fval<T>(xr[j]) - mean);
    return LnRow{mean, v / float(n)};
}

inline void ln_trace(bool widen_in, uint64_t rows, uint64_t n, const char* file, int line) {
    if (widen_in) vrec_count<half>("Cast", file, line, n);
    vrec_count<float>("Muls", file, line, n);
    vrec_count<float>("WholeReduceSum", file, line, n);
    vrec_count<float>("Brcb", file, line, rows * 8);
    for (const char* s : {"Sub", "Mul", "Muls"}) vrec_count<float>(s, file, line, n);
    vrec_count<float>("WholeReduceSum", file, line, n);
    for (const char* s : {"Adds", "Ln", "Muls", "Exp"}) vrec_count<float>(s, file, line, rows);
    vrec_count<float>("Brcb", file, line, rows * 8);
    for (const char* s : {"Mul", "Mul", "Add"}) vrec_count<float>(s, file, line, n);
    if (widen_in) vrec_count<float>("Cast", file, line, n);
}

template <typename T>
inline void layernorm_bsh(const AscendC::LocalTensor<T>& out, const AscendC::LocalTensor<T>& mean,
                          const AscendC::LocalTensor<T>& var, const AscendC::LocalTensor<T>& x,
                          const AscendC::LocalTensor<T>& gamma, const AscendC::LocalTensor<T>& beta,
                          const AscendC::LocalTensor<uint8_t>& tmp, T epsilon, const ::optiling::LayerNormTiling& t,
                          bool reuse, const char* file, int line) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "LayerNorm takes half or float");
    const uint64_t bs = uint64_t(t.bLength) * t.sLength, h = t.hLength, oh = t.originalHLength;
    if (h == 0 || bs == 0 || oh == 0 || oh > h)
        fail("invalid_param", "LayerNorm: the tiling gives no usable shape (B*S " + std::to_string(bs) + ", H " +
             std::to_string(h) + "; was it filled by GetLayerNormNDTilingInfo with enough stackBufferSize?)", file,
             line);
    if (h * sizeof(T) % 32 != 0)
        fail("misaligned", "LayerNorm: H (" + std::to_string(h) + ") is not 32-byte aligned", file, line);
    check_tmp_size(tmp, layernorm_min_tmp(uint32_t(bs), uint32_t(h), sizeof(T), reuse), "LayerNorm",
                   "GetLayerNormMaxMinTmpSize", file, line);
    const T* xp = x.span(0, bs * h, "LayerNorm", file, line);
    const T* g = gamma.span(0, h, "LayerNorm", file, line);
    const T* b = beta.span(0, h, "LayerNorm", file, line);
    T* o = out.span(0, bs * h, "LayerNorm", file, line);
    T* m = mean.span(0, bs, "LayerNorm", file, line);
    T* v = var.span(0, bs, "LayerNorm", file, line);
    // out may share inputX's space; no other output may share an input's
    const struct { const void* p; uint64_t n; const char* what; } ins[] = {
        {xp, bs * h, "inputX"}, {g, h, "gamma"}, {b, h, "beta"}};
    const struct { const void* p; uint64_t n; const char* what; } outs[] = {
        {m, bs, "outputMean"}, {v, bs, "outputVariance"}, {o, bs * h, "output"}};
    for (const auto& a : outs)
        for (const auto& i : ins)
            if (!(a.p == o && i.p == xp))
                lib_no_overlap(a.p, a.n * sizeof(T), i.p, i.n * sizeof(T), "LayerNorm",
                               (std::string(a.what) + " and " + i.what).c_str(), file, line);
    lib_tmp_apart(tmp, xp, bs * h, o, bs * h, "LayerNorm", file, line);
    for (uint64_t r = 0; r < bs; ++r)
        for (uint64_t j = oh; j < h; ++j)
            if (fval<T>(xp[r * h + j]) != 0.0f)
                fail("invalid_argument", "LayerNorm: inputX row " + std::to_string(r) + " has a non-zero pad at " +
                     std::to_string(j) + " (the reference requires the H padding to be 0)", file, line);
    const float eps = fval<T>(epsilon);
    std::vector<T> res(bs * h);
    for (uint64_t r = 0; r < bs; ++r) {
        const LnRow s = ln_stats(xp + r * h, oh);
        const float scale = 1.0f / std::sqrt(s.var + eps);
        for (uint64_t j = 0; j < h; ++j)
            res[r * h + j] = from_c<T>((fval<T>(xp[r * h + j]) - s.mean) * scale * fval<T>(g[j]) + fval<T>(b[j]));
        m[r] = from_c<T>(s.mean);
        v[r] = from_c<T>(s.var);
    }
    for (uint64_t i = 0; i < bs * h; ++i) o[i] = res[i];
    ln_trace(std::is_same<T, half>::value, bs, bs * h, file, line);
}

template <typename U, typename T, const AscendC::LayerNormConfig& config>
inline void layernorm_ar(const AscendC::LocalTensor<T>& out, const AscendC::LocalTensor<float>& mean,
                         const AscendC::LocalTensor<float>& rstd, const AscendC::LocalTensor<T>& x,
                         const AscendC::LocalTensor<U>& gamma, const AscendC::LocalTensor<U>& beta, float epsilon,
                         const AscendC::LocalTensor<uint8_t>& tmp, const AscendC::LayerNormPara& p,
                         const char* file, int line) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value,
                  "LayerNorm (rstd form) takes half or float on the A2");
    static_assert(sizeof(U) >= sizeof(T) && is_fp_v<U>, "LayerNorm: gamma / beta may not be less precise than inputX");
    if (config.isOnlyOutput)
        fail("invalid_argument", "LayerNorm: LayerNormConfig.isOnlyOutput must be false (the only value supported)",
             file, line);
    if (!config.isOutputRstd)
        fail("unsupported", "LayerNorm: outputting the variance (isOutputRstd = false) is an Ascend 950 feature",
             file, line);
    const uint64_t a = p.aLength, r = p.rLength, rp = p.rLengthWithPadding;
    if (a == 0 || r == 0 || rp < r)
        fail("invalid_argument", "LayerNorm: LayerNormPara needs aLength, rLength > 0 and rLengthWithPadding >= "
             "rLength", file, line);
    if (rp * sizeof(T) % 32 != 0)
        fail("misaligned", "LayerNorm: rLengthWithPadding (" + std::to_string(rp) + ") is not 32-byte aligned", file,
             line);
    const T* xp = x.span(0, a * rp, "LayerNorm", file, line);
    T* o = out.span(0, a * rp, "LayerNorm", file, line);
    float* m = mean.span(0, a, "LayerNorm", file, line);
    float* rs = rstd.span(0, a, "LayerNorm", file, line);
    const U* g = config.isNoGamma ? nullptr : gamma.span(0, r, "LayerNorm", file, line);
    const U* b = config.isNoBeta ? nullptr : beta.span(0, r, "LayerNorm", file, line);
    lib_no_overlap(o, a * rp * sizeof(T), xp, a * rp * sizeof(T), "LayerNorm", "output and inputX", file, line);
    lib_tmp_apart(tmp, xp, a * rp, o, a * rp, "LayerNorm", file, line);
    for (uint64_t i = 0; i < a; ++i) {
        const LnRow s = ln_stats(xp + i * rp, r);
        const float rstd_i = 1.0f / std::sqrt(s.var + epsilon);
        for (uint64_t j = 0; j < r; ++j) {
            float y = (fval<T>(xp[i * rp + j]) - s.mean) * rstd_i;
            if (g) y *= fval<U>(g[j]);
            if (b) y += fval<U>(b[j]);
            o[i * rp + j] = from_c<T>(y);
        }
        m[i] = s.mean;
        rs[i] = rstd_i;
    }
    ln_trace(std::is_same<T, half>::value, a, a * rp, file, line);
}

}  // namespace tw

namespace AscendC {

template <typename T, bool isBasicBlock = false>
void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& gammaLocal,
             const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon, const RmsNormTiling& tiling, TW_SRC) {
    tw::rmsnorm(dstLocal, srcLocal, gammaLocal, sharedTmpBuffer, epsilon, tiling, isBasicBlock, TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isBasicBlock = false), RmsNorm, (T, isBasicBlock),
        (const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& gammaLocal,
        const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon, const RmsNormTiling& tiling), (dstLocal,
        srcLocal, gammaLocal, sharedTmpBuffer, epsilon, tiling), )
template <typename T, bool isBasicBlock = false>
void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& gammaLocal,
             const T epsilon, const RmsNormTiling& tiling, TW_SRC) {
    tw::rmsnorm(dstLocal, srcLocal, gammaLocal, LocalTensor<uint8_t>(), epsilon, tiling, isBasicBlock, TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isBasicBlock = false), RmsNorm, (T, isBasicBlock),
        (const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& gammaLocal,
        const T epsilon, const RmsNormTiling& tiling), (dstLocal, srcLocal, gammaLocal, epsilon, tiling), )

template <typename T, bool isReuseSource = false>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance,
               const LocalTensor<T>& inputX, const LocalTensor<T>& gamma, const LocalTensor<T>& beta,
               const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon, LayerNormTiling& tiling, TW_SRC) {
    tw::layernorm_bsh(output, outputMean, outputVariance, inputX, gamma, beta, sharedTmpBuffer, epsilon, tiling,
                      isReuseSource, TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), LayerNorm, (T, isReuseSource),
        (const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance,
        const LocalTensor<T>& inputX, const LocalTensor<T>& gamma, const LocalTensor<T>& beta,
        const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon, LayerNormTiling& tiling), (output, outputMean,
        outputVariance, inputX, gamma, beta, sharedTmpBuffer, epsilon, tiling), )
template <typename T, bool isReuseSource = false>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance,
               const LocalTensor<T>& inputX, const LocalTensor<T>& gamma, const LocalTensor<T>& beta, const T epsilon,
               LayerNormTiling& tiling, TW_SRC) {
    tw::layernorm_bsh(output, outputMean, outputVariance, inputX, gamma, beta, LocalTensor<uint8_t>(), epsilon, tiling,
                      isReuseSource, TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), LayerNorm, (T, isReuseSource),
        (const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance,
        const LocalTensor<T>& inputX, const LocalTensor<T>& gamma, const LocalTensor<T>& beta, const T epsilon,
        LayerNormTiling& tiling), (output, outputMean, outputVariance, inputX, gamma, beta, epsilon, tiling), )

template <typename U, typename T, bool isReuseSource = false, const LayerNormConfig& config = LNCFG_NORM>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<float>& outputMean,
               const LocalTensor<float>& outputRstd, const LocalTensor<T>& inputX, const LocalTensor<U>& gamma,
               const LocalTensor<U>& beta, const float epsilon, const LocalTensor<uint8_t>& sharedTmpBuffer,
               const LayerNormPara& para, const LayerNormSeparateTiling& tiling, TW_SRC) {
    (void)tiling;  // the loop split of the library's evaluation; the shape comes from para
    tw::layernorm_ar<U, T, config>(output, outputMean, outputRstd, inputX, gamma, beta, epsilon, sharedTmpBuffer, para,
                                   TW_AT);
}
TW_TWIN_M(, void, (typename U, typename T, bool isReuseSource = false, const LayerNormConfig& config = LNCFG_NORM),
        LayerNorm, (U, T, isReuseSource, config), (const LocalTensor<T>& output, const LocalTensor<float>& outputMean,
        const LocalTensor<float>& outputRstd, const LocalTensor<T>& inputX, const LocalTensor<U>& gamma,
        const LocalTensor<U>& beta, const float epsilon, const LocalTensor<uint8_t>& sharedTmpBuffer,
        const LayerNormPara& para, const LayerNormSeparateTiling& tiling), (output, outputMean, outputRstd, inputX,
        gamma, beta, epsilon, sharedTmpBuffer, para, tiling), )
template <typename U, typename T, bool isReuseSource = false, const LayerNormConfig& config = LNCFG_NORM>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<float>& outputMean,
               const LocalTensor<float>& outputRstd, const LocalTensor<T>& inputX, const LocalTensor<U>& gamma,
               const LocalTensor<U>& beta, const float epsilon, const LayerNormPara& para,
               const LayerNormSeparateTiling& tiling, TW_SRC) {
    (void)tiling;
    tw::layernorm_ar<U, T, config>(output, outputMean, outputRstd, inputX, gamma, beta, epsilon,
                                   LocalTensor<uint8_t>(), para, TW_AT);
}
TW_TWIN_M(, void, (typename U, typename T, bool isReuseSource = false, const LayerNormConfig& config = LNCFG_NORM),
        LayerNorm, (U, T, isReuseSource, config), (const LocalTensor<T>& output, const LocalTensor<float>& outputMean,
        const LocalTensor<float>& outputRstd, const LocalTensor<T>& inputX, const LocalTensor<U>& gamma,
        const LocalTensor<U>& beta, const float epsilon, const LayerNormPara& para,
        const LayerNormSeparateTiling& tiling), (output, outputMean, outputRstd, inputX, gamma, beta, epsilon, para,
        tiling), )

}  // namespace AscendC
