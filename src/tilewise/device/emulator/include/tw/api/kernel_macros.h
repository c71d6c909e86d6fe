// Macros the CANN build system defines for kernels: tiling access, tiling keys, task types, assertions.
#pragma once
#include <cstring>
#include <type_traits>

#include "tw/runtime/launch_state.h"

namespace tw {
// Copy the tiling bytes the host produced into the kernel's struct (the build's GET_TILING_DATA does the same).
template <typename T>
inline void load_tiling(T* dst, const uint8_t* tiling) {
    gm_check(tiling, sizeof(T), "GET_TILING_DATA", __FILE__, __LINE__);
    std::memcpy(static_cast<void*>(dst), tiling, sizeof(T));
}
}  // namespace tw

// The harness defines TW_TILING_STRUCT as the operator's registered tiling class.
#define GET_TILING_DATA(var, tiling) \
    TW_TILING_STRUCT var;            \
    ::tw::load_tiling(&var, reinterpret_cast<const uint8_t*>(tiling))
#define GET_TILING_DATA_WITH_STRUCT(type, var, tiling) \
    type var;                                          \
    ::tw::load_tiling(&var, reinterpret_cast<const uint8_t*>(tiling))
#define GET_TILING_DATA_PTR_WITH_STRUCT(type, var, tiling) \
    const type* var = reinterpret_cast<const type*>(tiling)
#define GET_TILING_DATA_MEMBER(type, member, var, tiling) \
    decltype(type::member) var;                          \
    std::memcpy(&var, reinterpret_cast<const uint8_t*>(tiling) + offsetof(type, member), sizeof(var))
#define TILING_KEY_IS(k) (::tw::tiling_key_is(static_cast<uint64_t>(k)))
#define TILING_KEY_LIST(k1, k2) (::tw::tiling_key_is(static_cast<uint64_t>(k1)) || ::tw::tiling_key_is(static_cast<uint64_t>(k2)))
// The device compiler's scalar builtins `min` and `max`, which kernels call unqualified. Two independent parameter
// types, so that `min(uint32_t, int)` works as on the device; where std::min / std::max are visible too they are the
// more specialised candidates for equal types and win, so host code that says `using namespace std;` is unaffected.
template <typename A, typename B>
inline std::common_type_t<A, B> min(A a, B b) {
    return b < a ? static_cast<std::common_type_t<A, B>>(b) : static_cast<std::common_type_t<A, B>>(a);
}
template <typename A, typename B>
inline std::common_type_t<A, B> max(A a, B b) {
    return a < b ? static_cast<std::common_type_t<A, B>>(b) : static_cast<std::common_type_t<A, B>>(a);
}

// Every block runs as a vector core (AIV); cube-side branches of mixed kernels are skipped.
#define ASCEND_IS_AIV (true)
#define ASCEND_IS_AIC (false)
#define KERNEL_TASK_TYPE_DEFAULT(x)
#define KERNEL_TASK_TYPE(key, type)
#define REGISTER_TILING_DEFAULT(type)
#define REGISTER_TILING_FOR_TILINGKEY(cond, type)
#ifndef ASSERT
#define ASSERT(...)
#endif
#define ascendc_assert(...)
// PRINTF and DumpTensor are functions (tw/api/debug_print.h); AscendC::PRINTF names AscendC::printf as on the device.
#define PRINTF printf
// The library's internal checks and log lines exist only in its CPU debug build; the device build drops them
// unevaluated, and so does the emulator (kernels copied from the library call them).
#ifndef ASCENDC_ASSERT
#define ASCENDC_ASSERT(cond, ...)
#endif
#ifndef KERNEL_LOG
#define KERNEL_LOG(level, ...)
#endif
// What the build's tiling code declares pointer-accessed tiling data with: read-only data in GM.
#ifndef __tiling_data_ptr__
#define __tiling_data_ptr__ const
#endif
#define trap() abort()
