// Cast: precision conversion with a RoundMode, count and mask/repeat forms; SetDeqScale and the int32 -> half
// conversion that uses it.
//
// Every source value is first taken exactly (all supported types fit a double), then rounded once to the
// destination with the mode:
//   CAST_NONE  -> RINT (the reference: "CAST_RINT where the conversion loses precision, no rounding otherwise")
//   CAST_RINT  -> nearest, ties to even        CAST_ROUND -> nearest, ties away from zero
//   CAST_FLOOR / CAST_CEIL / CAST_TRUNC         CAST_ODD   -> round to odd (von Neumann)
// Integer results saturate to the destination's range; nan converts to 0. For conversions to integers CAST_ODD is
// treated as RINT. A float destination rounds int32 sources with the mode; 16-bit float destinations take a
// round-to-odd float first (exact for float sources), which makes the final rounding correct for every mode.
// A finite value beyond half's range saturates to +-65504 whatever the mode, and one beyond bfloat16_t's to
// +-3.3895314e38 (0x7F7F / 0xFF7F) ("precision conversion rules": overflow is
// handled in saturation mode by default); infinities and nan stay what they are (the boundary-value appendix's
// default INF/NAN column for inf / nan inputs). The appendix's own table shows float MAX -> +inf, which contradicts
// the conversion rules; the emulator follows the conversion rules, as the issue that asked for this fix does.
// int32 -> half ignores the round mode: it is src * DEQSCALE (a half SetDeqScale wrote), rounded to nearest even.
// In the mask/repeat form a repeat holds 256 bytes of the wider type; the narrower operand's blocks hold as many
// elements (so a repeat of half -> float reads 128 bytes of half: srcRepStride 4 is contiguous).
// The round modes each (source, destination) pair supports are the reference's Atlas A2/A3 table; another mode for
// a pair in that table is a sanitizer error (the device has no such instruction), a pair outside it a warning.
#pragma once
#include "tw/api/vector/core.h"

