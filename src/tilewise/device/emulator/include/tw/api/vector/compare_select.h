// Compare / CompareScalar / Compares (one result bit per element: bit i % 8 of byte i / 8, little-endian), the register form
// of Compare (results into the 128-bit CMPMASK register), GetCmpMask / SetCmpMask, and Select.
//
// Compare mask/repeat form: results are packed contiguously, 256 / sizeof(T) bits per repeat (repeat r's slot s is
// bit r * E + s: "dst = dst + 16 bytes per repeat" for half, 8 for float); the destination strides do not apply.
// The compare instructions take no mask (the intrinsic reference: vcmpv / vcmpvs "have no MASK", unlike vadd, vsel
// or vcadd), so in normal mode every slot of every repeat is compared; the mask argument still loads the mask
// register like any isSetMask call. In counter mode exactly n bits are written.
// Select (bit 1 -> src0, 0 -> src1 / the scalar):
//   VSEL_CMPMASK_SPR        the first E bits of selMask (or of CMPMASK in the register form) serve every repeat;
//   VSEL_TENSOR_SCALAR_MODE the mask bits are consumed contiguously, E per repeat (bit r * E + s);
//   VSEL_TENSOR_TENSOR_MODE as above, choosing between two tensors.
#pragma once
#include "tw/api/vector/core.h"

namespace tw {

template <typename T>
inline bool cmp_one(T a, T b, AscendC::CMPMODE mode) {
    calc_t<T> x = to_c<T>(a), y = to_c<T>(b);
    switch (mode) {
        case AscendC::CMPMODE::LT: return x < y;
        case AscendC::CMPMODE::GT: return x > y;
        case AscendC::CMPMODE::EQ: return x == y;
        case AscendC::CMPMODE::LE: return x <= y;
        case AscendC::CMPMODE::GE: return x >= y;
        case AscendC::CMPMODE::NE: return x != y;
    }
    return false;
}

inline void set_bit(uint8_t* p, uint64_t i, bool v) {
    uint8_t b = static_cast<uint8_t>(1u << (i & 7));
    if (v) p[i >> 3] |= b;
    else p[i >> 3] &= static_cast<uint8_t>(~b);
}
inline bool get_bit(const uint8_t* p, uint64_t i) { return (p[i >> 3] >> (i & 7)) & 1u; }

// Bytes [0, nbytes) of a mask tensor of element type U, bounds-checked.
template <typename U>
inline uint8_t* mask_bytes(const AscendC::LocalTensor<U>& t, uint64_t nbytes, const char* what, const char* file,
                           int line) {
    if (nbytes == 0) return reinterpret_cast<uint8_t*>(t.data());
    return reinterpret_cast<uint8_t*>(t.span(0, (nbytes + sizeof(U) - 1) / sizeof(U), what, file, line));
}

// Count-form comparison of n elements, y(i) gives the right-hand side.
template <typename T, typename U, typename Y>
inline void cmp_count(const char* name, const AscendC::LocalTensor<U>& dst, const T* x, Y y, int64_t n,
                      AscendC::CMPMODE mode, const char* file, int line) {
    uint8_t* d = mask_bytes(dst, (uint64_t(n) + 7) / 8, name, file, line);
    for (int64_t i = 0; i < n; ++i) set_bit(d, i, cmp_one<T>(x[i], y(i), mode));
    vrec_count<T>(name, file, line, n);
}

// Mask-form comparison: r(rep, slot) computes one result.
template <typename T, typename U, typename F>
inline void cmp_mask(const char* name, const AscendC::LocalTensor<U>& dst, const VMask& m, F f, const char* file,
                     int line) {
    constexpr uint32_t E = 256 / sizeof(T);
    const uint32_t R = m.issued(E);
    uint64_t nbits = m.counter ? m.n : uint64_t(R) * E;
    uint8_t* d = mask_bytes(dst, (nbits + 7) / 8, name, file, line);
    each_repeat(m, E, [&](uint32_t r, const uint16_t* s, uint32_t k) {
        for (uint32_t i = 0; i < k; ++i) set_bit(d, uint64_t(r) * E + s[i], f(r, s[i]));
    });
    vrec(name, file, line, m.elements(), m.elements() * sizeof(T), R, sizeof(T), true);
}

// Compare / Compares, count form: "count elements must occupy a multiple of 256 bytes; the unaligned elements do not
// take part, only whole aligned blocks are valid" (Compare and Compares reference, parameter `count`). The tail is
// left uncomputed, as on the device, with a warning at the call.
template <typename T>
inline int64_t cmp_whole_repeats(int64_t count, const char* what, const char* file, int line) {
    const uint64_t bytes = uint64_t(count) * sizeof(T);
    if (count <= 0 || bytes % 256 == 0) return count;
    const uint64_t kept = bytes / 256 * 256;
    warn("misaligned",
         std::string(what) + " of " + std::to_string(count) + " elements (" + std::to_string(bytes) +
             " bytes), not a multiple of 256 bytes: the device compares only the first " +
             std::to_string(kept / sizeof(T)) + " and leaves the rest of the result unwritten; round the count up "
             "to whole 256-byte repeats (the operands' buffers must hold them)",
         file, line);
    return static_cast<int64_t>(kept / sizeof(T));
}

// The compare instructions ignore the mask: every slot of each repeat (normal mode), or n elements (counter mode).
inline VMask all_slots(VMask m, uint32_t E) {
    if (!m.counter) mask_first(m, E, E);
    return m;
}

}  // namespace tw

