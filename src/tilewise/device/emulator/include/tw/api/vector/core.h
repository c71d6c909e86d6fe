// Shared machinery of the vector instructions: number conversions with explicit rounding, the mask / repeat /
// stride iteration every "high-dimensional" form uses, bounds checks through LocalTensor::span and the one trace
// record each call appends.
//
// Repeat model (AscendC "tensor high-dimensional slicing"): one repeat covers 8 data blocks of 32 bytes. Element j
// of block k in repeat r of an operand lives at base + r * repStride * 32B + k * blkStride * 32B + j * sizeof(T).
// The mask selects slots (slot = k * (32 / sizeof(T)) + j) of the 256 / sizeof(T) slots of a repeat; unselected
// destination slots are not written. In counter mode (SetMaskCount) the mask register holds an element count that
// runs across repeats in slot order and repeatTimes is ignored.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "tw/api/tensor.h"

namespace tw {

template <typename T>
inline uint32_t repeats_of(uint64_t n) { return static_cast<uint32_t>((n * sizeof(T) + 255) / 256); }

// A parameter of this type does not take part in template argument deduction, so `Adds(x, x, 2.0f, n)` works for a
// half tensor (the scalar converts to the tensor's element type, as the real API's callers expect).
template <typename T>
struct nd_ident { using type = T; };
template <typename T>
using nd_t = typename nd_ident<T>::type;

template <typename T>
constexpr bool is_low_fp_v = std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value;
template <typename T>
constexpr bool is_fp_v = is_low_fp_v<T> || std::is_floating_point<T>::value;

// Arithmetic type per element type. half / bfloat16 compute in float and round once (float's 24 bits are at least
// 2p+2 for both, so the double rounding is innocuous and the result equals a correctly rounded 16-bit operation).
// Integers compute in 64 bits and wrap when stored back.
template <typename T>
using calc_t = std::conditional_t<
    is_low_fp_v<T>, float,
    std::conditional_t<std::is_floating_point<T>::value, T,
                       std::conditional_t<std::is_signed<T>::value, int64_t, uint64_t>>>;

template <typename T>
inline calc_t<T> to_c(T v) {
    if constexpr (is_low_fp_v<T>) return static_cast<float>(v);
    else return static_cast<calc_t<T>>(v);
}

template <typename T>
inline T from_c(calc_t<T> v) {
    if constexpr (std::is_same<T, half>::value) return half::from_bits(float_to_half_bits(v, Round::Rint));
    else if constexpr (std::is_same<T, bfloat16_t>::value) return bfloat16_t::from_bits(float_to_bf16_bits(v, Round::Rint));
    else return static_cast<T>(v);  // integers wrap modulo 2^n (GCC's documented conversion)
}

inline double to_double_exact(half v) { return static_cast<double>(static_cast<float>(v)); }
inline double to_double_exact(bfloat16_t v) { return static_cast<double>(static_cast<float>(v)); }
template <typename T>
inline double to_double_exact(T v) { return static_cast<double>(v); }

// double -> float rounding to odd: an inexact result gets the neighbour whose last significand bit is 1. Rounding
// to odd at 24 bits and then to 11 or 8 bits with any mode equals rounding the double directly with that mode.
inline float d2f_odd(double d) {
    float f = static_cast<float>(d);
    if (std::isnan(d) || std::isinf(f) || static_cast<double>(f) == d) return f;
    float lo, hi;
    if (static_cast<double>(f) < d) { lo = f; hi = std::nextafter(f, std::numeric_limits<float>::infinity()); }
    else { hi = f; lo = std::nextafter(f, -std::numeric_limits<float>::infinity()); }
    return (float_bits(lo) & 1u) ? lo : hi;
}

// double -> float with a rounding mode.
inline float d2f_mode(double d, Round mode) {
    float f = static_cast<float>(d);  // round to nearest even
    if (std::isnan(d) || static_cast<double>(f) == d) return f;
    if (std::isinf(f) && !std::isinf(d)) {
        bool neg = d < 0;
        float mx = std::numeric_limits<float>::max();
        switch (mode) {
            case Round::Rint: case Round::Round: return f;
            case Round::Floor: return neg ? f : mx;
            case Round::Ceil: return neg ? -mx : f;
            default: return neg ? -mx : mx;
        }
    }
    float lo, hi;
    if (static_cast<double>(f) < d) { lo = f; hi = std::nextafter(f, std::numeric_limits<float>::infinity()); }
    else { hi = f; lo = std::nextafter(f, -std::numeric_limits<float>::infinity()); }
    switch (mode) {
        case Round::Rint: return f;
        case Round::Floor: return lo;
        case Round::Ceil: return hi;
        case Round::Trunc: return d > 0 ? lo : hi;
        case Round::Odd: return (float_bits(lo) & 1u) ? lo : hi;
        case Round::Round: {
            double dl = d - static_cast<double>(lo), dh = static_cast<double>(hi) - d;
            if (dl == dh) return d > 0 ? hi : lo;  // tie: away from zero
            return dl < dh ? lo : hi;
        }
    }
    return f;
}

// Half-precision results of the pairwise reduction trees saturate at +-65504 instead of overflowing to infinity
// (documented for WholeReduceSum / BlockReduceSum / ReduceSum). Other types round normally.
template <typename T>
inline T round_sat(calc_t<T> v) {
    T r = from_c<T>(v);
    if constexpr (std::is_same<T, half>::value) {
        if (!std::isinf(v) && std::isinf(static_cast<float>(r))) return half(v < 0 ? -65504.0f : 65504.0f);
    }
    return r;
}

template <typename T>
inline T lowest_of() {
    if constexpr (is_fp_v<T>) return T(-std::numeric_limits<float>::infinity());
    else return std::numeric_limits<T>::lowest();
}
template <typename T>
inline T highest_of() {
    if constexpr (is_fp_v<T>) return T(std::numeric_limits<float>::infinity());
    else return std::numeric_limits<T>::max();
}

// Unsigned integer of the same width, for storing indices into a value's slot (ReduceMax / WholeReduceMax).
template <size_t N> struct uint_of_size;
template <> struct uint_of_size<1> { using type = uint8_t; };
template <> struct uint_of_size<2> { using type = uint16_t; };
template <> struct uint_of_size<4> { using type = uint32_t; };
template <> struct uint_of_size<8> { using type = uint64_t; };

template <typename T>
inline T index_as(uint64_t idx) {
    using U = typename uint_of_size<sizeof(T)>::type;
    U u = static_cast<U>(idx);
    T t;
    std::memcpy(static_cast<void*>(&t), &u, sizeof(T));
    return t;
}

// ---------------------------------------------------------------------------------------------------------------
// Masks and repeats

constexpr uint32_t kMaxSlots = 256;  // 8-bit operands have 256 slots per repeat; 16-bit 128; 32-bit 64

struct VMask {
    bool counter = false;    // counter mode: `n` elements in slot order across repeats
    uint64_t n = 0;
    uint32_t repeats = 0;    // normal mode: repeats, each computing the slots in `slots`
    uint32_t nslots = 0;
    uint16_t slots[kMaxSlots];

