// Element-wise vector instructions: binary (Add ... Or), scalar-operand (Adds ... LeakyRelu, shifts), unary
// (Exp ... Not), Duplicate, Axpy and Copy. Each has the count form and the mask/repeat forms (continuous mask and
// bit mask); every call checks the UB span it touches and appends one trace record.
#pragma once
#include "tw/timing/ub_banks.h"
#include "tw/api/vector/core.h"

namespace AscendC {

struct CopyRepeatParams {
    uint16_t dstStride = 1;      // block stride, 32-byte units
    uint16_t srcStride = 1;
    uint16_t dstRepeatSize = 8;  // repeat stride, 32-byte units
    uint16_t srcRepeatSize = 8;
    CopyRepeatParams() = default;
    CopyRepeatParams(uint16_t ds, uint16_t ss, uint16_t dr, uint16_t sr)
        : dstStride(ds), srcStride(ss), dstRepeatSize(dr), srcRepeatSize(sr) {}
};

}  // namespace AscendC

namespace tw {
namespace op {

// Binary operations on the arithmetic type (see calc_t).
struct Add { template <class C> C operator()(C a, C b) const { return a + b; } };
struct Sub { template <class C> C operator()(C a, C b) const { return a - b; } };
struct Mul { template <class C> C operator()(C a, C b) const { return a * b; } };
struct Div {
    template <class C>
    C operator()(C a, C b) const {
        if constexpr (std::is_integral<C>::value) return b == 0 ? C(0) : C(a / b);  // integer x/0: 0 (documented choice)
        else return a / b;
    }
};
struct Max { template <class C> C operator()(C a, C b) const { return a > b ? a : b; } };
struct Min { template <class C> C operator()(C a, C b) const { return a < b ? a : b; } };
struct And { template <class C> C operator()(C a, C b) const { return a & b; } };
struct Or { template <class C> C operator()(C a, C b) const { return a | b; } };
// Left shift of a T (computed on its 64-bit arithmetic type C). Unsigned types shift logically. Signed types shift
// arithmetically, as the ShiftLeft reference defines it: the sign bit stays and the bits below it shift, the highest
// of them dropping out (int16_t 0b1010101010101010 << 1 is 0b1101010101010100, << 3 is 0b1101010101010000).
template <typename T>
struct ShiftL {
    template <class C>
    C operator()(C a, C b) const {
        const uint64_t shifted = (b < 0 || b >= 64) ? 0 : static_cast<uint64_t>(a) << b;
        if constexpr (std::is_signed<T>::value) {
            constexpr uint64_t low = static_cast<uint64_t>(std::numeric_limits<T>::max());  // the bits below the sign
            const uint64_t sign = a < 0 ? ~low : 0;  // the sign, extended over the 64 bits, as T's value has it
            return static_cast<C>(sign | (shifted & low));
        } else {
            return static_cast<C>(shifted);
        }
    }
};
// Arithmetic shift for signed types, logical for unsigned ones (on the 64-bit arithmetic type, so the sign of a
// narrower signed value is kept).
struct ShiftR {
    template <class C>
    C operator()(C a, C b) const {
        if (b < 0) return C(0);
        if (b >= 63) return std::is_signed<C>::value && a < 0 ? C(-1) : C(0);
        return C(a >> b);
    }
};
struct LeakyRelu {
    template <class C>
    C operator()(C a, C s) const { return a >= C(0) ? a : C(a * s); }
};

// Unary operations.
struct Exp { template <class C> C operator()(C a) const { return std::exp(a); } };
struct Ln { template <class C> C operator()(C a) const { return std::log(a); } };  // ln(x<0) = nan, ln(0) = -inf
struct Sqrt { template <class C> C operator()(C a) const { return std::sqrt(a); } };
// Computed in double and rounded once to the arithmetic type: 1 / sqrt(x) to within the destination's rounding, what a
// golden computes (see device_note for what the device does).
struct Rsqrt { template <class C> C operator()(C a) const { return C(1.0 / std::sqrt(static_cast<double>(a))); } };
struct Reciprocal { template <class C> C operator()(C a) const { return C(1) / a; } };
struct Abs {
    template <class C>
    C operator()(C a) const {
        if constexpr (std::is_floating_point<C>::value) return std::fabs(a);
        else return a < 0 ? C(-a) : a;
    }
};
struct Relu { template <class C> C operator()(C a) const { return a > C(0) ? a : C(0); } };
struct Not { template <class C> C operator()(C a) const { return ~a; } };

}  // namespace op

// What the device computes differently from the emulator, said at the call site. Rsqrt: the reference
// (Rsqrt.md, constraints) says its half results miss the double-thousandth criterion (an error of at most 1e-3 on all
// but 0.1% of the elements) and its float results the double-ten-thousandth one (1e-4), and points to Sqrt and Div
// for precision; it documents no bound or algorithm, so the emulator computes 1 / sqrt(x) correctly rounded and
// warns instead (API_COVERAGE.md, "Rsqrt's precision", says why).
template <class Op>
inline void device_note(const char*, int) {}
template <>
inline void device_note<op::Rsqrt>(const char* file, int line) {
    warn("device_precision",
         "Rsqrt is approximate on the device: its reference says half results miss the double-thousandth criterion "
         "(an error of at most 1e-3 on all but 0.1% of the elements) and float results the double-ten-thousandth "
         "one; the emulator computes 1 / sqrt(x) correctly rounded, so a golden check that passes here can fail "
         "there. For precision, use Sqrt then Div (the reference's advice)",
         file, line);
}

template <typename T, typename F>
inline T apply2(F f, T a, T b) { return from_c<T>(f(to_c<T>(a), to_c<T>(b))); }
template <typename T, typename F>
inline T apply1(F f, T a) { return from_c<T>(f(to_c<T>(a))); }

// ---- engines ----

template <typename T, typename F>
inline void bin_count(const char* name, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& a,
                      const AscendC::LocalTensor<T>& b, int64_t count, F f, const char* file, int line) {
    count = counted(count);
    check_count(count, name, file, line);
    T* d = dst.span(0, count, name, file, line);
    const T* x = a.span(0, count, name, file, line);
    const T* y = b.span(0, count, name, file, line);
    for (int64_t i = 0; i < count; ++i) d[i] = apply2<T>(f, x[i], y[i]);
    vrec(name, file, line, count, count * sizeof(T), repeats_of<T>(count), sizeof(T), false,
         count_banks<T, T>(count, d, x, y));
}

template <typename T, typename F>
inline void bin_mask(const char* name, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& a,
                     const AscendC::LocalTensor<T>& b, const VMask& m, const AscendC::BinaryRepeatParams& p, F f,
                     const char* file, int line) {
    constexpr uint32_t E = 256 / sizeof(T);
    Lay ld = lay<T>(p.dstBlkStride, p.dstRepStride), la = lay<T>(p.src0BlkStride, p.src0RepStride),
        lb = lay<T>(p.src1BlkStride, p.src1RepStride);
    T* d = vspan(dst, extent(m, E, ld), name, file, line);
    const T* x = vspan(a, extent(m, E, la), name, file, line);
    const T* y = vspan(b, extent(m, E, lb), name, file, line);
    T tmp[kMaxSlots];
    // A repeat reads all its sources before it writes, so overlapping operands behave as on the hardware.
    each_repeat(m, E, [&](uint32_t r, const uint16_t* s, uint32_t k) {
        for (uint32_t i = 0; i < k; ++i) tmp[i] = apply2<T>(f, x[la.off(r, s[i])], y[lb.off(r, s[i])]);
        for (uint32_t i = 0; i < k; ++i) d[ld.off(r, s[i])] = tmp[i];
    });
    const int32_t banks = bank_info(m, E, ld.EB, bank_operand(d, ld), {bank_operand(x, la), bank_operand(y, lb)});
    vrec(name, file, line, m.elements(), m.elements() * sizeof(T), m.issued(E), sizeof(T), true, banks);
}

// Unary element-wise engine over a destination of type D and a source of type S (equal for most instructions,
// different for Cast / Axpy). g(dst_value, src_value) -> new dst value. The repeat is driven by the wider type.
// `reads_dst`: the instruction reads dst as well (Axpy), which the UB bank model counts among its reads.
template <typename D, typename S, typename G>
inline void un_mask(const char* name, const AscendC::LocalTensor<D>& dst, const AscendC::LocalTensor<S>& src,
                    const VMask& m, uint64_t dblk, uint64_t sblk, uint64_t drep, uint64_t srep, G g, const char* file,
                    int line, bool reads_dst = false) {
    constexpr uint32_t W = sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S);
    constexpr uint32_t E = 256 / W;
    Lay ld = lay<D>(dblk, drep, W), ls = lay<S>(sblk, srep, W);
    D* d = vspan(dst, extent(m, E, ld), name, file, line);
    const S* x = vspan(src, extent(m, E, ls), name, file, line);
    D tmp[kMaxSlots];
    each_repeat(m, E, [&](uint32_t r, const uint16_t* s, uint32_t k) {
        for (uint32_t i = 0; i < k; ++i) tmp[i] = g(d[ld.off(r, s[i])], x[ls.off(r, s[i])]);
        for (uint32_t i = 0; i < k; ++i) d[ld.off(r, s[i])] = tmp[i];
    });
    const BankOperand od = bank_operand(d, ld), os = bank_operand(x, ls);
    const int32_t banks = reads_dst ? bank_info(m, E, ld.EB, od, {os, od}) : bank_info(m, E, ld.EB, od, {os});
    vrec(name, file, line, m.elements(), m.elements() * W, m.issued(E), W, true, banks);
}