namespace AscendC {

// ---------------------------------------------------------------------------------------------------------------
// Compare

template <typename T, typename U>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
             const uint32_t count_arg, TW_SRC) {
    const int64_t count = tw::cmp_whole_repeats<T>(tw::counted(count_arg), "Compare", TW_AT);
    const T* x = src0.span(0, count, "Compare", TW_AT);
    const T* y = src1.span(0, count, "Compare", TW_AT);
    tw::cmp_count<T>("Compare", dst, x, [y](int64_t i) { return y[i]; }, count, cmpMode, TW_AT);
}
TW_TWIN_M(, void, (typename T, typename U), Compare, (T, U), (const LocalTensor<U>& dst, const LocalTensor<T>& src0,
        const LocalTensor<T>& src1, CMPMODE cmpMode, const uint32_t count_arg), (dst, src0, src1, cmpMode, count_arg),
        )

namespace tw_vec {
template <typename T, typename U>
void compare_mask(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE mode,
                  const tw::VMask& mask, const BinaryRepeatParams& p, const char* file, int line) {
    constexpr uint32_t E = 256 / sizeof(T);
    const tw::VMask m = tw::all_slots(mask, E);
    tw::Lay la = tw::lay<T>(p.src0BlkStride, p.src0RepStride), lb = tw::lay<T>(p.src1BlkStride, p.src1RepStride);
    const T* x = tw::vspan(src0, tw::extent(m, E, la), "Compare", file, line);
    const T* y = tw::vspan(src1, tw::extent(m, E, lb), "Compare", file, line);
    tw::cmp_mask<T>("Compare", dst, m,
                    [&](uint32_t r, uint32_t s) { return tw::cmp_one<T>(x[la.off(r, s)], y[lb.off(r, s)], mode); },
                    file, line);
}

// Register form: one repeat, results into CMPMASK (bits past the repeat's E slots are 0).
template <typename T>
void compare_reg(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE mode, const tw::VMask& mask,
                 const BinaryRepeatParams& p, const char* file, int line) {
    constexpr uint32_t E = 256 / sizeof(T);
    tw::VMask m = tw::all_slots(mask, E);
    if (!m.counter) m.repeats = 1;
    tw::Lay la = tw::lay<T>(p.src0BlkStride, p.src0RepStride), lb = tw::lay<T>(p.src1BlkStride, p.src1RepStride);
    const T* x = tw::vspan(src0, tw::extent(m, E, la), "Compare", file, line);
    const T* y = tw::vspan(src1, tw::extent(m, E, lb), "Compare", file, line);
    uint8_t* reg = tw::cmp_mask_reg();
    std::memset(reg, 0, 16);
    tw::each_repeat(m, E, [&](uint32_t r, const uint16_t* s, uint32_t k) {
        if (r != 0) return;
        for (uint32_t i = 0; i < k; ++i) tw::set_bit(reg, s[i], tw::cmp_one<T>(x[la.off(0, s[i])], y[lb.off(0, s[i])], mode));
    });
    tw::vrec("Compare", file, line, m.counter ? std::min<uint64_t>(m.n, E) : m.nslots,
             (m.counter ? std::min<uint64_t>(m.n, E) : m.nslots) * sizeof(T), 1, sizeof(T), true);
}
}  // namespace tw_vec

