// tilewise host emulation: util/fp16.h of CANN's opbase package: Ops::Base::fp16_t, an IEEE binary16 value on the
// host (tiling code reads fp16 attributes and constant inputs through it). A uint16_t constructs from raw bits (the
// bits of a tensor's element); any other arithmetic value converts, rounding to nearest even, overflowing to
// infinity. Arithmetic and comparison are done in float and rounded back.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace Ops::Base {
namespace fp16_detail {

inline uint32_t FloatBits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof(u));
    return u;
}
inline float BitsFloat(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof(f));
    return f;
}

// binary32 -> binary16, round to nearest even (NaN stays a quiet NaN with its sign).
inline uint16_t FromFloat(float f) {
    const uint32_t u = FloatBits(f);
    const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
    const uint32_t exp = (u >> 23) & 0xFFu;
    uint32_t mant = u & 0x7FFFFFu;
    if (exp == 0xFFu) {
        return sign | (mant ? 0x7E00u : 0x7C00u);
    }
    const int e = static_cast<int>(exp) - 127 + 15;  // the binary16 biased exponent
    if (e >= 0x1F) {
        return sign | 0x7C00u;
    }
    if (e <= 0) {  // subnormal or zero in binary16
        if (e < -10) {
            return sign;
        }
        mant |= 0x800000u;  // the implicit leading one
        const int shift = 14 - e;  // 24 significant bits down to the 10-bit subnormal field
        uint32_t half = mant >> shift;
        const uint32_t rest = mant & ((1u << shift) - 1u);
        const uint32_t mid = 1u << (shift - 1);
        if (rest > mid || (rest == mid && (half & 1u))) {
            ++half;
        }
        return static_cast<uint16_t>(sign | half);
    }
    uint32_t half = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
    const uint32_t rest = mant & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) {
        ++half;  // may carry into the exponent, up to infinity: still the correctly rounded value
    }
    return static_cast<uint16_t>(sign | half);
}

inline float ToFloat(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1Fu;
    const uint32_t mant = h & 0x3FFu;
    if (exp == 0x1Fu) {
        return BitsFloat(sign | 0x7F800000u | (mant << 13));
    }
    if (exp == 0) {  // zero or subnormal: mant * 2^-24
        const float v = std::ldexp(static_cast<float>(mant), -24);
        return sign ? -v : v;
    }
    return BitsFloat(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

}  // namespace fp16_detail

struct tagFp16 {
    uint16_t val;

    tagFp16() : val(0) {}
    tagFp16(const uint16_t& bits) : val(bits) {}
    template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, uint16_t>>>
    tagFp16(const T& value) : val(fp16_detail::FromFloat(static_cast<float>(value))) {}

    float ToFloat() const { return fp16_detail::ToFloat(val); }
    operator float() const { return ToFloat(); }
    explicit operator double() const { return ToFloat(); }
    explicit operator int32_t() const { return static_cast<int32_t>(ToFloat()); }
    explicit operator int64_t() const { return static_cast<int64_t>(ToFloat()); }
    explicit operator uint32_t() const { return static_cast<uint32_t>(ToFloat()); }
    bool IsInf() const { return (val & 0x7FFFu) == 0x7C00u; }

    tagFp16 operator+(tagFp16 o) const { return tagFp16(ToFloat() + o.ToFloat()); }
    tagFp16 operator-(tagFp16 o) const { return tagFp16(ToFloat() - o.ToFloat()); }
    tagFp16 operator*(tagFp16 o) const { return tagFp16(ToFloat() * o.ToFloat()); }
    tagFp16 operator/(tagFp16 o) const { return tagFp16(ToFloat() / o.ToFloat()); }
    tagFp16& operator+=(tagFp16 o) { return *this = *this + o; }
    tagFp16& operator-=(tagFp16 o) { return *this = *this - o; }
    tagFp16& operator*=(tagFp16 o) { return *this = *this * o; }
    tagFp16& operator/=(tagFp16 o) { return *this = *this / o; }
    bool operator==(const tagFp16& o) const { return ToFloat() == o.ToFloat(); }
    bool operator!=(const tagFp16& o) const { return !(*this == o); }
    bool operator<(const tagFp16& o) const { return ToFloat() < o.ToFloat(); }
    bool operator<=(const tagFp16& o) const { return ToFloat() <= o.ToFloat(); }
    bool operator>(const tagFp16& o) const { return ToFloat() > o.ToFloat(); }
    bool operator>=(const tagFp16& o) const { return ToFloat() >= o.ToFloat(); }
};
using fp16_t = tagFp16;
static_assert(sizeof(fp16_t) == 2, "fp16_t is read in place of a tensor's 16-bit elements");

}  // namespace Ops::Base
