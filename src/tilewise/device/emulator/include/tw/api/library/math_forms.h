// Further documented forms of the library's math and reduction APIs, written from the Ascend C API reference:
//
//   Sigmoid(dst, src[, sharedTmpBuffer])            over the whole destination (the count forms are in math.h)
//   Xor(dst, src0, src1[, sharedTmpBuffer])         likewise
//   Axpy<T, U>(dst, src, scalar, sharedTmpBuffer, calCount)   the library's form: dst = src * scalar + dst
//   Exp<T, taylorExpandLevel>(dst, src[, sharedTmpBuffer], calCount)
//       the library's Exp, which splits x into its integer part and a remainder whose exponential it sums as a
//       Taylor series of `taylorExpandLevel` terms; the emulator computes e^x in double and rounds once (the value
//       the series approximates)
//   ReduceXorSum(dst, src0, src1[, sharedTmpBuffer], calCount)   (int16_t) the sum of src0[i] ^ src1[i], saturated
//       to int16_t ("a result beyond [-32768, 32767] gives -32768 or 32767"); no operand may overlap another
//
// Each records the basic instructions of its usual evaluation on the vector pipe (see math.h).
#pragma once
#include <cmath>
#include <cstdint>
#include <string>

#include "tw/api/library/math.h"

namespace AscendC {

template <typename T, bool isReuseSource = false>
void Sigmoid(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
             TW_SRC) {
    Sigmoid<T, isReuseSource>(dst, src, sharedTmpBuffer, dst.GetSize(), TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), Sigmoid, (T, isReuseSource),
          (const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer),
          (dst, src, sharedTmpBuffer), )
template <typename T, bool isReuseSource = false>
void Sigmoid(const LocalTensor<T>& dst, const LocalTensor<T>& src, TW_SRC) {
    Sigmoid<T, isReuseSource>(dst, src, dst.GetSize(), TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), Sigmoid, (T, isReuseSource),
          (const LocalTensor<T>& dst, const LocalTensor<T>& src), (dst, src), )

template <typename T, bool isReuseSource = false>
void Xor(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         const LocalTensor<uint8_t>& sharedTmpBuffer, TW_SRC) {
    Xor<T, isReuseSource>(dst, src0, src1, sharedTmpBuffer, dst.GetSize(), TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), Xor, (T, isReuseSource),
          (const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
           const LocalTensor<uint8_t>& sharedTmpBuffer),
          (dst, src0, src1, sharedTmpBuffer), )
template <typename T, bool isReuseSource = false>
void Xor(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, TW_SRC) {
    Xor<T, isReuseSource>(dst, src0, src1, dst.GetSize(), TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), Xor, (T, isReuseSource),
          (const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1), (dst, src0, src1), )

// The library's Axpy (T half or float, U = T or a half source into a float destination), computed as the basic
// instruction is (tw_vec::AxpyFn: one rounding of src * scalar + dst).
template <typename T, typename U, bool isReuseSource = false>
void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const tw::nd_t<U> scalarValue,
          const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount, TW_SRC) {
    (void)sharedTmpBuffer;
    tw::un_count("Axpy", dst, src, calCount, tw_vec::AxpyFn<T, U>{scalarValue}, TW_AT, true);
}
TW_TWIN_M(, void, (typename T, typename U, bool isReuseSource = false), Axpy, (T, U, isReuseSource),
          (const LocalTensor<T>& dst, const LocalTensor<U>& src, const tw::nd_t<U> scalarValue,
           const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount),
          (dst, src, scalarValue, sharedTmpBuffer, calCount), )

namespace tw_vec {
template <typename T>
void taylor_exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t calCount, uint32_t level,
                const char* file, int line) {
    tw::math1(dst, src, calCount, [](tw::calc_t<T> a) { return static_cast<tw::calc_t<T>>(std::exp(double(a))); },
              "Exp", file, line);
    const uint64_t n = tw::counted(calCount);
    tw::vrec_seq<T>({"Cast", "Cast", "Sub", "Exp"}, file, line, n);  // the integer part's exponential
    for (uint32_t k = 0; k < level; ++k) tw::vrec_seq<T>({"Mul", "Muls", "Add"}, file, line, n);  // a series term
    tw::vrec_count<T>("Mul", file, line, n);
}
}  // namespace tw_vec

