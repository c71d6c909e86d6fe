// Integer helpers of the AscendC namespace: CeilDivision (标量计算/CeilDivision.md: num1 / num2 rounded up, 0 for a
// divisor of 0), and DivCeil and AlignUp, which the reference's own examples call (ReduceMax's and ReduceSum's
// `DivCeil(count, elementsPerBlock)`, SoftmaxFlashV2's `AlignUp(width * sizeof(T), 32)`): the quotient rounded up,
// and the value rounded up to a multiple of the alignment (0 for an alignment of 0).
//
// Kernels often define an AlignUp or DivCeil of their own, beside `using namespace AscendC;`. So that such a
// kernel keeps calling its own (whatever it means by it), these take their arguments through a user-defined
// conversion: any function of the kernel's that the arguments fit is a better match, and the two never tie.
#pragma once
#include <cstdint>
#include <type_traits>

namespace AscendC {

namespace tw_int {
// Any integer type, taken as a signed 64-bit value.
struct IntArg {
    int64_t value;
    template <typename I, typename = std::enable_if_t<std::is_integral<I>::value>>
    constexpr IntArg(I v) : value(static_cast<int64_t>(v)) {}  // NOLINT: implicit, see the header comment
};
}  // namespace tw_int

constexpr inline int32_t CeilDivision(int32_t num1, int32_t num2) {
    return num2 == 0 ? 0 : (num1 + num2 - 1) / num2;
}
constexpr inline int64_t DivCeil(tw_int::IntArg a, tw_int::IntArg b) {
    return b.value == 0 ? 0 : (a.value + b.value - 1) / b.value;
}
constexpr inline int64_t AlignUp(tw_int::IntArg a, tw_int::IntArg b) {
    return b.value == 0 ? 0 : (a.value + b.value - 1) / b.value * b.value;
}

}  // namespace AscendC