template <typename T, typename U, bool isSetMask = true>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
             const uint64_t mask[], uint8_t repeatTimes, const BinaryRepeatParams& p, TW_SRC) {
    tw_vec::compare_mask(dst, src0, src1, cmpMode, tw::mask_bits(mask, repeatTimes, 256 / sizeof(T), isSetMask), p,
                         TW_AT);
}
TW_TWIN_MASK(, void, (typename T, typename U, bool isSetMask = true), Compare, (T, U, isSetMask),
        (const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
        uint64_t mask[], uint8_t repeatTimes, const BinaryRepeatParams& p), (dst, src0, src1, cmpMode,
        static_cast<const uint64_t*>(mask), repeatTimes, p), )
template <typename T, typename U, bool isSetMask = true>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
             const uint64_t mask, uint8_t repeatTimes, const BinaryRepeatParams& p, TW_SRC) {
    tw_vec::compare_mask(dst, src0, src1, cmpMode, tw::mask_cont(mask, repeatTimes, 256 / sizeof(T), isSetMask), p,
                         TW_AT);
}
TW_TWIN_M(, void, (typename T, typename U, bool isSetMask = true), Compare, (T, U, isSetMask),
        (const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
        const uint64_t mask, uint8_t repeatTimes, const BinaryRepeatParams& p), (dst, src0, src1, cmpMode, mask,
        repeatTimes, p), )
template <typename T, bool isSetMask = true>
void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, const uint64_t mask[],
             const BinaryRepeatParams& p, TW_SRC) {
    tw_vec::compare_reg(src0, src1, cmpMode, tw::mask_bits(mask, 1, 256 / sizeof(T), isSetMask), p, TW_AT);
}
TW_TWIN_MASK(, void, (typename T, bool isSetMask = true), Compare, (T, isSetMask), (const LocalTensor<T>& src0,
        const LocalTensor<T>& src1, CMPMODE cmpMode, uint64_t mask[], const BinaryRepeatParams& p), (src0, src1,
        cmpMode, static_cast<const uint64_t*>(mask), p), )
template <typename T, bool isSetMask = true>
void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, const uint64_t mask,
             const BinaryRepeatParams& p, TW_SRC) {
    tw_vec::compare_reg(src0, src1, cmpMode, tw::mask_cont(mask, 1, 256 / sizeof(T), isSetMask), p, TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isSetMask = true), Compare, (T, isSetMask), (const LocalTensor<T>& src0,
        const LocalTensor<T>& src1, CMPMODE cmpMode, const uint64_t mask, const BinaryRepeatParams& p), (src0, src1,
        cmpMode, mask, p), )

// CMPMASK <-> UB (16 bytes).
template <typename T>
void GetCmpMask(const LocalTensor<T>& dst, TW_SRC) {
    uint8_t* d = tw::mask_bytes(dst, 16, "GetCmpMask", TW_AT);
    std::memcpy(d, tw::cmp_mask_reg(), 16);
    tw::vrec("GetCmpMask", TW_AT, 16 / sizeof(T), 16, 1, sizeof(T), false);
}
TW_TWIN_M(, void, (typename T), GetCmpMask, (T), (const LocalTensor<T>& dst), (dst), )
template <typename T>
void SetCmpMask(const LocalTensor<T>& src, TW_SRC) {
    const uint8_t* s = tw::mask_bytes(src, 16, "SetCmpMask", TW_AT);
    std::memcpy(tw::cmp_mask_reg(), s, 16);
    tw::vrec("SetCmpMask", TW_AT, 16 / sizeof(T), 16, 1, sizeof(T), false);
}
TW_TWIN_M(, void, (typename T), SetCmpMask, (T), (const LocalTensor<T>& src), (src), )

// ---------------------------------------------------------------------------------------------------------------
// CompareScalar