// Copy in counter mode: the mask register's count n is the element count of every repeat, and the call's repeat
// count applies (the reference's Copy notes), so it becomes a normal-mode mask of slots 0..n-1 repeated
// `repeats` times.
inline void copy_counter(VMask& m, uint32_t repeats, const char* file, int line) {
    if (m.n > kMaxSlots)
        fail("unsupported", "Copy in counter mode with " + std::to_string(m.n) + " elements a repeat: the emulator " +
                                "handles up to " + std::to_string(kMaxSlots) + "; split the copy into more repeats",
             file, line);
    m.counter = false;
    m.repeats = m.n == 0 ? 0 : repeats;
    mask_first(m, m.n, kMaxSlots);
}

template <typename D, typename S, typename G>
inline void un_count(const char* name, const AscendC::LocalTensor<D>& dst, const AscendC::LocalTensor<S>& src,
                     int64_t count, G g, const char* file, int line, bool reads_dst = false, bool is_set = true) {
    count = counted(count, is_set);
    check_count(count, name, file, line);
    D* d = dst.span(0, count, name, file, line);
    const S* x = src.span(0, count, name, file, line);
    for (int64_t i = 0; i < count; ++i) d[i] = g(d[i], x[i]);
    constexpr uint32_t W = sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S);
    vrec(name, file, line, count, uint64_t(count) * W, static_cast<uint32_t>((uint64_t(count) * W + 255) / 256), W,
         false, count_banks<D, S>(count, d, x, nullptr, reads_dst));
}

