// tilewise host emulation of the mki framework: Utils::Compare<T>::IsEqual, used by the OpParam structs' operator==.
#pragma once
#include <cmath>
#include <limits>
#include <type_traits>

namespace Mki {
namespace Utils {

template <typename T>
struct Compare {
    static bool IsEqual(T a, T b) {
        if constexpr (std::is_floating_point_v<T>) {
            return std::fabs(a - b) <= std::numeric_limits<T>::epsilon();
        } else {
            return a == b;
        }
    }
};

}  // namespace Utils
}  // namespace Mki
