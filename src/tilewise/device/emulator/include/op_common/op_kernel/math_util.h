// tilewise kernel emulation: op_kernel/math_util.h of CANN's opbase package, integer division and alignment for
// kernels. The sum in CeilDiv and CeilAlign is formed in a wider unsigned type (32-bit for 8/16-bit T, else
// 64-bit), so a + b - 1 does not wrap near the type's top; the result is cast back to T. b must not be 0.
#pragma once
#include <cstdint>
#include <type_traits>

#ifndef __aicore__
#define __aicore__
#endif

namespace Ops::Base {
namespace kernel_math_detail {
template <typename T>
using Wide = std::conditional_t<sizeof(T) <= sizeof(uint16_t), uint32_t, uint64_t>;
}  // namespace kernel_math_detail

template <typename T>
__aicore__ inline T CeilDiv(T a, T b) {
    using W = kernel_math_detail::Wide<T>;
    return static_cast<T>((static_cast<W>(a) + static_cast<W>(b) - 1) / static_cast<W>(b));
}
template <typename T>
__aicore__ inline T FloorDiv(T a, T b) {
    return a / b;
}
template <typename T>
__aicore__ inline T CeilAlign(T a, T b) {
    using W = kernel_math_detail::Wide<T>;
    return static_cast<T>((static_cast<W>(a) + static_cast<W>(b) - 1) / static_cast<W>(b) * static_cast<W>(b));
}
template <typename T>
__aicore__ inline T FloorAlign(T a, T b) {
    return a / b * b;
}

}  // namespace Ops::Base