template <typename T, typename U>
void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const tw::nd_t<T> src1Scalar,
                   CMPMODE cmpMode, const uint32_t count_arg, TW_SRC) {
    const int64_t count = tw::cmp_whole_repeats<T>(tw::counted(count_arg), "CompareScalar", TW_AT);
    const T* x = src0.span(0, count, "CompareScalar", TW_AT);
    const T s = src1Scalar;
    tw::cmp_count<T>("CompareScalar", dst, x, [s](int64_t) { return s; }, count, cmpMode, TW_AT);
}
TW_TWIN_M(, void, (typename T, typename U), CompareScalar, (T, U), (const LocalTensor<U>& dst,
        const LocalTensor<T>& src0, const tw::nd_t<T> src1Scalar, CMPMODE cmpMode, const uint32_t count_arg), (dst,
        src0, src1Scalar, cmpMode, count_arg), )

namespace tw_vec {
template <typename T, typename U>
void compare_scalar_mask(const LocalTensor<U>& dst, const LocalTensor<T>& src0, T s, CMPMODE mode,
                         const tw::VMask& mask, const UnaryRepeatParams& p, const char* file, int line) {
    constexpr uint32_t E = 256 / sizeof(T);
    const tw::VMask m = tw::all_slots(mask, E);
    tw::Lay la = tw::lay<T>(p.srcBlkStride, p.srcRepStride);
    const T* x = tw::vspan(src0, tw::extent(m, E, la), "CompareScalar", file, line);
    tw::cmp_mask<T>("CompareScalar", dst, m,
                    [&](uint32_t r, uint32_t sl) { return tw::cmp_one<T>(x[la.off(r, sl)], s, mode); }, file, line);
}
}  // namespace tw_vec

template <typename T, typename U, bool isSetMask = true>
void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const tw::nd_t<T> src1Scalar,
                   CMPMODE cmpMode, const uint64_t mask[], uint8_t repeatTimes, const UnaryRepeatParams& p, TW_SRC) {
    tw_vec::compare_scalar_mask<T, U>(dst, src0, src1Scalar, cmpMode,
                                      tw::mask_bits(mask, repeatTimes, 256 / sizeof(T), isSetMask), p, TW_AT);
}
TW_TWIN_MASK(, void, (typename T, typename U, bool isSetMask = true), CompareScalar, (T, U, isSetMask),
        (const LocalTensor<U>& dst, const LocalTensor<T>& src0, const tw::nd_t<T> src1Scalar, CMPMODE cmpMode,
        uint64_t mask[], uint8_t repeatTimes, const UnaryRepeatParams& p), (dst, src0, src1Scalar, cmpMode,
        static_cast<const uint64_t*>(mask), repeatTimes, p), )
template <typename T, typename U, bool isSetMask = true>
void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const tw::nd_t<T> src1Scalar,
                   CMPMODE cmpMode, const uint64_t mask, uint8_t repeatTimes, const UnaryRepeatParams& p, TW_SRC) {
    tw_vec::compare_scalar_mask<T, U>(dst, src0, src1Scalar, cmpMode,
                                      tw::mask_cont(mask, repeatTimes, 256 / sizeof(T), isSetMask), p, TW_AT);
}
TW_TWIN_M(, void, (typename T, typename U, bool isSetMask = true), CompareScalar, (T, U, isSetMask),
        (const LocalTensor<U>& dst, const LocalTensor<T>& src0, const tw::nd_t<T> src1Scalar, CMPMODE cmpMode,
        const uint64_t mask, uint8_t repeatTimes, const UnaryRepeatParams& p), (dst, src0, src1Scalar, cmpMode, mask,
        repeatTimes, p), )

// Compares: the reference's current name of CompareScalar (Compares.md: the same three forms, the same result bits;
// on the A2 the mask forms' mask is reserved, so every slot of a repeat is compared, as CompareScalar's are).
template <typename T, typename U>
void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const tw::nd_t<T> src1Scalar, CMPMODE cmpMode,
              uint32_t count, TW_SRC) {
    CompareScalar<T, U>(dst, src0, src1Scalar, cmpMode, count, TW_AT);
}
TW_TWIN_M(, void, (typename T, typename U), Compares, (T, U), (const LocalTensor<U>& dst, const LocalTensor<T>& src0,
        const tw::nd_t<T> src1Scalar, CMPMODE cmpMode, uint32_t count), (dst, src0, src1Scalar, cmpMode, count), )
