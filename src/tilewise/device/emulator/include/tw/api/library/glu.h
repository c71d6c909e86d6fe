// GLU variants and FasterGeluV2 of the AscendC high-level library, written from the Ascend C API reference
// (高阶API / 激活函数):
//
//   SwiGLU(dst, src0, src1, beta[, tmp][, calCount])   dst = src0 * Swish(src1),  Swish(x) = x / (1 + e^(-beta x))
//   GeGLU(dst, src0, src1[, tmp][, calCount])          dst = src0 * Gelu(src1),   Gelu the tanh approximation
//                                                      x / (1 + e^(-1.59576912 (x + 0.044715 x^3)))
//   ReGlu(dst, src0, src1[, tmp], calCount)            dst = src0 * max(src1, 0)
//   FasterGeluV2(dst, src[, tmp], dataSize)
//       x * (sgn(x) * (-0.1444 (min(|0.7071 x|, 1.769) - 1.769)^2 + 0.5) + 0.5),  sgn(x) = (x + 1e-12) / |x + 1e-12|
//
// Which input is gated: the reference's worked examples (SwiGLU with src1 = 0.5 and beta 1 gives
// src0 * 0.3112; GeGLU with src1 = 2 gives src0 * 1.9546; ReGlu with src0 = 2 gives 2 * relu(src1)) apply the
// activation to src1 and scale by src0. Types: half and float (ReGlu also bfloat16_t on the A2); each element is
// computed in float and rounded once. Without calCount the call covers the destination's size.
//
// A caller's sharedTmpBuffer below the minimum of GetSwiGLU / GeGLU / ReGluMaxMinTmpSize (half: 6, 4, 6 x 256 bytes;
// float: none, none, 256) is an error.
//
// Cost: the trace records the basic vector instructions of each formula, so the timing model costs them.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "tw/api/library/activation.h"
#include "tw/api/library/reduce_scan.h"
#include "tw/tiling/tmp_buffer_min.h"

namespace tw {

template <typename T>
constexpr bool glu_type_v = std::is_same<T, half>::value || std::is_same<T, float>::value;

template <typename T, typename F>
inline void glu(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
                const AscendC::LocalTensor<T>& src1, const AscendC::LocalTensor<uint8_t>& tmp, int64_t count, F act,
                const char* name, const char* file, int line) {
    count = counted(count);
    check_count(count, name, file, line);
    T* d = dst.span(0, count, name, file, line);
    const T* a = src0.span(0, count, name, file, line);
    const T* b = src1.span(0, count, name, file, line);
    lib_tmp_apart(tmp, a, count, d, count, name, file, line);
    lib_tmp_apart(tmp, b, count, d, count, name, file, line);
    for (int64_t i = 0; i < count; ++i) {
        const float x0 = static_cast<float>(to_c<T>(a[i])), x1 = static_cast<float>(to_c<T>(b[i]));
        d[i] = from_c<T>(static_cast<calc_t<T>>(x0 * act(x1)));
    }
}

struct SwishOf {
    float beta;
    float operator()(float x) const { return x / (1.0f + std::exp(-beta * x)); }
};
struct GeluOf {
    float operator()(float x) const { return op::Gelu{}(x); }
};
struct ReluOf {
    float operator()(float x) const { return x > 0.0f ? x : 0.0f; }
};

inline float faster_gelu_v2(float x) {
    const float s = x + 1e-12f;
    const float sgn = s / std::fabs(s);
    const float c = std::fmin(std::fabs(0.7071f * x), 1.769f) - 1.769f;
    return x * (sgn * (-0.1444f * c * c + 0.5f) + 0.5f);
}

}  // namespace tw

