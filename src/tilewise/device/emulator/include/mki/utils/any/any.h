// tilewise host emulation of the mki framework: Mki::Any holds an operator's parameter struct (OpParam::Norm, ...);
// Type() is compared with typeid() in CanSupport and AnyCast<T> copies the struct out.
#pragma once
#include <any>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <utility>

namespace Mki {

class Any {
public:
    Any() = default;
    template <typename T, typename = std::enable_if_t<!std::is_same_v<std::decay_t<T>, Any>>>
    Any(T&& value) : value_(std::forward<T>(value)) {}  // NOLINT: implicit, as the framework's is
    const std::type_info& Type() const { return value_.type(); }
    bool HasValue() const { return value_.has_value(); }
    const std::any& Std() const { return value_; }

private:
    std::any value_;
};

template <typename T>
T AnyCast(const Any& any) {
    const T* p = std::any_cast<T>(&any.Std());
    if (p == nullptr) {
        throw std::runtime_error(std::string("AnyCast: the launch parameter is a ") + any.Type().name() +
                                 ", not the struct the tiling asks for");
    }
    return *p;
}

}  // namespace Mki
