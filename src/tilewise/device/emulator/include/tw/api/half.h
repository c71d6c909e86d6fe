// IEEE binary16 (`half`) and bfloat16 (`bfloat16_t`) for the CPU emulation.
// Arithmetic happens in float: each type converts implicitly to float and is built from float with
// round-to-nearest-even, which is what the vector unit does for fp16 results. `Cast` needs the other rounding
// modes, so the conversion takes a mode.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace tw {

enum class Round { Rint, Round, Floor, Ceil, Trunc, Odd };

// constexpr (through the compiler's bit cast) so that `constexpr half MIN_VALUE = static_cast<half>(-65504.0f)`,
// which public kernels write, is a constant expression as with the device compiler's built-in half.
constexpr uint32_t float_bits(float f) { return __builtin_bit_cast(uint32_t, f); }
constexpr float bits_float(uint32_t u) { return __builtin_bit_cast(float, u); }

// Round a non-negative integer-valued mantissa `m` with `shift` bits to drop, by mode and sign.
constexpr uint32_t round_shift(uint32_t m, int shift, Round mode, bool negative) {
    if (shift <= 0) return m << (-shift);
    if (shift >= 32) return (mode == Round::Ceil && !negative && m) || (mode == Round::Floor && negative && m) ? 1 : 0;
    uint32_t kept = m >> shift;
    uint32_t rest = m & ((1u << shift) - 1);
    uint32_t half_point = 1u << (shift - 1);
    switch (mode) {
        case Round::Rint: if (rest > half_point || (rest == half_point && (kept & 1))) ++kept; break;
        case Round::Round: if (rest >= half_point) ++kept; break;
        case Round::Floor: if (negative && rest) ++kept; break;
        case Round::Ceil: if (!negative && rest) ++kept; break;
        case Round::Trunc: break;
        case Round::Odd: if (rest) kept |= 1; break;
    }
    return kept;
}

constexpr uint16_t float_to_half_bits(float f, Round mode = Round::Rint) {
    uint32_t x = float_bits(f);
    uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    bool negative = sign != 0;
    uint32_t exp = (x >> 23) & 0xFF;
    uint32_t man = x & 0x7FFFFF;
    if (exp == 0xFF) return static_cast<uint16_t>(sign | 0x7C00u | (man ? 0x200u : 0));  // inf / nan
    if (exp == 0 && man == 0) return sign;
    int e = static_cast<int>(exp) - 127;           // unbiased exponent
    uint32_t full = exp ? (man | 0x800000u) : man;  // 24-bit significand
    if (e > 15) {
        bool to_inf = mode == Round::Rint || mode == Round::Round || (mode == Round::Ceil && !negative) ||
                      (mode == Round::Floor && negative);
        return static_cast<uint16_t>(sign | (to_inf ? 0x7C00u : 0x7BFFu));
    }
    if (e >= -14) {  // normal half: keep 11 significant bits
        uint32_t r = round_shift(full, 13, mode, negative);
        uint32_t he = static_cast<uint32_t>(e + 15);
        if (r >= 0x800u) { r >>= 1; ++he; }
        if (he >= 31) {
            bool to_inf = mode == Round::Rint || mode == Round::Round || (mode == Round::Ceil && !negative) ||
                          (mode == Round::Floor && negative);
            return static_cast<uint16_t>(sign | (to_inf ? 0x7C00u : 0x7BFFu));
        }
        return static_cast<uint16_t>(sign | (he << 10) | (r & 0x3FFu));
    }
    // subnormal half: value = r * 2^-24
    int shift = 13 + (-14 - e);
    uint32_t r = round_shift(full, shift, mode, negative);
    return static_cast<uint16_t>(sign | r);  // r may carry into the smallest normal, which the encoding absorbs
}

constexpr float half_bits_to_float(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1F;
    uint32_t man = h & 0x3FF;
    if (exp == 0x1F) return bits_float(sign | 0x7F800000u | (man << 13));
    if (exp == 0) {
        if (man == 0) return bits_float(sign);
        float v = static_cast<float>(man) * 5.9604644775390625e-8f;  // man * 2^-24, exact
        return sign ? -v : v;
    }
    return bits_float(sign | ((exp + 112) << 23) | (man << 13));
}

