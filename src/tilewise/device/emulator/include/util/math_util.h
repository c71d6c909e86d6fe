// tilewise host emulation: Ops::Base arithmetic helpers of CANN's operator libraries (ceil/floor division and
// alignment). A zero divisor gives 0 instead of a crash.
#pragma once
#include <algorithm>
#include <cmath>  // as opbase's math_util.h, which operators rely on for std::ceil
#include <limits>
#include <type_traits>

namespace Ops::Base {

template <typename T, typename U>
inline std::common_type_t<T, U> CeilDiv(T x, U y) {
    using R = std::common_type_t<T, U>;
    return y == 0 ? R(0) : (static_cast<R>(x) + static_cast<R>(y) - 1) / static_cast<R>(y);
}
template <typename T, typename U>
inline std::common_type_t<T, U> FloorDiv(T x, U y) {
    using R = std::common_type_t<T, U>;
    return y == 0 ? R(0) : static_cast<R>(x) / static_cast<R>(y);
}
template <typename T, typename U>
inline std::common_type_t<T, U> CeilAlign(T x, U align) {
    return CeilDiv(x, align) * align;
}
template <typename T, typename U>
inline std::common_type_t<T, U> FloorAlign(T x, U align) {
    return FloorDiv(x, align) * align;
}

}  // namespace Ops::Base
