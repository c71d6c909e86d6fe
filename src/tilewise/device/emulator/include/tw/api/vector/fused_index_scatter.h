// Vector, scalar and system APIs of the 910B vector core beyond the core set in vector_arith.h / sync.h, written
// from the Ascend C API reference:
//
//   fused arithmetic   AddRelu SubRelu (dst = max(src0 -+ src1, 0)), FusedMulAdd (dst = src0 * dst + src1),
//                      FusedMulAddRelu, MulAddDst (dst = src0 * src1 + dst); count and mask/repeat forms
//   index fill         CreateVecIndex (dst[i] = first + i), Arange (first + i * diff)
//   scatter            Scatter (src[i] to byte base + offset[i] of dst)
//   reduce             RepeatReduceSum (one sum per repeat, the older spelling of WholeReduceSum)
//   scalar unit        ScalarGetCountOfValue, ScalarCountLeadingZero, ScalarGetSFFValue, CountBitsCntSameAsSignBit,
//                      ScalarCast
//   system             SetAtomicType, GetSubBlockNum, GetSystemCycle, DataSyncBarrier
//
// The fused instructions compute in the arithmetic type (float for half) and round once, like the other vector
// instructions; each call appends one trace record under its own name, so the timing model costs it as one
// instruction on the vector pipe.
#pragma once
#include <cstdint>
#include <vector>

#include "tw/copy.h"
#include "tw/sync.h"
#include "tw/vector_arith.h"
#include "tw/vector_math.h"
#include "tw/vector_reduce.h"

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

// The fused instructions take the same three forms as Add (vector_arith.h's TW_BINARY_FORMS).
TW_BINARY_FORMS(AddRelu, bin_count, bin_mask, tw::op::AddRelu)
TW_BINARY_FORMS(SubRelu, bin_count, bin_mask, tw::op::SubRelu)
TW_BINARY_FORMS(FusedMulAdd, ter_count, ter_mask, tw::op::FusedMulAdd)
TW_BINARY_FORMS(FusedMulAddRelu, ter_count, ter_mask, tw::op::FusedMulAddRelu)
TW_BINARY_FORMS(MulAddDst, ter_count, ter_mask, tw::op::MulAddDst)

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

// Arange (high-level): dst[i] = firstValue + i * diffValue, like ArithProgression.
template <typename T>
void Arange(const LocalTensor<T>& dst, const tw::nd_t<T> firstValue, const tw::nd_t<T> diffValue, const int32_t count,
            TW_SRC) {
    ArithProgression(dst, firstValue, diffValue, count, TW_AT);
}

// RepeatReduceSum: one sum per repeat, written dstRepStride destination elements apart; dstBlkStride is part of the
// encoding and does not move the single result. The continuous-mask form of WholeReduceSum with the same strides.
template <typename T, bool isSetMask = true>
void RepeatReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTimes,
                     const int32_t mask, const int32_t dstBlkStride, const int32_t srcBlkStride,
                     const int32_t dstRepStride, const int32_t srcRepStride, TW_SRC) {
    (void)dstBlkStride;
    WholeReduceSum<T, isSetMask>(dst, src, mask, repeatTimes, dstRepStride, srcBlkStride, srcRepStride, TW_AT);
}

// ---- scalar unit: bit counting on 64-bit values ---------------------------------------------------------------

// Number of bits equal to countValue (0 or 1).
template <int countValue>
int64_t ScalarGetCountOfValue(uint64_t valueIn) {
    static_assert(countValue == 0 || countValue == 1, "ScalarGetCountOfValue counts 0 or 1 bits");
    const int64_t ones = __builtin_popcountll(valueIn);
    return countValue == 1 ? ones : 64 - ones;
}

// Leading zero bits (64 for 0).
inline int64_t ScalarCountLeadingZero(uint64_t valueIn) { return valueIn == 0 ? 64 : __builtin_clzll(valueIn); }

