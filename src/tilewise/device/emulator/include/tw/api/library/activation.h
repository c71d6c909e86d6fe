// Activation functions of the AscendC high-level library, written from the Ascend C API reference:
//
//   Silu(dst, src, n)               x / (1 + e^-x)
//   Swish(dst, src, n, beta)        x / (1 + e^(-beta x))
//   Gelu(dst, src[, tmp], n)        x / (1 + e^(-1.59576912 (x + 0.044715 x^3)))   (the tanh approximation)
//   FasterGelu(dst, src[, tmp], n)  x / (1 + e^(-1.702 x))
//
// Each is computed element-wise in the arithmetic type and rounded once; the trace records the basic vector
// instructions of the formula (see tw/api/library/math.h), so the timing model costs it on the vector pipe.
#pragma once
#include <cmath>
#include <cstdint>

#include "tw/api/library/math.h"

namespace tw {
namespace op {
struct Silu { template <class C> C operator()(C a) const { return a / (C(1) + std::exp(-a)); } };
struct Gelu {
    template <class C> C operator()(C a) const {
        return a / (C(1) + std::exp(C(-1.59576912) * (a + C(0.044715) * a * a * a)));
    }
};
struct FasterGelu { template <class C> C operator()(C a) const { return a / (C(1) + std::exp(C(-1.702) * a)); } };
}  // namespace op
}  // namespace tw

namespace AscendC {

template <typename T, bool isReuseSource = false>
void Silu(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint32_t dataSize, TW_SRC) {
    tw::math1(dstLocal, srcLocal, dataSize, tw::op::Silu{}, "Silu", TW_AT);
    tw::vrec_seq<T>({"Muls", "Exp", "Adds", "Div"}, TW_AT, tw::counted(dataSize));
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), Silu, (T, isReuseSource), (const LocalTensor<T>& dstLocal,
        const LocalTensor<T>& srcLocal, uint32_t dataSize), (dstLocal, srcLocal, dataSize), )

template <typename T, bool isReuseSource = false>
void Swish(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint32_t dataSize,
           const tw::nd_t<T> scalarValue, TW_SRC) {
    const tw::calc_t<T> beta = tw::to_c<T>(scalarValue);
    tw::math1(dstLocal, srcLocal, dataSize,
              [beta](tw::calc_t<T> a) { return a / (tw::calc_t<T>(1) + std::exp(-beta * a)); }, "Swish", TW_AT);
    tw::vrec_seq<T>({"Muls", "Exp", "Adds", "Div"}, TW_AT, tw::counted(dataSize));
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), Swish, (T, isReuseSource),
        (const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint32_t dataSize,
        const tw::nd_t<T> scalarValue), (dstLocal, srcLocal, dataSize, scalarValue), )

#define TW_GELU(NAME, ...)                                                                                         \
    template <typename T, bool highPrecision = false, bool highPerformance = false>                                \
    void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,                                      \
              const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t dataSize, TW_SRC) {                      \
        (void)sharedTmpBuffer;                                                                                     \
        tw::math1(dstLocal, srcLocal, dataSize, tw::op::NAME{}, #NAME, TW_AT);                                     \
        tw::vrec_seq<T>({__VA_ARGS__}, TW_AT, tw::counted(dataSize));                                              \
    }                                                                                                              \
    TW_TWIN_M(, void, (typename T, bool highPrecision = false, bool highPerformance = false), NAME, (T,            \
            highPrecision, highPerformance), (const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,      \
            const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t dataSize), (dstLocal, srcLocal,            \
            sharedTmpBuffer, dataSize), )                                                                          \
    template <typename T, bool highPrecision = false, bool highPerformance = false>                                \
    void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dataSize, TW_SRC) {   \
        tw::math1(dstLocal, srcLocal, dataSize, tw::op::NAME{}, #NAME, TW_AT);                                     \
        tw::vrec_seq<T>({__VA_ARGS__}, TW_AT, tw::counted(dataSize));                                              \
    }                                                                                                              \
    TW_TWIN_M(, void, (typename T, bool highPrecision = false, bool highPerformance = false), NAME, (T,            \
            highPrecision, highPerformance), (const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,      \
            const uint32_t dataSize), (dstLocal, srcLocal, dataSize), )
TW_GELU(Gelu, "Mul", "Mul", "Muls", "Add", "Muls", "Exp", "Adds", "Div")
TW_GELU(FasterGelu, "Muls", "Exp", "Adds", "Div")
#undef TW_GELU

}  // namespace AscendC