namespace AscendC {

#define TW_SWIGLU_SEQ "Muls", "Exp", "Adds", "Div", "Mul"
#define TW_GEGLU_SEQ "Mul", "Mul", "Muls", "Add", "Muls", "Exp", "Adds", "Div", "Mul"

template <typename T, bool isReuseSource = false>
void SwiGLU(LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
            const float& scalarValue, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount, TW_SRC) {
    static_assert(tw::glu_type_v<T>, "SwiGLU takes half or float");
    tw::lib_tmp_min(sharedTmpBuffer, tw::glu_min_tmp(sizeof(T), 6), "SwiGLU", "GetSwiGLUMaxMinTmpSize", TW_AT);
    tw::glu(dstTensor, srcTensor0, srcTensor1, sharedTmpBuffer, calCount, tw::SwishOf{scalarValue}, "SwiGLU", TW_AT);
    tw::vrec_seq<T>({TW_SWIGLU_SEQ}, TW_AT, tw::counted(calCount));
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), SwiGLU, (T, isReuseSource), (LocalTensor<T>& dstTensor,
        const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1, const float& scalarValue,
        const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount), (dstTensor, srcTensor0, srcTensor1,
        scalarValue, sharedTmpBuffer, calCount), )
template <typename T, bool isReuseSource = false>
void SwiGLU(LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
            const float& scalarValue, const LocalTensor<uint8_t>& sharedTmpBuffer, TW_SRC) {
    SwiGLU<T, isReuseSource>(dstTensor, srcTensor0, srcTensor1, scalarValue, sharedTmpBuffer, dstTensor.GetSize(),
                             TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), SwiGLU, (T, isReuseSource), (LocalTensor<T>& dstTensor,
        const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1, const float& scalarValue,
        const LocalTensor<uint8_t>& sharedTmpBuffer), (dstTensor, srcTensor0, srcTensor1, scalarValue,
        sharedTmpBuffer), )
template <typename T, bool isReuseSource = false>
void SwiGLU(LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
            const float& scalarValue, const uint32_t calCount, TW_SRC) {
    SwiGLU<T, isReuseSource>(dstTensor, srcTensor0, srcTensor1, scalarValue, LocalTensor<uint8_t>(), calCount, TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), SwiGLU, (T, isReuseSource), (LocalTensor<T>& dstTensor,
        const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1, const float& scalarValue,
        const uint32_t calCount), (dstTensor, srcTensor0, srcTensor1, scalarValue, calCount), )
template <typename T, bool isReuseSource = false>
void SwiGLU(LocalTensor<T>& dstTensor, LocalTensor<T>& srcTensor0, LocalTensor<T>& srcTensor1,
            const float& scalarValue, TW_SRC) {
    SwiGLU<T, isReuseSource>(dstTensor, srcTensor0, srcTensor1, scalarValue, LocalTensor<uint8_t>(),
                             dstTensor.GetSize(), TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), SwiGLU, (T, isReuseSource), (LocalTensor<T>& dstTensor,
        LocalTensor<T>& srcTensor0, LocalTensor<T>& srcTensor1, const float& scalarValue), (dstTensor, srcTensor0,
        srcTensor1, scalarValue), )

template <typename T, bool isReuseSource = false>
void GeGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
           const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount, TW_SRC) {
    static_assert(tw::glu_type_v<T>, "GeGLU takes half or float");
    tw::lib_tmp_min(sharedTmpBuffer, tw::glu_min_tmp(sizeof(T), 4), "GeGLU", "GetGeGLUMaxMinTmpSize", TW_AT);
    tw::glu(dstTensor, srcTensor0, srcTensor1, sharedTmpBuffer, calCount, tw::GeluOf{}, "GeGLU", TW_AT);
    tw::vrec_seq<T>({TW_GEGLU_SEQ}, TW_AT, tw::counted(calCount));
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), GeGLU, (T, isReuseSource),
        (const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
        const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount), (dstTensor, srcTensor0, srcTensor1,
        sharedTmpBuffer, calCount), )
template <typename T, bool isReuseSource = false>
void GeGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
           const LocalTensor<uint8_t>& sharedTmpBuffer, TW_SRC) {
    GeGLU<T, isReuseSource>(dstTensor, srcTensor0, srcTensor1, sharedTmpBuffer, dstTensor.GetSize(), TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), GeGLU, (T, isReuseSource),
        (const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
        const LocalTensor<uint8_t>& sharedTmpBuffer), (dstTensor, srcTensor0, srcTensor1, sharedTmpBuffer), )