namespace tw {

template <typename D, typename S>
inline D cast_one(S v, Round mode) {
    if constexpr (std::is_same<D, S>::value && !std::is_floating_point<D>::value && !is_low_fp_v<D>) {
        return v;  // integer to the same integer type
    } else if constexpr (std::is_same<D, float>::value) {
        if constexpr (std::is_same<S, float>::value) {
            // float -> float: round to an integral value (the "Cast float to float with a round mode" form).
            if (std::isnan(v) || std::isinf(v)) return v;
            switch (mode) {
                case Round::Floor: return std::floor(v);
                case Round::Ceil: return std::ceil(v);
                case Round::Trunc: return std::trunc(v);
                case Round::Round: return std::round(v);
                default: return std::nearbyint(v);
            }
        } else {
            return d2f_mode(to_double_exact(v), mode);
        }
    } else if constexpr (std::is_same<D, half>::value) {
        const double x = to_double_exact(v);
        float f = std::is_same<S, float>::value ? static_cast<float>(x) : d2f_odd(x);
        uint16_t h = float_to_half_bits(f, mode);
        if ((h & 0x7FFFu) == 0x7C00u && std::isfinite(x)) h = static_cast<uint16_t>((h & 0x8000u) | 0x7BFFu);
        return half::from_bits(h);
    } else if constexpr (std::is_same<D, bfloat16_t>::value) {
        // Saturating as for half: a finite value that rounds beyond bfloat16's largest finite value (0x7F7F,
        // 3.3895314e38) gives that value with its sign.
        const double x = to_double_exact(v);
        float f = std::is_same<S, float>::value ? static_cast<float>(x) : d2f_odd(x);
        uint16_t b = float_to_bf16_bits(f, mode);
        if ((b & 0x7FFFu) == 0x7F80u && std::isfinite(x)) b = static_cast<uint16_t>((b & 0x8000u) | 0x7F7Fu);
        return bfloat16_t::from_bits(b);
    } else {
        static_assert(std::is_integral<D>::value, "Cast: unsupported destination type");
        double x = to_double_exact(v);
        if (std::isnan(x)) return D(0);
        switch (mode) {
            case Round::Floor: x = std::floor(x); break;
            case Round::Ceil: x = std::ceil(x); break;
            case Round::Trunc: x = std::trunc(x); break;
            case Round::Round: x = std::round(x); break;
            default: x = std::nearbyint(x); break;
        }
        const double lo = static_cast<double>(std::numeric_limits<D>::lowest());
        const double hi = static_cast<double>(std::numeric_limits<D>::max());
        if (x <= lo) return std::numeric_limits<D>::lowest();
        if (x >= hi) return std::numeric_limits<D>::max();
        return static_cast<D>(x);
    }
}

// int32 -> half through DEQSCALE: the reference's formula src / 2^17 * scale * 2^17 is src * scale, exact in a
// double (31 + 11 significant bits), then rounded once to half (nearest even, saturating like every Cast to half).
inline half deq_one(int32_t v, uint64_t reg) {
    const double scale = static_cast<double>(half_bits_to_float(static_cast<uint16_t>(reg & 0xFFFFu)));
    return cast_one<half, double>(static_cast<double>(v) * scale, Round::Rint);
}

// Bit i set: RoundMode i is supported. The Atlas A2 / A3 table of the Cast reference ("supported data type
// combinations"); 0 for a pair the table does not list.
constexpr unsigned kNone = 1u << 0, kRint = 1u << 1, kFloor = 1u << 2, kCeil = 1u << 3, kRound = 1u << 4,
                   kTrunc = 1u << 5, kOdd = 1u << 6;
constexpr unsigned kRounding = kRint | kFloor | kCeil | kRound | kTrunc;

template <typename D, typename S>
constexpr unsigned cast_modes() {
    if constexpr (std::is_same<D, half>::value) {
        if constexpr (std::is_same<S, int8_t>::value || std::is_same<S, uint8_t>::value) return kNone;
        else if constexpr (std::is_same<S, int16_t>::value) return kRounding | kNone;
        else if constexpr (std::is_same<S, int32_t>::value) return 0x7Fu;  // the mode is ignored (DEQSCALE)
        else if constexpr (std::is_same<S, float>::value) return kRounding | kOdd | kNone;
        else return 0;
    } else if constexpr (std::is_same<D, float>::value) {
        if constexpr (std::is_same<S, int16_t>::value || std::is_same<S, half>::value ||
                      std::is_same<S, bfloat16_t>::value) return kNone;
        else if constexpr (std::is_same<S, int32_t>::value) return kRounding | kNone;
        else if constexpr (std::is_same<S, float>::value || std::is_same<S, int64_t>::value) return kRounding;
        else return 0;
    } else if constexpr (std::is_same<D, int8_t>::value || std::is_same<D, uint8_t>::value) {
        return std::is_same<S, half>::value ? (kRounding | kNone) : 0;
    } else if constexpr (std::is_same<D, int16_t>::value) {
        if constexpr (std::is_same<S, half>::value || std::is_same<S, float>::value) return kRounding;
        else if constexpr (std::is_same<S, int32_t>::value) return kNone;
        else return 0;
    } else if constexpr (std::is_same<D, int32_t>::value) {
        if constexpr (std::is_same<S, half>::value || std::is_same<S, bfloat16_t>::value ||
                      std::is_same<S, float>::value) return kRounding;
        else if constexpr (std::is_same<S, int64_t>::value) return kNone;
        else return 0;
    } else if constexpr (std::is_same<D, bfloat16_t>::value) {
        return std::is_same<S, float>::value ? kRounding : 0;
    } else if constexpr (std::is_same<D, int64_t>::value) {
        if constexpr (std::is_same<S, float>::value) return kRounding;
        else if constexpr (std::is_same<S, int32_t>::value) return kNone;
        else return 0;
    } else {
        return 0;
    }
}

inline const char* round_name(AscendC::RoundMode m) {
    static const char* names[] = {"CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC",
                                  "CAST_ODD"};
    const unsigned i = static_cast<unsigned>(m);
    return i < 7 ? names[i] : "an unknown mode";
}

template <typename X>
inline const char* type_name() {
    if constexpr (std::is_same<X, half>::value) return "half";
    else if constexpr (std::is_same<X, bfloat16_t>::value) return "bfloat16_t";
    else if constexpr (std::is_same<X, float>::value) return "float";
    else if constexpr (std::is_same<X, int8_t>::value) return "int8_t";
    else if constexpr (std::is_same<X, uint8_t>::value) return "uint8_t";
    else if constexpr (std::is_same<X, int16_t>::value) return "int16_t";
    else if constexpr (std::is_same<X, uint16_t>::value) return "uint16_t";
    else if constexpr (std::is_same<X, int32_t>::value) return "int32_t";
    else if constexpr (std::is_same<X, uint32_t>::value) return "uint32_t";
    else if constexpr (std::is_same<X, int64_t>::value) return "int64_t";
    else return "this type";
}

// The round mode must be one the reference lists for the pair; int32 -> half needs a SetDeqScale first.
template <typename D, typename S>
inline void check_cast(AscendC::RoundMode m, const char* file, int line) {
    constexpr unsigned ok = cast_modes<D, S>();
    const std::string pair = std::string(type_name<S>()) + " -> " + type_name<D>();
    if (ok == 0) {
        warn("unsupported_cast", "Cast " + pair + " is not in the reference's Atlas A2/A3 table of supported "
             "conversions: the device may not have it", file, line);
    } else if (!((ok >> static_cast<unsigned>(m)) & 1u)) {
        std::string allowed;
        for (unsigned i = 0; i < 7; ++i)
            if ((ok >> i) & 1u) allowed += (allowed.empty() ? "" : ", ") + std::string(round_name(static_cast<AscendC::RoundMode>(i)));
        fail("unsupported_cast", "Cast " + pair + " with RoundMode::" + round_name(m) +
             ", which the device does not support for this pair: use one of " + allowed, file, line);
    }
    if constexpr (std::is_same<D, half>::value && std::is_same<S, int32_t>::value) {
        if (!cur().deq_set)
            warn("deq_scale_unset", "Cast int32_t -> half scales by the DEQSCALE register, which no SetDeqScale(half) "
                 "set in this block: call SetDeqScale(half scale) first (the register holds 0 here)", file, line);
    }
}

// The element conversion of Cast<D, S> with mode m (the DEQSCALE path for int32 -> half).
template <typename D, typename S>
struct CastFn {
    Round m;
    uint64_t deq;
    D operator()(D, S x) const {
        if constexpr (std::is_same<D, half>::value && std::is_same<S, int32_t>::value) return deq_one(x, deq);
        else return cast_one<D, S>(x, m);
    }
};

}  // namespace tw