template <typename T, typename U, bool isSetMask = true>
void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const tw::nd_t<T> src1Scalar, CMPMODE cmpMode,
              const uint64_t mask[], uint8_t repeatTime, const UnaryRepeatParams& repeatParams, TW_SRC) {
    CompareScalar<T, U, isSetMask>(dst, src0, src1Scalar, cmpMode, mask, repeatTime, repeatParams, TW_AT);
}
TW_TWIN_MASK(, void, (typename T, typename U, bool isSetMask = true), Compares, (T, U, isSetMask),
        (const LocalTensor<U>& dst, const LocalTensor<T>& src0, const tw::nd_t<T> src1Scalar, CMPMODE cmpMode,
        uint64_t mask[], uint8_t repeatTime, const UnaryRepeatParams& repeatParams), (dst, src0, src1Scalar, cmpMode,
        static_cast<const uint64_t*>(mask), repeatTime, repeatParams), )
template <typename T, typename U, bool isSetMask = true>
void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const tw::nd_t<T> src1Scalar, CMPMODE cmpMode,
              const uint64_t mask, uint8_t repeatTime, const UnaryRepeatParams& repeatParams, TW_SRC) {
    CompareScalar<T, U, isSetMask>(dst, src0, src1Scalar, cmpMode, mask, repeatTime, repeatParams, TW_AT);
}
TW_TWIN_M(, void, (typename T, typename U, bool isSetMask = true), Compares, (T, U, isSetMask),
        (const LocalTensor<U>& dst, const LocalTensor<T>& src0, const tw::nd_t<T> src1Scalar, CMPMODE cmpMode,
        const uint64_t mask, uint8_t repeatTime, const UnaryRepeatParams& repeatParams), (dst, src0, src1Scalar,
        cmpMode, mask, repeatTime, repeatParams), )

// ---------------------------------------------------------------------------------------------------------------
// Select

namespace tw_vec {
// Bit source for a selection: `bits` is the mask's first byte; `per_repeat` false means the same E bits for every
// repeat (VSEL_CMPMASK_SPR).
struct SelBits {
    const uint8_t* bits;
    bool per_repeat;
    uint32_t E;
    bool at(uint32_t r, uint32_t s) const { return tw::get_bit(bits, per_repeat ? uint64_t(r) * E + s : s); }
};

template <typename T, typename U>
SelBits sel_bits(const LocalTensor<U>& selMask, SELMODE mode, uint64_t nbits, uint32_t E, const char* file,
                 int line) {
    bool per_repeat = mode != SELMODE::VSEL_CMPMASK_SPR;
    uint64_t need = per_repeat ? nbits : std::min<uint64_t>(nbits, E);
    return SelBits{tw::mask_bytes(selMask, (need + 7) / 8, "Select", file, line), per_repeat, E};
}

// Mask/repeat selection; y(r, s) gives the "0" choice.
template <typename T, typename Y>
void select_mask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const SelBits& sb, const tw::VMask& m,
                 const BinaryRepeatParams& p, Y y, const char* file, int line) {
    constexpr uint32_t E = 256 / sizeof(T);
    tw::Lay ld = tw::lay<T>(p.dstBlkStride, p.dstRepStride), la = tw::lay<T>(p.src0BlkStride, p.src0RepStride);
    T* d = tw::vspan(dst, tw::extent(m, E, ld), "Select", file, line);
    const T* x = tw::vspan(src0, tw::extent(m, E, la), "Select", file, line);
    T tmp[tw::kMaxSlots];
    tw::each_repeat(m, E, [&](uint32_t r, const uint16_t* s, uint32_t k) {
        for (uint32_t i = 0; i < k; ++i) tmp[i] = sb.at(r, s[i]) ? x[la.off(r, s[i])] : y(r, s[i]);
        for (uint32_t i = 0; i < k; ++i) d[ld.off(r, s[i])] = tmp[i];
    });
    tw::vrec("Select", file, line, m.elements(), m.elements() * sizeof(T), m.issued(E), sizeof(T), true);
}