// dst = src op s, the scalar-operand instructions (Adds ... LeakyRelu, the shifts): over `count` elements, or over
// the repeats a mask selects.
template <typename T, typename Op>
inline void scalar_count(const char* name, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                         T s, int64_t count, Op op, const char* file, int line, bool is_set = true) {
    un_count(name, dst, src, count, [s, op](T, T x) { return apply2<T>(op, x, s); }, file, line, false, is_set);
}

template <typename T, typename Op, typename Params>
inline void scalar_mask(const char* name, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                        T s, const VMask& m, const Params& p, Op op, const char* file, int line) {
    un_mask(name, dst, src, m, p.dstBlkStride, p.srcBlkStride, p.dstRepStride, p.srcRepStride,
            [s, op](T, T x) { return apply2<T>(op, x, s); }, file, line);
}

}  // namespace tw

namespace AscendC {

// ---------------------------------------------------------------------------------------------------------------
// Binary: dst = src0 op src1

// The three documented forms of a two-source instruction (count; continuous mask; bit mask), each handing the work
// to an engine of tw:: (bin_count/bin_mask here; fused_index_scatter.h's fused instructions use the three-operand
// ter_count/ter_mask, which also read dst). Kept defined: fused_index_scatter.h declares its instructions with it too.
#define TW_BINARY_FORMS(NAME, ENGINE_COUNT, ENGINE_MASK, OP)                                                       \
    template <typename T>                                                                                          \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,                   \
              const int32_t& count, TW_SRC) {                                                                      \
        tw::ENGINE_COUNT(#NAME, dst, src0, src1, count, OP{}, TW_AT);                                              \
    }                                                                                                              \
    template <typename T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint64_t mask,    \
              const uint8_t repeatTimes, const BinaryRepeatParams& repeatParams, TW_SRC) {                         \
        tw::ENGINE_MASK(#NAME, dst, src0, src1, tw::mask_cont(mask, repeatTimes, 256 / sizeof(T), isSetMask),      \
                        repeatParams, OP{}, TW_AT);                                                                \
    }                                                                                                              \
    template <typename T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,                   \
              const uint64_t mask[], const uint8_t repeatTimes, const BinaryRepeatParams& repeatParams, TW_SRC) {  \
        tw::ENGINE_MASK(#NAME, dst, src0, src1, tw::mask_bits(mask, repeatTimes, 256 / sizeof(T), isSetMask),      \
                        repeatParams, OP{}, TW_AT);                                                                \
    }                                                                                                              \
    TW_TWIN((typename T), NAME, (T),                                                                               \
            (const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,                    \
             const int32_t& count),                                                                                \
            (dst, src0, src1, count))                                                                              \
    TW_TWIN((typename T, bool isSetMask = true), NAME, (T, isSetMask),                                             \
            (const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint64_t mask,     \
             const uint8_t repeatTimes, const BinaryRepeatParams& repeatParams),                                   \
            (dst, src0, src1, mask, repeatTimes, repeatParams))                                                    \
    TW_TWIN_MASK(, void, (typename T, bool isSetMask = true), NAME, (T, isSetMask),                                \
                 (const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,               \
                  uint64_t mask[], const uint8_t repeatTimes, const BinaryRepeatParams& repeatParams),             \
                 (dst, src0, src1, static_cast<const uint64_t*>(mask), repeatTimes, repeatParams), )