// Position of the first bit equal to countValue from the least significant end, or -1 when there is none.
template <int countValue>
int64_t ScalarGetSFFValue(uint64_t valueIn) {
    static_assert(countValue == 0 || countValue == 1, "ScalarGetSFFValue finds a 0 or a 1 bit");
    const uint64_t v = countValue == 1 ? valueIn : ~valueIn;
    return v == 0 ? -1 : __builtin_ctzll(v);
}

// Bits after the sign bit that equal it (the redundant sign bits of a two's-complement value).
inline int64_t CountBitsCntSameAsSignBit(int64_t valueIn) {
    const uint64_t v = static_cast<uint64_t>(valueIn);
    const uint64_t x = (v >> 63) ? ~v : v;  // leading ones become leading zeros
    return (x == 0 ? 64 : __builtin_clzll(x)) - 1;
}

// ScalarCast<float, half / int32_t, roundMode>: one scalar conversion with the given rounding.
template <typename T, typename U, RoundMode roundMode>
U ScalarCast(T valueIn) {
    static_assert(std::is_same<T, float>::value, "ScalarCast converts a float");
    const tw::Round mode = tw::round_of(roundMode);
    if constexpr (std::is_same<U, half>::value) {
        return half::from_bits(tw::float_to_half_bits(valueIn, mode));
    } else {
        static_assert(std::is_same<U, int32_t>::value, "ScalarCast converts to half or int32_t");
        double r = valueIn;
        switch (mode) {
            case tw::Round::Floor: r = std::floor(r); break;
            case tw::Round::Ceil: r = std::ceil(r); break;
            case tw::Round::Round: r = std::round(r); break;
            case tw::Round::Trunc: r = std::trunc(r); break;
            default: r = std::nearbyint(r); break;  // RINT: to nearest, ties to even
        }
        if (std::isnan(r)) return 0;
        if (r >= 2147483647.0) return INT32_MAX;  // saturating, as the scalar unit's conversion
        if (r <= -2147483648.0) return INT32_MIN;
        return static_cast<int32_t>(r);
    }
}

// ---- system ---------------------------------------------------------------------------------------------------

// SetAtomicType<T>: the element type the atomic operation (set with SetAtomicAdd/Max/Min) accumulates in; the
// emulator's GM writes already accumulate in the copied tensor's own type, so this records the choice only for the
// legacy burst copies (copy_ubuf_to_gm), which move bytes.
template <typename T>
void SetAtomicType(TW_SRC) {
    int code = 2;
    if constexpr (std::is_same<T, half>::value) code = 1;
    else if constexpr (std::is_same<T, int32_t>::value) code = 3;
    else if constexpr (std::is_same<T, int16_t>::value) code = 4;
    else if constexpr (std::is_same<T, int8_t>::value) code = 5;
    else if constexpr (std::is_same<T, bfloat16_t>::value) code = 6;
    tw::cur().atomic_dtype = code;
    tw::record(tw::Rec::Instr, PIPE_S, "SetAtomicType", TW_AT);
}

// Vector sub-blocks per AI core as seen by a kernel: each emulated block is a vector core of its own.
inline int64_t GetSubBlockNum() { return 1; }

// The core's cycle counter: the scalar issue slots this block has used so far, one per trace record, which is
// monotonic and deterministic (the timing model, not this counter, gives the simulated time).
inline int64_t GetSystemCycle() { return static_cast<int64_t>(tw::cur().trace.size()); }

// A memory barrier between the scalar unit's and the pipes' accesses; the emulator executes in program order, so
// the order already holds. The template argument names the memory (DSB_ALL, DSB_DDR, DSB_UB, DSB_SEQ).
enum class MemDsbT : uint8_t { ALL = 0, DDR, UB, SEQ };
template <MemDsbT arg0 = MemDsbT::ALL>
void DataSyncBarrier(TW_SRC) {
    tw::record(tw::Rec::Instr, PIPE_S, "DataSyncBarrier", TW_AT);
}

}  // namespace AscendC
