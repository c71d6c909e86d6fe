// High-level math APIs of the AscendC library (the "advanced" API layer built on the vector instructions): each
// computes its function element-wise in the arithmetic type (float for half / bfloat16) and rounds once, with the
// count form `Op(dst, src, count)` and the form taking a caller-provided `sharedTmpBuffer`, which the emulator does
// not need but bounds-checks nothing against (the real library's scratch layout is its own business). Also the
// library's Sum (row sums) and ArithProgression.
#pragma once
#include "tw/vector_core.h"
#include "tw/vector_arith.h"

namespace tw {
namespace op {
struct Sigmoid { template <class C> C operator()(C a) const { return C(1) / (C(1) + std::exp(-a)); } };
}  // namespace op
}  // namespace tw

namespace AscendC {

#define TW_MATH_UNARY(NAME, OP)                                                                                    \
    template <typename T, bool isReuseSource = false>                                                              \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount, TW_SRC) {             \
        tw::un_count(#NAME, dst, src, calCount, [](T, T x) { return tw::apply1<T>(OP{}, x); }, TW_AT);             \
    }                                                                                                              \
    template <typename T, bool isReuseSource = false>                                                              \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,   \
              const uint32_t calCount, TW_SRC) {                                                                   \
        (void)sharedTmpBuffer;                                                                                     \
        tw::un_count(#NAME, dst, src, calCount, [](T, T x) { return tw::apply1<T>(OP{}, x); }, TW_AT);             \
    }

TW_MATH_UNARY(Sigmoid, tw::op::Sigmoid)

#undef TW_MATH_UNARY

// Sum: for each of `outter` rows of `inner` elements (inner is the row pitch, a multiple of 32 bytes), dst[row] =
// the sum of the row's first `n` elements, accumulated in float (double for float rows) and rounded once.
struct SumParams {
    uint32_t outter = 1;
    uint32_t inner = 0;
    uint32_t n = 0;
};

namespace tw_vec {
template <typename T>
void sum_rows(const LocalTensor<T>& dst, const LocalTensor<T>& src, const SumParams& p, const char* file, int line) {
    if (p.n > p.inner)
        tw::fail("invalid_argument", "Sum: n (" + std::to_string(p.n) + ") exceeds the row length inner (" +
                 std::to_string(p.inner) + ")", file, line);
    if (p.outter == 0) return;
    const T* x = src.span(0, uint64_t(p.outter - 1) * p.inner + p.n, "Sum", file, line);
    T* d = dst.span(0, p.outter, "Sum", file, line);
    for (uint32_t r = 0; r < p.outter; ++r) {
        double acc = 0;
        for (uint32_t i = 0; i < p.n; ++i) acc += tw::to_double_exact(x[uint64_t(r) * p.inner + i]);
        d[r] = tw::from_c<T>(static_cast<tw::calc_t<T>>(acc));
    }
    tw::vrec_count<T>("Sum", file, line, uint64_t(p.outter) * p.inner);
}
}  // namespace tw_vec

template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
void Sum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const SumParams& sumParams, TW_SRC) {
    tw_vec::sum_rows(dst, src, sumParams, TW_AT);
}
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
void Sum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
         const SumParams& sumParams, TW_SRC) {
    (void)sharedTmpBuffer;
    tw_vec::sum_rows(dst, src, sumParams, TW_AT);
}

// ArithProgression: dst[i] = firstValue + i * diffValue for i < count, each element computed directly (no running
// sum, so no accumulated rounding).
template <typename T>
void ArithProgression(const LocalTensor<T>& dst, const tw::nd_t<T> firstValue, const tw::nd_t<T> diffValue,
                      const int32_t count, TW_SRC) {
    tw::check_count(count, "ArithProgression", TW_AT);
    T* d = dst.span(0, count, "ArithProgression", TW_AT);
    const tw::calc_t<T> a = tw::to_c<T>(firstValue), b = tw::to_c<T>(diffValue);
    for (int32_t i = 0; i < count; ++i) d[i] = tw::from_c<T>(a + static_cast<tw::calc_t<T>>(i) * b);
    tw::vrec_count<T>("ArithProgression", TW_AT, count);
}

}  // namespace AscendC