#define TW_BINARY(NAME, OP) TW_BINARY_FORMS(NAME, bin_count, bin_mask, OP)

TW_BINARY(Add, tw::op::Add)
TW_BINARY(Sub, tw::op::Sub)
TW_BINARY(Mul, tw::op::Mul)
TW_BINARY(Div, tw::op::Div)
TW_BINARY(Max, tw::op::Max)
TW_BINARY(Min, tw::op::Min)
TW_BINARY(And, tw::op::And)
TW_BINARY(Or, tw::op::Or)

#undef TW_BINARY

// ---------------------------------------------------------------------------------------------------------------
// Scalar operand: dst = src op scalar

#define TW_SCALAR(NAME, OP)                                                                                        \
    template <typename T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const tw::nd_t<T>& scalarValue,                \
              const int32_t& count, TW_SRC) {                                                                      \
        tw::scalar_count<T>(#NAME, dst, src, scalarValue, count, OP{}, TW_AT, isSetMask);                          \
    }                                                                                                              \
    template <typename T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const tw::nd_t<T>& scalarValue, uint64_t mask, \
              const uint8_t repeatTimes, const UnaryRepeatParams& p, TW_SRC) {                                     \
        tw::scalar_mask<T>(#NAME, dst, src, scalarValue,                                                           \
                           tw::mask_cont(mask, repeatTimes, 256 / sizeof(T), isSetMask), p, OP{}, TW_AT);          \
    }                                                                                                              \
    template <typename T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const tw::nd_t<T>& scalarValue,                \
              const uint64_t mask[], const uint8_t repeatTimes, const UnaryRepeatParams& p, TW_SRC) {              \
        tw::scalar_mask<T>(#NAME, dst, src, scalarValue,                                                           \
                           tw::mask_bits(mask, repeatTimes, 256 / sizeof(T), isSetMask), p, OP{}, TW_AT);          \
    }                                                                                                              \
    TW_SCALAR_TWINS(NAME, (const UnaryRepeatParams& p), (p))