template <typename T, uint8_t taylorExpandLevel, bool isReuseSource = false>
void Exp(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<uint8_t>& sharedTmpBuffer,
         const uint32_t calCount, TW_SRC) {
    (void)sharedTmpBuffer;
    tw_vec::taylor_exp(dstLocal, srcLocal, calCount, taylorExpandLevel, TW_AT);
}
TW_TWIN_M(, void, (typename T, uint8_t taylorExpandLevel, bool isReuseSource = false), Exp,
          (T, taylorExpandLevel, isReuseSource),
          (const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<uint8_t>& sharedTmpBuffer,
           const uint32_t calCount),
          (dstLocal, srcLocal, sharedTmpBuffer, calCount), )
template <typename T, uint8_t taylorExpandLevel, bool isReuseSource = false>
void Exp(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t calCount, TW_SRC) {
    tw_vec::taylor_exp(dstLocal, srcLocal, calCount, taylorExpandLevel, TW_AT);
}
TW_TWIN_M(, void, (typename T, uint8_t taylorExpandLevel, bool isReuseSource = false), Exp,
          (T, taylorExpandLevel, isReuseSource),
          (const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t calCount),
          (dstLocal, srcLocal, calCount), )

namespace tw_vec {
inline void reduce_xor_sum(const LocalTensor<int16_t>& dst, const LocalTensor<int16_t>& src0,
                           const LocalTensor<int16_t>& src1, const LocalTensor<uint8_t>* tmp, uint32_t calCount,
                           const char* file, int line) {
    const int16_t* a = src0.span(0, calCount, "ReduceXorSum", file, line);
    const int16_t* b = src1.span(0, calCount, "ReduceXorSum", file, line);
    int16_t* d = dst.span(0, 1, "ReduceXorSum", file, line);
    auto apart = [&](const void* p, uint64_t pn, const void* q, uint64_t qn, const char* what) {
        const auto* x = static_cast<const uint8_t*>(p);
        const auto* y = static_cast<const uint8_t*>(q);
        if (x < y + qn && y < x + pn)
            tw::fail("invalid_argument", std::string("ReduceXorSum: ") + what + " overlap (the reference forbids it)",
                     file, line);
    };
    apart(d, 2, a, uint64_t(calCount) * 2, "dst and src0");
    apart(d, 2, b, uint64_t(calCount) * 2, "dst and src1");
    if (tmp != nullptr && tmp->GetSize() > 0) {
        const uint8_t* t = tmp->data();
        apart(t, tmp->GetSize(), a, uint64_t(calCount) * 2, "sharedTmpBuffer and src0");
        apart(t, tmp->GetSize(), b, uint64_t(calCount) * 2, "sharedTmpBuffer and src1");
        apart(t, tmp->GetSize(), d, 2, "sharedTmpBuffer and dst");
    }
    int64_t sum = 0;
    for (uint32_t i = 0; i < calCount; ++i) sum += static_cast<int16_t>(a[i] ^ b[i]);
    d[0] = static_cast<int16_t>(sum > 32767 ? 32767 : sum < -32768 ? -32768 : sum);
    tw::vrec_seq<int16_t>({"Or", "And", "Not", "And", "Cast", "ReduceSum", "Cast"}, file, line, calCount);
}
}  // namespace tw_vec

template <typename T, bool isReuseSource = false>
void ReduceXorSum(LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
                  LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount, TW_SRC) {
    static_assert(std::is_same<T, int16_t>::value, "ReduceXorSum takes int16_t tensors");
    tw_vec::reduce_xor_sum(dstTensor, src0Tensor, src1Tensor, &sharedTmpBuffer, calCount, TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), ReduceXorSum, (T, isReuseSource),
          (LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
           LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount),
          (dstTensor, src0Tensor, src1Tensor, sharedTmpBuffer, calCount), )
template <typename T, bool isReuseSource = false>
void ReduceXorSum(LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
                  const uint32_t calCount, TW_SRC) {
    static_assert(std::is_same<T, int16_t>::value, "ReduceXorSum takes int16_t tensors");
    tw_vec::reduce_xor_sum(dstTensor, src0Tensor, src1Tensor, nullptr, calCount, TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), ReduceXorSum, (T, isReuseSource),
          (LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
           const uint32_t calCount),
          (dstTensor, src0Tensor, src1Tensor, calCount), )

}  // namespace AscendC