namespace AscendC {

// DEQSCALE: bits 0-15 a half scale (Cast / AddDeqRelu / CastDequant int32 -> half); for CastDequant int16 -> 8-bit
// without vector dequantisation bits 0-31 a float scale, 37-45 a 9-bit offset, 46 the sign mode; with it, the UB
// address of a 128-byte table of 16 such words (SetDeqScale reference, table 1).
inline void SetDeqScale(half scale, TW_SRC) {
    tw::Core& c = tw::cur();
    c.deq_reg = scale.bits;
    c.deq_set = true;
    tw::record(tw::Rec::Instr, PIPE_S, "SetDeqScale", TW_AT);
}
TW_TWIN_N(, void, SetDeqScale, (half scale), (scale), )

inline uint64_t tw_deq_word(float scale, int16_t offset, bool signMode) {
    return uint64_t(tw::float_bits(scale)) | (uint64_t(static_cast<uint16_t>(offset) & 0x1FFu) << 37) |
           (uint64_t(signMode ? 1 : 0) << 46);
}

inline void SetDeqScale(float scale, int16_t offset, bool signMode, TW_SRC) {
    tw::Core& c = tw::cur();
    c.deq_reg = tw_deq_word(scale, offset, signMode);
    c.deq_set = true;
    tw::record(tw::Rec::Instr, PIPE_S, "SetDeqScale", TW_AT);
}
TW_TWIN_N(, void, SetDeqScale, (float scale, int16_t offset, bool signMode), (scale, offset, signMode), )

struct VdeqInfo {
    static constexpr int32_t VDEQ_TENSOR_SIZE = 16;
    float vdeqScale[16] = {0};
    int16_t vdeqOffset[16] = {0};
    bool vdeqSignMode[16] = {false};
    VdeqInfo() = default;
    VdeqInfo(const float scale[16], const int16_t offset[16], const bool sign[16]) {
        for (int i = 0; i < 16; ++i) { vdeqScale[i] = scale[i]; vdeqOffset[i] = offset[i]; vdeqSignMode[i] = sign[i]; }
    }
};

// Writes the 16 words into `vdeq` (128 bytes of UB) and points DEQSCALE at them.
template <typename T>
void SetDeqScale(const LocalTensor<T>& vdeq, const VdeqInfo& info, TW_SRC) {
    static_assert(sizeof(T) == 8, "SetDeqScale(vdeq, info): vdeq is a uint64_t tensor");
    T* w = vdeq.span(0, 16, "SetDeqScale", TW_AT);
    tw::Core& c = tw::cur();
    const uint64_t addr = static_cast<uint64_t>(reinterpret_cast<const uint8_t*>(w) - c.ub.data());
    if (addr % 32 != 0)
        tw::fail("misaligned", "SetDeqScale(vdeq, info) with a vdeq tensor at UB byte offset " + std::to_string(addr) +
                 ", which is not 32-byte aligned", TW_AT);
    for (int i = 0; i < 16; ++i) {
        uint64_t word = tw_deq_word(info.vdeqScale[i], info.vdeqOffset[i], info.vdeqSignMode[i]);
        std::memcpy(static_cast<void*>(w + i), &word, 8);
    }
    c.deq_reg = addr;
    c.deq_set = true;
    tw::record(tw::Rec::Instr, PIPE_S, "SetDeqScale", TW_AT);
}
TW_TWIN_M(, void, (typename T), SetDeqScale, (T), (const LocalTensor<T>& vdeq, const VdeqInfo& info), (vdeq, info), )

template <typename T, typename U>
void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode, const uint32_t count,
          TW_SRC) {
    tw::check_cast<T, U>(round_mode, TW_AT);
    const tw::CastFn<T, U> f{tw::round_of(round_mode), tw::cur().deq_reg};
    tw::un_count("Cast", dst, src, count, f, TW_AT);
}
TW_TWIN_M(, void, (typename T, typename U), Cast, (T, U), (const LocalTensor<T>& dst, const LocalTensor<U>& src,
        const RoundMode& round_mode, const uint32_t count), (dst, src, round_mode, count), )