// The twins of a scalar-operand instruction's three forms (TW_TWIN); TAIL: what its mask forms take after the
// repeat parameters.
#define TW_SCALAR_TWINS(NAME, TAIL_PARAMS, TAIL_ARGS)                                                              \
    TW_TWIN((typename T, bool isSetMask = true), NAME, (T, isSetMask),                                             \
            (const LocalTensor<T>& dst, const LocalTensor<T>& src, const tw::nd_t<T>& scalarValue,                 \
             const int32_t& count),                                                                                \
            (dst, src, scalarValue, count))                                                                        \
    TW_TWIN((typename T, bool isSetMask = true), NAME, (T, isSetMask),                                             \
            (const LocalTensor<T>& dst, const LocalTensor<T>& src, const tw::nd_t<T>& scalarValue, uint64_t mask,  \
             const uint8_t repeatTimes, TW_UNPAREN TAIL_PARAMS),                                                   \
            (dst, src, scalarValue, mask, repeatTimes, TW_UNPAREN TAIL_ARGS))                                      \
    TW_TWIN_MASK(, void, (typename T, bool isSetMask = true), NAME, (T, isSetMask),                                \
                 (const LocalTensor<T>& dst, const LocalTensor<T>& src, const tw::nd_t<T>& scalarValue,            \
                  uint64_t mask[], const uint8_t repeatTimes, TW_UNPAREN TAIL_PARAMS),                             \
                 (dst, src, scalarValue, static_cast<const uint64_t*>(mask), repeatTimes, TW_UNPAREN TAIL_ARGS), )

TW_SCALAR(Adds, tw::op::Add)
TW_SCALAR(Muls, tw::op::Mul)
TW_SCALAR(Maxs, tw::op::Max)
TW_SCALAR(Mins, tw::op::Min)
TW_SCALAR(LeakyRelu, tw::op::LeakyRelu)

#undef TW_SCALAR

