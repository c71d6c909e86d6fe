// Vector instructions (count forms). The full set, with mask/repeat/stride forms, lives here too.
#pragma once
#include <cmath>

#include "tw/tensor.h"

namespace tw {
template <typename T>
inline uint32_t repeats_of(uint64_t n) { return static_cast<uint32_t>((n * sizeof(T) + 255) / 256); }
}  // namespace tw

namespace AscendC {

#define TW_BINARY(NAME, EXPR)                                                                                 \
    template <typename T>                                                                                     \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, const int32_t& count, \
              TW_SRC) {                                                                                       \
        T* d = dst.span(0, count, #NAME, TW_AT);                                                              \
        const T* x = a.span(0, count, #NAME, TW_AT);                                                          \
        const T* y = b.span(0, count, #NAME, TW_AT);                                                          \
        for (int32_t i = 0; i < count; ++i) {                                                                 \
            auto u = x[i];                                                                                    \
            auto v = y[i];                                                                                    \
            d[i] = static_cast<T>(EXPR);                                                                      \
        }                                                                                                     \
        tw::record(tw::Rec::Instr, PIPE_V, #NAME, TW_AT, uint64_t(count) * sizeof(T), count,                  \
                   tw::repeats_of<T>(count), 0, 0, sizeof(T));                                                \
    }

TW_BINARY(Add, static_cast<float>(u) + static_cast<float>(v))
TW_BINARY(Sub, static_cast<float>(u) - static_cast<float>(v))
TW_BINARY(Mul, static_cast<float>(u) * static_cast<float>(v))

#undef TW_BINARY

}  // namespace AscendC
