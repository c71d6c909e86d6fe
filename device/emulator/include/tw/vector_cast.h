// Cast: precision conversion with a RoundMode, count and mask/repeat forms.
//
// Every source value is first taken exactly (all supported types fit a double), then rounded once to the
// destination with the mode:
//   CAST_NONE  -> RINT (the reference: "CAST_RINT where the conversion loses precision, no rounding otherwise")
//   CAST_RINT  -> nearest, ties to even        CAST_ROUND -> nearest, ties away from zero
//   CAST_FLOOR / CAST_CEIL / CAST_TRUNC         CAST_ODD   -> round to odd (von Neumann)
// Integer results saturate to the destination's range; nan converts to 0. For conversions to integers CAST_ODD is
// treated as RINT. A float destination rounds int32 sources with the mode; 16-bit float destinations take a
// round-to-odd float first (exact for float sources), which makes the final rounding correct for every mode.
// In the mask/repeat form a repeat holds 256 bytes of the wider type; the narrower operand's blocks hold as many
// elements (so a repeat of half -> float reads 128 bytes of half: srcRepStride 4 is contiguous).
#pragma once
#include "tw/vector_core.h"

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
        float f = std::is_same<S, float>::value ? static_cast<float>(to_double_exact(v)) : d2f_odd(to_double_exact(v));
        return half::from_bits(float_to_half_bits(f, mode));
    } else if constexpr (std::is_same<D, bfloat16_t>::value) {
        float f = std::is_same<S, float>::value ? static_cast<float>(to_double_exact(v)) : d2f_odd(to_double_exact(v));
        return bfloat16_t::from_bits(float_to_bf16_bits(f, mode));
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

}  // namespace tw

namespace AscendC {

template <typename T, typename U>
void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode, const uint32_t count,
          TW_SRC) {
    const tw::Round m = tw::round_of(round_mode);
    tw::un_count("Cast", dst, src, count, [m](T, U x) { return tw::cast_one<T, U>(x, m); }, TW_AT);
}

template <typename T, typename U, bool isSetMask = true>
void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode, uint64_t mask,
          const uint8_t repeatTimes, const UnaryRepeatParams& p, TW_SRC) {
    constexpr uint32_t E = 256 / (sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U));
    const tw::Round m = tw::round_of(round_mode);
    tw::un_mask("Cast", dst, src, tw::mask_cont(mask, repeatTimes, E, isSetMask), p.dstBlkStride, p.srcBlkStride,
                p.dstRepStride, p.srcRepStride, [m](T, U x) { return tw::cast_one<T, U>(x, m); }, TW_AT);
}

template <typename T, typename U, bool isSetMask = true>
void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode, const uint64_t mask[],
          const uint8_t repeatTimes, const UnaryRepeatParams& p, TW_SRC) {
    constexpr uint32_t E = 256 / (sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U));
    const tw::Round m = tw::round_of(round_mode);
    tw::un_mask("Cast", dst, src, tw::mask_bits(mask, repeatTimes, E, isSetMask), p.dstBlkStride, p.srcBlkStride,
                p.dstRepStride, p.srcRepStride, [m](T, U x) { return tw::cast_one<T, U>(x, m); }, TW_AT);
}

}  // namespace AscendC