// Shifts (integer types). The mask forms take the reference API's trailing roundEn flag, which only matters for
// rounding right shifts on some chips; it is accepted and ignored.
#define TW_SHIFT(NAME, OP)                                                                                         \
    template <typename T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const tw::nd_t<T>& scalarValue,                \
              const int32_t& count, TW_SRC) {                                                                      \
        static_assert(std::is_integral<T>::value, #NAME " takes integer tensors");                                 \
        tw::scalar_count<T>(#NAME, dst, src, scalarValue, count, OP{}, TW_AT, isSetMask);                          \
    }                                                                                                              \
    template <typename T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const tw::nd_t<T>& scalarValue, uint64_t mask, \
              const uint8_t repeatTimes, const UnaryRepeatParams& p, bool roundEn = false, TW_SRC) {               \
        static_assert(std::is_integral<T>::value, #NAME " takes integer tensors");                                 \
        (void)roundEn;                                                                                             \
        tw::scalar_mask<T>(#NAME, dst, src, scalarValue,                                                           \
                           tw::mask_cont(mask, repeatTimes, 256 / sizeof(T), isSetMask), p, OP{}, TW_AT);          \
    }                                                                                                              \
    template <typename T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const tw::nd_t<T>& scalarValue,                \
              const uint64_t mask[], const uint8_t repeatTimes, const UnaryRepeatParams& p, bool roundEn = false,  \
              TW_SRC) {                                                                                            \
        static_assert(std::is_integral<T>::value, #NAME " takes integer tensors");                                 \
        (void)roundEn;                                                                                             \
        tw::scalar_mask<T>(#NAME, dst, src, scalarValue,                                                           \
                           tw::mask_bits(mask, repeatTimes, 256 / sizeof(T), isSetMask), p, OP{}, TW_AT);          \
    }                                                                                                              \
    TW_SCALAR_TWINS(NAME, (const UnaryRepeatParams& p, bool roundEn), (p, roundEn))                                \
    TW_TWIN((typename T, bool isSetMask = true), NAME, (T, isSetMask),                                             \
            (const LocalTensor<T>& dst, const LocalTensor<T>& src, const tw::nd_t<T>& scalarValue, uint64_t mask,  \
             const uint8_t repeatTimes, const UnaryRepeatParams& p),                                               \
            (dst, src, scalarValue, mask, repeatTimes, p, false))                                                  \
    TW_TWIN_MASK(, void, (typename T, bool isSetMask = true), NAME, (T, isSetMask),                                \
                 (const LocalTensor<T>& dst, const LocalTensor<T>& src, const tw::nd_t<T>& scalarValue,            \
                  uint64_t mask[], const uint8_t repeatTimes, const UnaryRepeatParams& p),                         \
                 (dst, src, scalarValue, static_cast<const uint64_t*>(mask), repeatTimes, p, false), )

TW_SHIFT(ShiftLeft, tw::op::ShiftL<T>)
TW_SHIFT(ShiftRight, tw::op::ShiftR)

#undef TW_SHIFT

// ---------------------------------------------------------------------------------------------------------------
// Unary: dst = f(src)

#define TW_UNARY(NAME, OP)                                                                                         \
    template <typename T>                                                                                          \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count, TW_SRC) {                \
        tw::device_note<OP>(TW_AT);                                                                                \
        tw::un_count(#NAME, dst, src, count, [](T, T x) { return tw::apply1<T>(OP{}, x); }, TW_AT);                \
    }                                                                                                              \
    template <typename T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, const uint8_t repeatTimes,      \
              const UnaryRepeatParams& p, TW_SRC) {                                                                \
        tw::device_note<OP>(TW_AT);                                                                                \
        tw::un_mask(#NAME, dst, src, tw::mask_cont(mask, repeatTimes, 256 / sizeof(T), isSetMask), p.dstBlkStride, \
                    p.srcBlkStride, p.dstRepStride, p.srcRepStride,                                                \
                    [](T, T x) { return tw::apply1<T>(OP{}, x); }, TW_AT);                                         \
    }                                                                                                              \
    template <typename T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],                         \
              const uint8_t repeatTimes, const UnaryRepeatParams& p, TW_SRC) {                                     \
        tw::device_note<OP>(TW_AT);                                                                                \
        tw::un_mask(#NAME, dst, src, tw::mask_bits(mask, repeatTimes, 256 / sizeof(T), isSetMask), p.dstBlkStride, \
                    p.srcBlkStride, p.dstRepStride, p.srcRepStride,                                                \
                    [](T, T x) { return tw::apply1<T>(OP{}, x); }, TW_AT);                                         \
    }                                                                                                              \
    TW_TWIN((typename T), NAME, (T), (const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count), \
            (dst, src, count))                                                                                     \
    TW_TWIN((typename T, bool isSetMask = true), NAME, (T, isSetMask),                                             \
            (const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, const uint8_t repeatTimes,       \
             const UnaryRepeatParams& p),                                                                          \
            (dst, src, mask, repeatTimes, p))                                                                      \
    TW_TWIN_MASK(, void, (typename T, bool isSetMask = true), NAME, (T, isSetMask),                                \
                 (const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask[],                           \
                  const uint8_t repeatTimes, const UnaryRepeatParams& p),                                          \
                 (dst, src, static_cast<const uint64_t*>(mask), repeatTimes, p), )

TW_UNARY(Exp, tw::op::Exp)
TW_UNARY(Ln, tw::op::Ln)
TW_UNARY(Sqrt, tw::op::Sqrt)
TW_UNARY(Rsqrt, tw::op::Rsqrt)
TW_UNARY(Reciprocal, tw::op::Reciprocal)
TW_UNARY(Abs, tw::op::Abs)
TW_UNARY(Relu, tw::op::Relu)
TW_UNARY(Not, tw::op::Not)

#undef TW_UNARY

// ---------------------------------------------------------------------------------------------------------------
// Duplicate: fill with a scalar

template <typename T>
void Duplicate(const LocalTensor<T>& dst, const tw::nd_t<T>& scalarValue, const int32_t& count_arg, TW_SRC) {
    const int64_t count = tw::counted(count_arg);
    tw::check_count(count, "Duplicate", TW_AT);
    T* d = dst.span(0, count, "Duplicate", TW_AT);
    const T s = scalarValue;
    for (int64_t i = 0; i < count; ++i) d[i] = s;
    tw::vrec_count<T>("Duplicate", TW_AT, count);
}
TW_TWIN_M(, void, (typename T), Duplicate, (T), (const LocalTensor<T>& dst, const tw::nd_t<T>& scalarValue,
        const int32_t& count_arg), (dst, scalarValue, count_arg), )