template <typename T, typename U, bool isSetMask = true>
void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode, uint64_t mask,
          const uint8_t repeatTimes, const UnaryRepeatParams& p, TW_SRC) {
    constexpr uint32_t E = 256 / (sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U));
    tw::check_cast<T, U>(round_mode, TW_AT);
    const tw::CastFn<T, U> f{tw::round_of(round_mode), tw::cur().deq_reg};
    tw::un_mask("Cast", dst, src, tw::mask_cont(mask, repeatTimes, E, isSetMask), p.dstBlkStride, p.srcBlkStride,
                p.dstRepStride, p.srcRepStride, f, TW_AT);
}
TW_TWIN_M(, void, (typename T, typename U, bool isSetMask = true), Cast, (T, U, isSetMask),
        (const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode, uint64_t mask,
        const uint8_t repeatTimes, const UnaryRepeatParams& p), (dst, src, round_mode, mask, repeatTimes, p), )

template <typename T, typename U, bool isSetMask = true>
void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode, const uint64_t mask[],
          const uint8_t repeatTimes, const UnaryRepeatParams& p, TW_SRC) {
    constexpr uint32_t E = 256 / (sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U));
    tw::check_cast<T, U>(round_mode, TW_AT);
    const tw::CastFn<T, U> f{tw::round_of(round_mode), tw::cur().deq_reg};
    tw::un_mask("Cast", dst, src, tw::mask_bits(mask, repeatTimes, E, isSetMask), p.dstBlkStride, p.srcBlkStride,
                p.dstRepStride, p.srcRepStride, f, TW_AT);
}
TW_TWIN_MASK(, void, (typename T, typename U, bool isSetMask = true), Cast, (T, U, isSetMask),
        (const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode, uint64_t mask[],
        const uint8_t repeatTimes, const UnaryRepeatParams& p), (dst, src, round_mode,
        static_cast<const uint64_t*>(mask), repeatTimes, p), )

}  // namespace AscendC
