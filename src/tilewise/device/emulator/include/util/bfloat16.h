// tilewise host emulation: util/bfloat16.h of CANN's opbase package: Ops::Base::bfloat16 on the host. Any
// arithmetic value converts through float, rounding to nearest even (a NaN becomes the quiet NaN 0x7fc0); raw bits
// construct with bfloat16(bits, bfloat16::from_bits()).
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace Ops::Base {

struct bfloat16 {
    struct from_bits_t {};
    static constexpr from_bits_t from_bits() { return from_bits_t(); }

    uint16_t value;

    bfloat16() : value(0) {}
    constexpr bfloat16(uint16_t bits, from_bits_t) : value(bits) {}
    bfloat16(float v) : value(Round(v)) {}
    template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, float>>>
    bfloat16(const T& v) : value(Round(static_cast<float>(v))) {}

    operator float() const {
        const uint32_t u = static_cast<uint32_t>(value) << 16;
        float f;
        std::memcpy(&f, &u, sizeof(f));
        return f;
    }
    explicit operator double() const { return static_cast<float>(*this); }
    explicit operator int32_t() const { return static_cast<int32_t>(static_cast<float>(*this)); }
    explicit operator int64_t() const { return static_cast<int64_t>(static_cast<float>(*this)); }

    static uint16_t Round(float v) {
        if (v != v) {
            return 0x7FC0u;
        }
        uint32_t u;
        std::memcpy(&u, &v, sizeof(u));
        u += 0x7FFFu + ((u >> 16) & 1u);  // round to nearest, ties to even
        return static_cast<uint16_t>(u >> 16);
    }
};
static_assert(sizeof(bfloat16) == 2, "bfloat16 is read in place of a tensor's 16-bit elements");

}  // namespace Ops::Base
