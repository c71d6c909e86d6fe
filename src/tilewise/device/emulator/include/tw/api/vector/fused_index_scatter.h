// Vector instructions of the 910B vector core besides the element-wise set of tw/api/vector/arith.h, written from
// the Ascend C API reference (the scalar-unit and system calls documented beside them are tw/api/scalar_system.h):
//
//   fused arithmetic   AddRelu SubRelu (dst = max(src0 -+ src1, 0)), FusedMulAdd (dst = src0 * dst + src1),
//                      FusedMulAddRelu and MulAddRelu (dst = max(src0 * dst + src1, 0)), MulAddDst
//                      (dst = src0 * src1 + dst); count and mask/repeat forms
//   index fill         CreateVecIndex (dst[i] = first + i), Arange (first + i * diff)
//   scatter            Scatter (src[i] to byte base + offset[i] of dst)
//   reduce             RepeatReduceSum (one sum per repeat, the older spelling of WholeReduceSum)
//
// The fused instructions compute in the arithmetic type (float for half) and round once, like the other vector
// instructions; each call appends one trace record under its own name, so the timing model costs it as one
// instruction on the vector pipe.
#pragma once
#include <cstdint>
#include <vector>

#include "tw/api/data_copy.h"
#include "tw/api/sync.h"
#include "tw/api/vector/arith.h"
#include "tw/api/library/math.h"
#include "tw/api/vector/reduce.h"

namespace tw {
namespace op {
struct AddRelu { template <class C> C operator()(C a, C b) const { C r = a + b; return r > C(0) ? r : C(0); } };
struct SubRelu { template <class C> C operator()(C a, C b) const { C r = a - b; return r > C(0) ? r : C(0); } };
}  // namespace op

// Three-operand engine: d = f(src0, src1, d) over `count` elements, or over the mask / repeat layout.
template <typename T, typename F>
inline void ter_count(const char* name, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& a,
                      const AscendC::LocalTensor<T>& b, int64_t count, F f, const char* file, int line) {
    count = counted(count);
    check_count(count, name, file, line);
    T* d = dst.span(0, count, name, file, line);
    const T* x = a.span(0, count, name, file, line);
    const T* y = b.span(0, count, name, file, line);
    for (int64_t i = 0; i < count; ++i) d[i] = from_c<T>(f(to_c<T>(x[i]), to_c<T>(y[i]), to_c<T>(d[i])));
    vrec_count<T>(name, file, line, count);
}

template <typename T, typename F>
inline void ter_mask(const char* name, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& a,
                     const AscendC::LocalTensor<T>& b, const VMask& m, const AscendC::BinaryRepeatParams& p, F f,
                     const char* file, int line) {
    constexpr uint32_t E = 256 / sizeof(T);
    Lay ld = lay<T>(p.dstBlkStride, p.dstRepStride), la = lay<T>(p.src0BlkStride, p.src0RepStride),
        lb = lay<T>(p.src1BlkStride, p.src1RepStride);
    T* d = vspan(dst, extent(m, E, ld), name, file, line);
    const T* x = vspan(a, extent(m, E, la), name, file, line);
    const T* y = vspan(b, extent(m, E, lb), name, file, line);
    T tmp[kMaxSlots];
    each_repeat(m, E, [&](uint32_t r, const uint16_t* s, uint32_t k) {
        for (uint32_t i = 0; i < k; ++i)
            tmp[i] = from_c<T>(f(to_c<T>(x[la.off(r, s[i])]), to_c<T>(y[lb.off(r, s[i])]), to_c<T>(d[ld.off(r, s[i])])));
        for (uint32_t i = 0; i < k; ++i) d[ld.off(r, s[i])] = tmp[i];
    });
    vrec(name, file, line, m.elements(), m.elements() * sizeof(T), m.issued(E), sizeof(T), true);
}

namespace op {
struct FusedMulAdd { template <class C> C operator()(C s0, C s1, C d) const { return s0 * d + s1; } };
struct FusedMulAddRelu {
    template <class C> C operator()(C s0, C s1, C d) const { C r = s0 * d + s1; return r > C(0) ? r : C(0); }
};
struct MulAddDst { template <class C> C operator()(C s0, C s1, C d) const { return s0 * s1 + d; } };
}  // namespace op

}  // namespace tw