namespace tw_vec {
template <typename T>
void duplicate_mask(const LocalTensor<T>& dst, T s, const tw::VMask& m, uint16_t blk, uint8_t rep, const char* file,
                    int line) {
    constexpr uint32_t E = 256 / sizeof(T);
    tw::Lay ld = tw::lay<T>(blk, rep);
    T* d = tw::vspan(dst, tw::extent(m, E, ld), "Duplicate", file, line);
    tw::each_repeat(m, E, [&](uint32_t r, const uint16_t* sl, uint32_t k) {
        for (uint32_t i = 0; i < k; ++i) d[ld.off(r, sl[i])] = s;
    });
    tw::vrec("Duplicate", file, line, m.elements(), m.elements() * sizeof(T), m.issued(E), sizeof(T), true);
}
}  // namespace tw_vec

template <typename T, bool isSetMask = true>
void Duplicate(const LocalTensor<T>& dst, const tw::nd_t<T>& scalarValue, uint64_t mask, const uint8_t repeatTimes,
               const uint16_t dstBlockStride, const uint8_t dstRepeatStride, TW_SRC) {
    tw_vec::duplicate_mask<T>(dst, scalarValue, tw::mask_cont(mask, repeatTimes, 256 / sizeof(T), isSetMask),
                              dstBlockStride, dstRepeatStride, TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isSetMask = true), Duplicate, (T, isSetMask), (const LocalTensor<T>& dst,
        const tw::nd_t<T>& scalarValue, uint64_t mask, const uint8_t repeatTimes, const uint16_t dstBlockStride,
        const uint8_t dstRepeatStride), (dst, scalarValue, mask, repeatTimes, dstBlockStride, dstRepeatStride), )
template <typename T, bool isSetMask = true>
void Duplicate(const LocalTensor<T>& dst, const tw::nd_t<T>& scalarValue, const uint64_t mask[],
               const uint8_t repeatTimes, const uint16_t dstBlockStride, const uint8_t dstRepeatStride, TW_SRC) {
    tw_vec::duplicate_mask<T>(dst, scalarValue, tw::mask_bits(mask, repeatTimes, 256 / sizeof(T), isSetMask),
                              dstBlockStride, dstRepeatStride, TW_AT);
}
TW_TWIN_MASK(, void, (typename T, bool isSetMask = true), Duplicate, (T, isSetMask), (const LocalTensor<T>& dst,
        const tw::nd_t<T>& scalarValue, uint64_t mask[], const uint8_t repeatTimes, const uint16_t dstBlockStride,
        const uint8_t dstRepeatStride), (dst, scalarValue, static_cast<const uint64_t*>(mask), repeatTimes,
        dstBlockStride, dstRepeatStride), )

// ---------------------------------------------------------------------------------------------------------------
// Axpy: dst = src * scalar + dst. dst may be float with a half src (the mixed-precision form). Computed in double
// and rounded once to dst's type (a fused multiply-add; exact for half operands).

namespace tw_vec {
template <typename T, typename U>
struct AxpyFn {
    U s;
    T operator()(T d, U x) const {
        double r = tw::to_double_exact(x) * tw::to_double_exact(s) + tw::to_double_exact(d);
        if constexpr (tw::is_low_fp_v<T>) return tw::from_c<T>(tw::d2f_odd(r));
        else return static_cast<T>(r);
    }
};
}  // namespace tw_vec

template <typename T, typename U>
void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const tw::nd_t<U>& scalarValue, const int32_t& count,
          TW_SRC) {
    tw::un_count("Axpy", dst, src, count, tw_vec::AxpyFn<T, U>{scalarValue}, TW_AT, true);
}
TW_TWIN_M(, void, (typename T, typename U), Axpy, (T, U), (const LocalTensor<T>& dst, const LocalTensor<U>& src,
        const tw::nd_t<U>& scalarValue, const int32_t& count), (dst, src, scalarValue, count), )
