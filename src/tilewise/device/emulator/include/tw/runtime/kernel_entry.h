// Calling an operator's kernel entry from the runner: the generated shim (build.py) takes the address of the entry
// (one instantiation of it, for a templated entry) and hands it the launch's GM pointers in order. The entry's own
// parameter types decide the conversion, so `GM_ADDR`, typed pointers such as `__gm__ float*` and a tiling struct
// taken by value all bind.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "tw/runtime/launch_state.h"

namespace tw {

template <typename A>
inline A entry_arg(uint8_t* p) {
    using V = std::remove_cv_t<std::remove_reference_t<A>>;
    if constexpr (std::is_pointer<V>::value) {
        return reinterpret_cast<V>(p);
    } else {
        static_assert(std::is_trivially_copyable<V>::value && !std::is_reference<A>::value,
                      "kernel entry parameter: only pointers and trivially copyable structs passed by value bind");
        V v{};
        if (p != nullptr) std::memcpy(static_cast<void*>(&v), p, sizeof(V));  // a struct by value: its GM bytes
        return v;
    }
}

template <typename... A, size_t... I>
inline void invoke_entry(void (*f)(A...), uint8_t** gm, std::index_sequence<I...>) {
    f(entry_arg<A>(gm[I])...);
}

// `n` pointers are available: the inputs (nullptr for an absent optional one), outputs, workspace and tiling.
template <typename... A>
inline void invoke_entry(void (*f)(A...), uint8_t** gm, size_t n) {
    if (sizeof...(A) > n)
        fail("entry_mismatch",
             "the kernel entry takes " + std::to_string(sizeof...(A)) + " parameters but the OpDef gives only " +
                 std::to_string(n) + " (inputs, outputs, workspace, tiling)",
             "", 0);
    invoke_entry(f, gm, std::index_sequence_for<A...>{});
}

}  // namespace tw