constexpr uint16_t float_to_bf16_bits(float f, Round mode = Round::Rint) {
    uint32_t x = float_bits(f);
    if ((x & 0x7F800000u) == 0x7F800000u) return static_cast<uint16_t>((x >> 16) | ((x & 0xFFFF) ? 0x40 : 0));
    bool negative = (x >> 31) != 0;
    uint32_t mag = x & 0x7FFFFFFFu;
    uint32_t r = round_shift(mag, 16, mode, negative);
    return static_cast<uint16_t>(((negative ? 1u : 0u) << 15) | r);
}

constexpr float bf16_bits_to_float(uint16_t b) { return bits_float(static_cast<uint32_t>(b) << 16); }

}  // namespace tw

// Both 16-bit types are trivially default-constructible, like the device compiler's built-in ones, so that operators
// may put them in unions (bit-punning `union { bfloat16_t v; uint16_t bits; }`); `half()` and `half{}` are zero.
struct half {
    uint16_t bits;
    half() = default;
    constexpr half(float f) : bits(tw::float_to_half_bits(f)) {}          // NOLINT: implicit, as in AscendC
    constexpr half(double d) : half(static_cast<float>(d)) {}            // NOLINT
    constexpr half(int i) : half(static_cast<float>(i)) {}               // NOLINT
    constexpr half(unsigned int i) : half(static_cast<float>(i)) {}      // NOLINT
    constexpr half(long i) : half(static_cast<float>(i)) {}              // NOLINT
    constexpr half(unsigned long i) : half(static_cast<float>(i)) {}     // NOLINT
    constexpr half(long long i) : half(static_cast<float>(i)) {}         // NOLINT
    constexpr half(unsigned long long i) : half(static_cast<float>(i)) {}  // NOLINT
    constexpr operator float() const { return tw::half_bits_to_float(bits); }  // NOLINT
    static constexpr half from_bits(uint16_t b) { half h{}; h.bits = b; return h; }
    half& operator+=(float v) { *this = half(float(*this) + v); return *this; }
    half& operator-=(float v) { *this = half(float(*this) - v); return *this; }
    half& operator*=(float v) { *this = half(float(*this) * v); return *this; }
    half& operator/=(float v) { *this = half(float(*this) / v); return *this; }
};

struct bfloat16_t {
    uint16_t bits;
    bfloat16_t() = default;
    constexpr bfloat16_t(float f) : bits(tw::float_to_bf16_bits(f)) {}     // NOLINT
    constexpr bfloat16_t(double d) : bfloat16_t(static_cast<float>(d)) {}  // NOLINT
    constexpr bfloat16_t(int i) : bfloat16_t(static_cast<float>(i)) {}     // NOLINT
    // Every integer type, so that `static_cast<bfloat16_t>(uint64_value)` is not ambiguous (as for half).
    constexpr bfloat16_t(unsigned int i) : bfloat16_t(static_cast<float>(i)) {}        // NOLINT
    constexpr bfloat16_t(long i) : bfloat16_t(static_cast<float>(i)) {}                // NOLINT
    constexpr bfloat16_t(unsigned long i) : bfloat16_t(static_cast<float>(i)) {}       // NOLINT
    constexpr bfloat16_t(long long i) : bfloat16_t(static_cast<float>(i)) {}           // NOLINT
    constexpr bfloat16_t(unsigned long long i) : bfloat16_t(static_cast<float>(i)) {}  // NOLINT
    constexpr operator float() const { return tw::bf16_bits_to_float(bits); }  // NOLINT
    static constexpr bfloat16_t from_bits(uint16_t b) { bfloat16_t h{}; h.bits = b; return h; }
};

// The device compiler's other spellings of its floating-point types (bisheng predefines them; public kernels use
// `float32_t` as often as `float`).
using float16_t = half;
using float32_t = float;