    // Number of repeats the instruction issues.
    uint32_t issued(uint32_t E) const {
        return counter ? static_cast<uint32_t>((n + E - 1) / E) : repeats;
    }
    // Elements computed.
    uint64_t elements() const { return counter ? n : uint64_t(repeats) * nslots; }
};

inline void mask_from_bits(VMask& m, const uint64_t bits[2], uint32_t E) {
    m.nslots = 0;
    uint32_t lim = std::min<uint32_t>(E, 128);
    for (uint32_t s = 0; s < lim; ++s)
        if ((bits[s >> 6] >> (s & 63)) & 1u) m.slots[m.nslots++] = static_cast<uint16_t>(s);
}

inline void mask_first(VMask& m, uint64_t count, uint32_t E) {
    m.nslots = static_cast<uint32_t>(std::min<uint64_t>(count, E));
    for (uint32_t s = 0; s < m.nslots; ++s) m.slots[s] = static_cast<uint16_t>(s);
}

// Continuous mask: the first `mask` slots of each repeat (values above the slot count select every slot).
// isSetMask == false: the mask comes from the core's mask register (SetVectorMask), read as bits.
// Counter mode: the mask register holds the element count (isSetMask writes `mask` there first).
inline VMask mask_cont(uint64_t mask, uint32_t repeat, uint32_t E, bool is_set) {
    Core& c = cur();
    VMask m;
    if (c.counter_mode) {
        if (is_set) { c.vector_mask[0] = mask; c.vector_mask[1] = 0; c.mask_is_count = true; }
        m.counter = true;
        m.n = c.vector_mask[0];
        return m;
    }
    m.repeats = repeat;
    if (is_set) {
        mask_first(m, mask, E);
        uint64_t k = std::min<uint64_t>(mask, 128);
        c.vector_mask[0] = k >= 64 ? ~0ull : ((1ull << k) - 1);
        c.vector_mask[1] = k >= 128 ? ~0ull : k > 64 ? ((1ull << (k - 64)) - 1) : 0;
        c.mask_is_count = false;
    } else {
        mask_from_bits(m, c.vector_mask, E);
    }
    return m;
}

// Bit mask: bit i of mask[0] then mask[1] selects slot i (32-bit operands use mask[0] only).
inline VMask mask_bits(const uint64_t* mask, uint32_t repeat, uint32_t E, bool is_set) {
    Core& c = cur();
    VMask m;
    if (c.counter_mode) {
        if (is_set) { c.vector_mask[0] = mask[0]; c.vector_mask[1] = 0; c.mask_is_count = true; }
        m.counter = true;
        m.n = c.vector_mask[0];
        return m;
    }
    m.repeats = repeat;
    if (is_set) {
        uint64_t b[2] = {mask[0], E > 64 ? mask[1] : 0};
        c.vector_mask[0] = b[0];
        c.vector_mask[1] = b[1];
        c.mask_is_count = false;
        mask_from_bits(m, b, E);
    } else {
        mask_from_bits(m, c.vector_mask, E);
    }
    return m;
}

// Where each slot of each repeat of one operand lies, in elements from the tensor's start.
// `EB` slots form a block; blocks are `blk_bytes` apart and repeats `rep_bytes` apart.
struct Lay {
    uint32_t EB = 8;
    uint64_t blk_bytes = 32;
    uint64_t rep_bytes = 256;
    uint32_t es = 4;
    uint64_t slot(uint32_t s) const { return (s / EB) * blk_bytes / es + s % EB; }
    uint64_t rep(uint32_t r) const { return uint64_t(r) * rep_bytes / es; }
    uint64_t off(uint32_t r, uint32_t s) const { return rep(r) + slot(s); }
};

// Operand of element type X in an instruction whose repeat is driven by elements of `wide` bytes (the larger type
// of a conversion). Block and repeat strides are in 32-byte units; for the narrower operand of a conversion a
// "block" holds the same 32 / wide elements, so its block stride counts blocks of that (smaller) size.
template <typename X>
inline Lay lay(uint64_t blk_stride, uint64_t rep_stride, uint32_t wide = sizeof(X)) {
    Lay l;
    l.EB = 32 / wide;
    l.es = sizeof(X);
    l.blk_bytes = blk_stride * l.EB * sizeof(X);
    l.rep_bytes = rep_stride * 32;
    return l;
}

// One past the furthest element the instruction touches in an operand laid out as `L` (0: touches nothing).
inline uint64_t extent(const VMask& m, uint32_t E, const Lay& L) {
    if (m.counter) {
        if (m.n == 0) return 0;
        uint64_t R = (m.n + E - 1) / E;
        uint32_t last = static_cast<uint32_t>((m.n - 1) % E);
        uint64_t mx = 0;
        for (uint32_t s = 0; s <= last; ++s) mx = std::max(mx, L.slot(s));
        mx += L.rep(static_cast<uint32_t>(R - 1));
        if (R >= 2) {
            uint64_t full = 0;
            for (uint32_t s = 0; s < E; ++s) full = std::max(full, L.slot(s));
            mx = std::max(mx, full + L.rep(static_cast<uint32_t>(R - 2)));
        }
        return mx + 1;
    }
    if (m.repeats == 0 || m.nslots == 0) return 0;
    uint64_t mx = 0;
    for (uint32_t i = 0; i < m.nslots; ++i) mx = std::max(mx, L.slot(m.slots[i]));
    return mx + L.rep(m.repeats - 1) + 1;
}

// Calls f(r, slots, nslots) once per repeat. In counter mode the slots are 0..k-1 of each chunk of E elements.
template <typename F>
inline void each_repeat(const VMask& m, uint32_t E, F&& f) {
    if (m.counter) {
        static const struct Ident {
            uint16_t v[kMaxSlots];
            Ident() { for (uint32_t i = 0; i < kMaxSlots; ++i) v[i] = static_cast<uint16_t>(i); }
        } ident;
        uint64_t left = m.n;
        for (uint32_t r = 0; left > 0; ++r) {
            uint32_t k = static_cast<uint32_t>(std::min<uint64_t>(left, E));
            f(r, ident.v, k);
            left -= k;
        }
        return;
    }
    for (uint32_t r = 0; r < m.repeats; ++r) f(r, m.slots, m.nslots);
}

// Bounds-checked base pointer of an operand: the instruction touches [0, ext) elements of it.
template <typename T>
inline T* vspan(const AscendC::LocalTensor<T>& t, uint64_t ext, const char* what, const char* file, int line) {
    if (ext == 0) return t.data();
    return t.span(0, ext, what, file, line);
}

// The element count of a count-form ("first n elements") call, which runs in counter mode whatever mode the core is
// in (the mask section of the reference, 掩码.md):
// - isSetMask = true (the default, and the only behaviour of the forms without the flag): the API sets counter mode
//   and the mask register to its own count, computes, then restores normal mode and the default mask (ResetMask,
//   SetMaskNorm). So `count` elements, and afterwards the core is in normal mode with every lane set.
// - isSetMask = false: the count argument does not take effect; the API computes the element count the mask register
//   holds, set by SetVectorMask<T, MaskMode::COUNTER>(n) (the reference's examples call `Adds<half, false>(dst, src,
//   num, 1)` after it and compute n), with or without SetMaskCount() before; mode and mask stay as they were. A
//   register that holds lanes (a normal-mode SetVectorMask) is no count: the call computes its `count` argument then.
inline int64_t counted(int64_t count, bool is_set = true) {
    Core& c = cur();
    if (!is_set) return c.counter_mode || c.mask_is_count ? static_cast<int64_t>(c.vector_mask[0]) : count;
    c.counter_mode = false;
    c.mask_is_count = false;
    c.vector_mask[0] = c.vector_mask[1] = ~0ull;
    return count;
}

inline void check_count(int64_t count, const char* what, const char* file, int line) {
    if (count < 0)
        fail("invalid_argument", std::string(what) + " called with a negative element count (" +
                                     std::to_string(count) + ")", file, line);
}

// The one trace record of a vector instruction. `mask_form`: a mask/repeat (or counter-mode) call. `banks`: the
// instruction's UB bank beats (tw/timing/ub_banks.h's bank_info), 0 when not worked out.
inline void vrec(const char* name, const char* file, int line, uint64_t elems, uint64_t bytes, uint32_t repeats,
                 uint8_t dsize, bool mask_form, int32_t banks = 0) {
    record(Rec::Instr, AscendC::PIPE_V, name, file, line, bytes, static_cast<uint32_t>(elems), repeats, banks, 0,
           dsize, mask_form ? 4 : 0);
}

template <typename T>
inline void vrec_count(const char* name, const char* file, int line, uint64_t count) {
    vrec(name, file, line, count, count * sizeof(T), repeats_of<T>(count), sizeof(T), false);
}

inline Round round_of(AscendC::RoundMode m) {
    switch (m) {
        case AscendC::RoundMode::CAST_FLOOR: return Round::Floor;
        case AscendC::RoundMode::CAST_CEIL: return Round::Ceil;
        case AscendC::RoundMode::CAST_ROUND: return Round::Round;
        case AscendC::RoundMode::CAST_TRUNC: return Round::Trunc;
        case AscendC::RoundMode::CAST_ODD: return Round::Odd;
        default: return Round::Rint;  // CAST_NONE: "RINT where the conversion loses precision"
    }
}

// The 128-bit compare-mask special register (CMPMASK): written by the register form of Compare and by
// SetCmpMask, read by the register forms of Select and by GetCmpMask. One per core thread.
inline uint8_t* cmp_mask_reg() {
    static thread_local uint8_t reg[16] = {0};
    return reg;
}

}  // namespace tw