template <typename T, typename U>
void select_tt(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
               const LocalTensor<T>& src1, SELMODE mode, const tw::VMask& m, const BinaryRepeatParams& p,
               const char* file, int line) {
    constexpr uint32_t E = 256 / sizeof(T);
    tw::Lay lb = tw::lay<T>(p.src1BlkStride, p.src1RepStride);
    const T* y = tw::vspan(src1, tw::extent(m, E, lb), "Select", file, line);
    SelBits sb = sel_bits<T>(selMask, mode, uint64_t(m.issued(E)) * E, E, file, line);
    select_mask(dst, src0, sb, m, p, [&](uint32_t r, uint32_t s) { return y[lb.off(r, s)]; }, file, line);
}

template <typename T, typename U>
void select_ts(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, T scalar,
               SELMODE mode, const tw::VMask& m, const BinaryRepeatParams& p, const char* file, int line) {
    constexpr uint32_t E = 256 / sizeof(T);
    SelBits sb = sel_bits<T>(selMask, mode, uint64_t(m.issued(E)) * E, E, file, line);
    select_mask(dst, src0, sb, m, p, [scalar](uint32_t, uint32_t) { return scalar; }, file, line);
}
}  // namespace tw_vec

// Count forms.
template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, uint32_t count, TW_SRC) {
    constexpr uint32_t E = 256 / sizeof(T);
    T* d = dst.span(0, count, "Select", TW_AT);
    const T* x = src0.span(0, count, "Select", TW_AT);
    const T* y = src1.span(0, count, "Select", TW_AT);
    tw_vec::SelBits sb = tw_vec::sel_bits<T>(selMask, selMode, count, E, TW_AT);
    for (uint32_t i = 0; i < count; ++i) d[i] = sb.at(i / E, i % E) ? x[i] : y[i];
    tw::vrec_count<T>("Select", TW_AT, count);
}
TW_TWIN_M(, void, (typename T, typename U), Select, (T, U), (const LocalTensor<T>& dst, const LocalTensor<U>& selMask,
        const LocalTensor<T>& src0, const LocalTensor<T>& src1, SELMODE selMode, uint32_t count), (dst, selMask, src0,
        src1, selMode, count), )
template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const tw::nd_t<T> src1, SELMODE selMode, uint32_t count, TW_SRC) {
    constexpr uint32_t E = 256 / sizeof(T);
    T* d = dst.span(0, count, "Select", TW_AT);
    const T* x = src0.span(0, count, "Select", TW_AT);
    const T s = src1;
    tw_vec::SelBits sb = tw_vec::sel_bits<T>(selMask, selMode, count, E, TW_AT);
    for (uint32_t i = 0; i < count; ++i) d[i] = sb.at(i / E, i % E) ? x[i] : s;
    tw::vrec_count<T>("Select", TW_AT, count);
}
TW_TWIN_M(, void, (typename T, typename U), Select, (T, U), (const LocalTensor<T>& dst, const LocalTensor<U>& selMask,
        const LocalTensor<T>& src0, const tw::nd_t<T> src1, SELMODE selMode, uint32_t count), (dst, selMask, src0,
        src1, selMode, count), )

// Mask/repeat forms, tensor-tensor.
template <typename T, typename U, bool isSetMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, const uint64_t mask[], uint8_t repeatTimes,
            const BinaryRepeatParams& p, TW_SRC) {
    tw_vec::select_tt(dst, selMask, src0, src1, selMode, tw::mask_bits(mask, repeatTimes, 256 / sizeof(T), isSetMask),
                      p, TW_AT);
}
TW_TWIN_MASK(, void, (typename T, typename U, bool isSetMask = true), Select, (T, U, isSetMask),
        (const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
        const LocalTensor<T>& src1, SELMODE selMode, uint64_t mask[], uint8_t repeatTimes,
        const BinaryRepeatParams& p), (dst, selMask, src0, src1, selMode, static_cast<const uint64_t*>(mask),
        repeatTimes, p), )
template <typename T, typename U, bool isSetMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, uint64_t mask, uint8_t repeatTimes,
            const BinaryRepeatParams& p, TW_SRC) {
    tw_vec::select_tt(dst, selMask, src0, src1, selMode, tw::mask_cont(mask, repeatTimes, 256 / sizeof(T), isSetMask),
                      p, TW_AT);
}
TW_TWIN_M(, void, (typename T, typename U, bool isSetMask = true), Select, (T, U, isSetMask),
        (const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
        const LocalTensor<T>& src1, SELMODE selMode, uint64_t mask, uint8_t repeatTimes, const BinaryRepeatParams& p),
        (dst, selMask, src0, src1, selMode, mask, repeatTimes, p), )