template <typename T, bool isReuseSource = false>
void GeGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
           uint32_t calCount, TW_SRC) {
    GeGLU<T, isReuseSource>(dstTensor, srcTensor0, srcTensor1, LocalTensor<uint8_t>(), calCount, TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), GeGLU, (T, isReuseSource),
        (const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
        uint32_t calCount), (dstTensor, srcTensor0, srcTensor1, calCount), )
template <typename T, bool isReuseSource = false>
void GeGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
           TW_SRC) {
    GeGLU<T, isReuseSource>(dstTensor, srcTensor0, srcTensor1, LocalTensor<uint8_t>(), dstTensor.GetSize(), TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), GeGLU, (T, isReuseSource),
        (const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1),
        (dstTensor, srcTensor0, srcTensor1), )

template <typename T, bool isReuseSource = false>
void ReGlu(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
           const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount, TW_SRC) {
    static_assert(tw::glu_type_v<T> || std::is_same<T, bfloat16_t>::value, "ReGlu takes half, bfloat16_t or float");
    tw::lib_tmp_min(sharedTmpBuffer, tw::reglu_min_tmp(sizeof(T)), "ReGlu", "GetReGluMaxMinTmpSize", TW_AT);
    tw::glu(dstTensor, srcTensor0, srcTensor1, sharedTmpBuffer, calCount, tw::ReluOf{}, "ReGlu", TW_AT);
    if (tw::is_low_fp_v<T> && !std::is_same<T, half>::value) tw::vrec_count<T>("Cast", TW_AT, tw::counted(calCount));
    tw::vrec_seq<T>({"Relu", "Mul"}, TW_AT, tw::counted(calCount));
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), ReGlu, (T, isReuseSource),
        (const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
        const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount), (dstTensor, srcTensor0, srcTensor1,
        sharedTmpBuffer, calCount), )
template <typename T, bool isReuseSource = false>
void ReGlu(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
           const uint32_t calCount, TW_SRC) {
    ReGlu<T, isReuseSource>(dstTensor, srcTensor0, srcTensor1, LocalTensor<uint8_t>(), calCount, TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), ReGlu, (T, isReuseSource),
        (const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
        const uint32_t calCount), (dstTensor, srcTensor0, srcTensor1, calCount), )

template <typename T, bool highPrecision = false, bool highPerformance = false>
void FasterGeluV2(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                  const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t dataSize, TW_SRC) {
    static_assert(tw::glu_type_v<T>, "FasterGeluV2 takes half or float");
    tw::math1(dstLocal, srcLocal, dataSize, [](tw::calc_t<T> x) { return tw::faster_gelu_v2(x); }, "FasterGeluV2",
              TW_AT);
    tw::lib_tmp_apart(sharedTmpBuffer, srcLocal.data(), tw::counted(dataSize), dstLocal.data(), tw::counted(dataSize),
                      "FasterGeluV2", TW_AT);
    // sgn: Adds, Abs, Div; the clipped square: Muls, Abs, Mins, Adds, Mul, Muls, Adds; then Mul, Adds, Mul
    tw::vrec_seq<T>({"Adds", "Abs", "Div", "Muls", "Abs", "Mins", "Adds", "Mul", "Muls", "Adds", "Mul", "Adds", "Mul"},
                    TW_AT, tw::counted(dataSize));
}
TW_TWIN_M(, void, (typename T, bool highPrecision = false, bool highPerformance = false), FasterGeluV2, (T,
        highPrecision, highPerformance), (const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
        const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t dataSize), (dstLocal, srcLocal, sharedTmpBuffer,
        dataSize), )
template <typename T, bool highPrecision = false, bool highPerformance = false>
void FasterGeluV2(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dataSize, TW_SRC) {
    FasterGeluV2<T, highPrecision, highPerformance>(dstLocal, srcLocal, LocalTensor<uint8_t>(), dataSize, TW_AT);
}
TW_TWIN_M(, void, (typename T, bool highPrecision = false, bool highPerformance = false), FasterGeluV2, (T,
        highPrecision, highPerformance), (const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
        const uint32_t dataSize), (dstLocal, srcLocal, dataSize), )

#undef TW_SWIGLU_SEQ
#undef TW_GEGLU_SEQ

}  // namespace AscendC