namespace AscendC {

// The fused instructions take the same three forms as Add (tw/api/vector/arith.h's TW_BINARY_FORMS).
TW_BINARY_FORMS(AddRelu, bin_count, bin_mask, tw::op::AddRelu)
TW_BINARY_FORMS(SubRelu, bin_count, bin_mask, tw::op::SubRelu)
TW_BINARY_FORMS(FusedMulAdd, ter_count, ter_mask, tw::op::FusedMulAdd)
TW_BINARY_FORMS(FusedMulAddRelu, ter_count, ter_mask, tw::op::FusedMulAddRelu)
TW_BINARY_FORMS(MulAddDst, ter_count, ter_mask, tw::op::MulAddDst)
// MulAddRelu (MulAddRelu.md: dst = Relu(src0 * dst + src1), half and float) is FusedMulAddRelu's computation under
// the name the basic API's binary header documents.
TW_BINARY_FORMS(MulAddRelu, ter_count, ter_mask, tw::op::FusedMulAddRelu)

// CreateVecIndex: dst[i] = firstValue + i for i < count (half, float, int16, int32), each element computed directly.
template <typename T>
void CreateVecIndex(const LocalTensor<T>& dst, const tw::nd_t<T>& firstValue, uint32_t count, TW_SRC) {
    const int64_t n = tw::counted(count);
    tw::check_count(n, "CreateVecIndex", TW_AT);
    T* d = dst.span(0, n, "CreateVecIndex", TW_AT);
    const tw::calc_t<T> first = tw::to_c<T>(firstValue);
    for (int64_t i = 0; i < n; ++i) d[i] = tw::from_c<T>(first + static_cast<tw::calc_t<T>>(i));
    tw::vrec_count<T>("CreateVecIndex", TW_AT, n);
}
TW_TWIN_M(, void, (typename T), CreateVecIndex, (T), (const LocalTensor<T>& dst, const tw::nd_t<T>& firstValue,
        uint32_t count), (dst, firstValue, count), )

// Scatter: src[i] goes to byte (dstBaseAddr + dstOffset[i]) of dst, for i < count (the inverse of Gather; offsets
// in bytes, element-aligned). All sources are read before any destination is written.
template <typename T>
void Scatter(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& dstOffset,
             const uint32_t dstBaseAddr, const uint32_t count, TW_SRC) {
    const T* x = src.span(0, count, "Scatter", TW_AT);
    const uint32_t* off = dstOffset.span(0, count, "Scatter", TW_AT);
    std::vector<T> vals(x, x + count);
    for (uint32_t i = 0; i < count; ++i) {
        const uint64_t byte = uint64_t(dstBaseAddr) + off[i];
        if (byte % sizeof(T) != 0)
            tw::fail("misaligned", "Scatter offset " + std::to_string(byte) + " of element " + std::to_string(i) +
                     " is not a multiple of the element size " + std::to_string(sizeof(T)), TW_AT);
        *dst.span(byte / sizeof(T), 1, "Scatter", TW_AT) = vals[i];
    }
    tw::vrec_count<T>("Scatter", TW_AT, count);
}
TW_TWIN_M(, void, (typename T), Scatter, (T), (const LocalTensor<T>& dst, const LocalTensor<T>& src,
        const LocalTensor<uint32_t>& dstOffset, const uint32_t dstBaseAddr, const uint32_t count), (dst, src,
        dstOffset, dstBaseAddr, count), )

// Arange (high-level): dst[i] = firstValue + i * diffValue, like ArithProgression.
template <typename T>
void Arange(const LocalTensor<T>& dst, const tw::nd_t<T> firstValue, const tw::nd_t<T> diffValue, const int32_t count,
            TW_SRC) {
    ArithProgression(dst, firstValue, diffValue, count, TW_AT);
}
TW_TWIN_M(, void, (typename T), Arange, (T), (const LocalTensor<T>& dst, const tw::nd_t<T> firstValue,
        const tw::nd_t<T> diffValue, const int32_t count), (dst, firstValue, diffValue, count), )

// RepeatReduceSum: one sum per repeat, written dstRepStride destination elements apart; dstBlkStride is part of the
// encoding and does not move the single result. The continuous-mask form of WholeReduceSum with the same strides.
template <typename T, bool isSetMask = true>
void RepeatReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTimes,
                     const int32_t mask, const int32_t dstBlkStride, const int32_t srcBlkStride,
                     const int32_t dstRepStride, const int32_t srcRepStride, TW_SRC) {
    (void)dstBlkStride;
    WholeReduceSum<T, isSetMask>(dst, src, mask, repeatTimes, dstRepStride, srcBlkStride, srcRepStride, TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isSetMask = true), RepeatReduceSum, (T, isSetMask), (const LocalTensor<T>& dst,
        const LocalTensor<T>& src, const int32_t repeatTimes, const int32_t mask, const int32_t dstBlkStride,
        const int32_t srcBlkStride, const int32_t dstRepStride, const int32_t srcRepStride), (dst, src, repeatTimes,
        mask, dstBlkStride, srcBlkStride, dstRepStride, srcRepStride), )

}  // namespace AscendC