// Mask/repeat forms, tensor-scalar.
template <typename T, typename U, bool isSetMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const tw::nd_t<T> src1, SELMODE selMode, const uint64_t mask[], uint8_t repeatTimes,
            const BinaryRepeatParams& p, TW_SRC) {
    tw_vec::select_ts<T, U>(dst, selMask, src0, src1, selMode,
                            tw::mask_bits(mask, repeatTimes, 256 / sizeof(T), isSetMask), p, TW_AT);
}
TW_TWIN_MASK(, void, (typename T, typename U, bool isSetMask = true), Select, (T, U, isSetMask),
        (const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, const tw::nd_t<T> src1,
        SELMODE selMode, uint64_t mask[], uint8_t repeatTimes, const BinaryRepeatParams& p), (dst, selMask, src0,
        src1, selMode, static_cast<const uint64_t*>(mask), repeatTimes, p), )
template <typename T, typename U, bool isSetMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const tw::nd_t<T> src1, SELMODE selMode, uint64_t mask, uint8_t repeatTimes, const BinaryRepeatParams& p,
            TW_SRC) {
    tw_vec::select_ts<T, U>(dst, selMask, src0, src1, selMode,
                            tw::mask_cont(mask, repeatTimes, 256 / sizeof(T), isSetMask), p, TW_AT);
}
TW_TWIN_M(, void, (typename T, typename U, bool isSetMask = true), Select, (T, U, isSetMask),
        (const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, const tw::nd_t<T> src1,
        SELMODE selMode, uint64_t mask, uint8_t repeatTimes, const BinaryRepeatParams& p), (dst, selMask, src0, src1,
        selMode, mask, repeatTimes, p), )

// Register forms (mask from SetVectorMask): VSEL_CMPMASK_SPR chooses between src0 and src1 with CMPMASK's bits
// (set by the register form of Compare or by SetCmpMask) ...
template <typename T, SELMODE selMode>
void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint8_t repeatTimes,
            const BinaryRepeatParams& p, TW_SRC) {
    static_assert(selMode == SELMODE::VSEL_CMPMASK_SPR,
                  "the register form of Select is emulated for VSEL_CMPMASK_SPR only (mode 2 keeps a UB address in "
                  "CMPMASK)");
    constexpr uint32_t E = 256 / sizeof(T);
    tw::VMask m = tw::mask_cont(0, repeatTimes, E, false);
    tw::Lay lb = tw::lay<T>(p.src1BlkStride, p.src1RepStride);
    const T* y = tw::vspan(src1, tw::extent(m, E, lb), "Select", TW_AT);
    tw_vec::SelBits sb{tw::cmp_mask_reg(), false, E};
    tw_vec::select_mask(dst, src0, sb, m, p, [&](uint32_t r, uint32_t s) { return y[lb.off(r, s)]; }, TW_AT);
}
TW_TWIN_M(, void, (typename T, SELMODE selMode), Select, (T, selMode), (const LocalTensor<T>& dst,
        const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint8_t repeatTimes, const BinaryRepeatParams& p),
        (dst, src0, src1, repeatTimes, p), )
// ... and VSEL_TENSOR_SCALAR_MODE chooses between src0 and the scalar SetCmpMask loaded (CMPMASK's low bits),
// with the bits read from selMask.
template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            uint8_t repeatTimes, const BinaryRepeatParams& p, TW_SRC) {
    constexpr uint32_t E = 256 / sizeof(T);
    tw::VMask m = tw::mask_cont(0, repeatTimes, E, false);
    T scalar;
    std::memcpy(static_cast<void*>(&scalar), tw::cmp_mask_reg(), sizeof(T));
    tw_vec::select_ts<T, U>(dst, selMask, src0, scalar, SELMODE::VSEL_TENSOR_SCALAR_MODE, m, p, TW_AT);
}
TW_TWIN_M(, void, (typename T, typename U), Select, (T, U), (const LocalTensor<T>& dst, const LocalTensor<U>& selMask,
        const LocalTensor<T>& src0, uint8_t repeatTimes, const BinaryRepeatParams& p), (dst, selMask, src0,
        repeatTimes, p), )

}  // namespace AscendC