template <typename T, typename U, bool isSetMask = true>
void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const tw::nd_t<U>& scalarValue, uint64_t mask,
          const uint8_t repeatTimes, const UnaryRepeatParams& p, TW_SRC) {
    constexpr uint32_t E = 256 / (sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U));
    tw::un_mask("Axpy", dst, src, tw::mask_cont(mask, repeatTimes, E, isSetMask), p.dstBlkStride, p.srcBlkStride,
                p.dstRepStride, p.srcRepStride, tw_vec::AxpyFn<T, U>{scalarValue}, TW_AT, true);
}
TW_TWIN_M(, void, (typename T, typename U, bool isSetMask = true), Axpy, (T, U, isSetMask),
        (const LocalTensor<T>& dst, const LocalTensor<U>& src, const tw::nd_t<U>& scalarValue, uint64_t mask,
        const uint8_t repeatTimes, const UnaryRepeatParams& p), (dst, src, scalarValue, mask, repeatTimes, p), )
template <typename T, typename U, bool isSetMask = true>
void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const tw::nd_t<U>& scalarValue,
          const uint64_t mask[], const uint8_t repeatTimes, const UnaryRepeatParams& p, TW_SRC) {
    constexpr uint32_t E = 256 / (sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U));
    tw::un_mask("Axpy", dst, src, tw::mask_bits(mask, repeatTimes, E, isSetMask), p.dstBlkStride, p.srcBlkStride,
                p.dstRepStride, p.srcRepStride, tw_vec::AxpyFn<T, U>{scalarValue}, TW_AT, true);
}
TW_TWIN_MASK(, void, (typename T, typename U, bool isSetMask = true), Axpy, (T, U, isSetMask),
        (const LocalTensor<T>& dst, const LocalTensor<U>& src, const tw::nd_t<U>& scalarValue, uint64_t mask[],
        const uint8_t repeatTimes, const UnaryRepeatParams& p), (dst, src, scalarValue,
        static_cast<const uint64_t*>(mask), repeatTimes, p), )

// ---------------------------------------------------------------------------------------------------------------
// Copy (UB -> UB through the vector unit), mask/repeat forms with CopyRepeatParams.
//
// Copy's counter mode is not the general one: the reference says the mask register then holds the element count of
// each repeat (not of the whole instruction) and repeatTime counts, so a repeat spans ceil(n * sizeof(T) / 32)
// blocks, possibly more than the 8 of a normal repeat, each dstStride / srcStride blocks from the last.

template <typename T, bool isSetMask = true>
void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, const uint8_t repeatTimes,
          const CopyRepeatParams& p, TW_SRC) {
    tw::VMask m = tw::mask_cont(mask, repeatTimes, 256 / sizeof(T), isSetMask);
    if (m.counter) tw::copy_counter(m, repeatTimes, TW_AT);
    tw::un_mask("Copy", dst, src, m, p.dstStride, p.srcStride, p.dstRepeatSize, p.srcRepeatSize,
                [](T, T x) { return x; }, TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isSetMask = true), Copy, (T, isSetMask), (const LocalTensor<T>& dst,
        const LocalTensor<T>& src, uint64_t mask, const uint8_t repeatTimes, const CopyRepeatParams& p), (dst, src,
        mask, repeatTimes, p), )
template <typename T, bool isSetMask = true>
void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const uint8_t repeatTimes,
          const CopyRepeatParams& p, TW_SRC) {
    tw::VMask m = tw::mask_bits(mask, repeatTimes, 256 / sizeof(T), isSetMask);
    if (m.counter) tw::copy_counter(m, repeatTimes, TW_AT);
    tw::un_mask("Copy", dst, src, m, p.dstStride, p.srcStride, p.dstRepeatSize, p.srcRepeatSize,
                [](T, T x) { return x; }, TW_AT);
}
TW_TWIN_MASK(, void, (typename T, bool isSetMask = true), Copy, (T, isSetMask), (const LocalTensor<T>& dst,
        const LocalTensor<T>& src, uint64_t mask[], const uint8_t repeatTimes, const CopyRepeatParams& p), (dst, src,
        static_cast<const uint64_t*>(mask), repeatTimes, p), )

}  // namespace AscendC
