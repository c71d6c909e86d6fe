// tilewise host emulation of the mki framework: Utils::CeilDiv / RoundUp / RoundDown. A zero divisor gives 0
// rather than a crash, so a tiling's own check of the result decides what happens.
#pragma once
#include <type_traits>

namespace Mki {
namespace Utils {

template <typename T, typename U>
std::common_type_t<T, U> CeilDiv(T dividend, U divisor) {
    using C = std::common_type_t<T, U>;
    return divisor == 0 ? C(0) : (C(dividend) + C(divisor) - 1) / C(divisor);
}

template <typename T, typename U>
std::common_type_t<T, U> RoundUp(T value, U align) {
    using C = std::common_type_t<T, U>;
    return align == 0 ? C(0) : CeilDiv(value, align) * C(align);
}

template <typename T, typename U>
std::common_type_t<T, U> RoundDown(T value, U align) {
    using C = std::common_type_t<T, U>;
    return align == 0 ? C(0) : C(value) / C(align) * C(align);
}

}  // namespace Utils
}  // namespace Mki
