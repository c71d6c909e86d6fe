// AscendC::Std, the device's own small standard library (the reference's "C++ standard library" chapter): the
// device compiler ships no libstdc++, so AscendC offers tuple, get, make_tuple, tie, the usual type traits and
// min / max under this namespace. Their meaning is the C++ standard's, so on the CPU they are the standard ones,
// brought in by name; only what differs is written here:
//
//   Std::min(a, b) / Std::max(a, b)   two parameter types; the result has the first one's type (T min(T, U))
//   Std::is_tuple<T>, is_tuple_v<T>   T is a Std::tuple
//   Std::is_one_of<T, Ts...>, is_one_of_v   T is one of Ts
//
// Layout helpers of the arch35 tensor API (Std::Int and friends) are not offered.
#pragma once
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace AscendC {
namespace Std {

using std::forward;
using std::get;
using std::ignore;
using std::make_tuple;
using std::move;
using std::tie;
using std::tuple;
using std::tuple_element;
using std::tuple_element_t;
using std::tuple_size;
using std::tuple_size_v;

using std::bool_constant;
using std::false_type;
using std::integral_constant;
using std::true_type;

using std::add_const;
using std::add_const_t;
using std::add_cv;
using std::add_cv_t;
using std::add_lvalue_reference;
using std::add_lvalue_reference_t;
using std::add_pointer;
using std::add_pointer_t;
using std::add_rvalue_reference;
using std::add_rvalue_reference_t;
using std::add_volatile;
using std::add_volatile_t;
using std::conditional;
using std::conditional_t;
using std::decay;
using std::decay_t;
using std::enable_if;
using std::enable_if_t;
using std::is_arithmetic;
using std::is_arithmetic_v;
using std::is_array;
using std::is_array_v;
using std::is_base_of;
using std::is_base_of_v;
using std::is_const;
using std::is_const_v;
using std::is_convertible;
using std::is_convertible_v;
using std::is_floating_point;
using std::is_floating_point_v;
using std::is_integral;
using std::is_integral_v;
using std::is_pointer;
using std::is_pointer_v;
using std::is_reference;
using std::is_reference_v;
using std::is_same;
using std::is_same_v;
using std::is_signed;
using std::is_signed_v;
using std::is_unsigned;
using std::is_unsigned_v;
using std::is_void;
using std::is_void_v;
using std::is_volatile;
using std::is_volatile_v;
using std::remove_const;
using std::remove_const_t;
using std::remove_cv;
using std::remove_cv_t;
using std::remove_pointer;
using std::remove_pointer_t;
using std::remove_reference;
using std::remove_reference_t;
using std::remove_volatile;
using std::remove_volatile_t;

// The reference declares them as T f(const T, const U): mixed types compare after the usual arithmetic
// conversions (their common type), the result has the first's type.
// (half and bfloat16_t compare through their float value.)
template <typename T, typename U>
inline constexpr bool std_less(const T a, const U b) {
    if constexpr (std::is_arithmetic_v<T> && std::is_arithmetic_v<U>) {
        using C = std::common_type_t<T, U>;
        return static_cast<C>(a) < static_cast<C>(b);
    } else {
        return static_cast<float>(a) < static_cast<float>(b);
    }
}
template <typename T, typename U>
inline constexpr T min(const T a, const U b) {
    return std_less(b, a) ? static_cast<T>(b) : a;
}
template <typename T, typename U>
inline constexpr T max(const T a, const U b) {
    return std_less(a, b) ? static_cast<T>(b) : a;
}

template <typename T>
struct is_tuple : false_type {};
template <typename... Ts>
struct is_tuple<tuple<Ts...>> : true_type {};
template <typename T>
inline constexpr bool is_tuple_v = is_tuple<std::remove_cv_t<T>>::value;

template <typename T, typename... Ts>
struct is_one_of : bool_constant<(std::is_same_v<T, Ts> || ...)> {};
template <typename T, typename... Ts>
inline constexpr bool is_one_of_v = is_one_of<T, Ts...>::value;

}  // namespace Std
}  // namespace AscendC
