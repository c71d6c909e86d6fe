// tilewise host emulation: the logging and checking macros of CANN operator code (OP_LOGE, OP_CHECK_IF, ...).
// Errors and warnings go to stderr; debug and info only when the environment variable TW_HOST_DEBUG is set.
// The check macros take statements as arguments (`return ge::GRAPH_FAILED`) and run them when the check fails.
#pragma once
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "graph/types.h"
#include "securec.h"
#include "tw_host/host_error.h"

namespace tw_host::log {

// The first argument of OP_LOG* is a context pointer, an op name string, or nullptr.
template <typename T>
inline const char* node_name(const T& who) {
    if constexpr (std::is_convertible_v<T, const char*>) {
        const char* s = who;
        return s == nullptr ? "?" : s;
    } else if constexpr (std::is_same_v<T, std::string>) {
        return who.c_str();
    } else if constexpr (std::is_pointer_v<T>) {
        return who == nullptr ? "?" : who->GetNodeName();
    } else {
        return "?";
    }
}
inline const char* node_name(std::nullptr_t) { return "?"; }

inline bool debug_enabled() {
    static const bool on = std::getenv("TW_HOST_DEBUG") != nullptr;
    return on;
}

inline void print(const char* level, const char* who, const char* fmt, ...) {
    if ((level[0] == 'D' || level[0] == 'I') && !debug_enabled()) {
        return;
    }
    std::fprintf(stderr, "[%s] %s: ", level, who);
    va_list ap;
    va_start(ap, fmt);
    if (level[0] == 'E') {  // kept for the run's error message (tw_host/host_error.h)
        va_list again;
        va_copy(again, ap);
        char text[1024];
        std::vsnprintf(text, sizeof text, fmt, again);
        va_end(again);
        note_host_error(who, text);
    }
    std::vfprintf(stderr, fmt, ap);
    va_end(ap);
    std::fputc('\n', stderr);
}

// A log call with no format: the one argument is the text.
inline void print(const char* level, const char* text) { print(level, text, "%s", ""); }

}  // namespace tw_host::log

#define TW_OP_LOG(level, who, fmt, ...) ::tw_host::log::print(level, ::tw_host::log::node_name(who), fmt, ##__VA_ARGS__)
// CANN's OP_LOG* take the format as part of their variadic arguments: `OP_LOGI("Begin InferShape")` (one argument)
// logs the text alone.
#define TW_OP_LOG_ANY(level, who, ...) ::tw_host::log::print(level, ::tw_host::log::node_name(who), ##__VA_ARGS__)
#define OP_LOGE(who, ...) TW_OP_LOG_ANY("E", who, ##__VA_ARGS__)
#define OP_LOGW(who, ...) TW_OP_LOG_ANY("W", who, ##__VA_ARGS__)
#define OP_LOGI(who, ...) TW_OP_LOG_ANY("I", who, ##__VA_ARGS__)
#define OP_LOGD(who, ...) TW_OP_LOG_ANY("D", who, ##__VA_ARGS__)
#define OP_LOGE_WITH_INVALID_ATTR(who, ...) OP_LOGE(who, "invalid attribute")
#define OPS_LOG_E(who, fmt, ...) OP_LOGE(who, fmt, ##__VA_ARGS__)
#define OPS_LOG_W(who, fmt, ...) OP_LOGW(who, fmt, ##__VA_ARGS__)
#define OPS_LOG_I(who, fmt, ...) OP_LOGI(who, fmt, ##__VA_ARGS__)
#define OPS_LOG_D(who, fmt, ...) OP_LOGD(who, fmt, ##__VA_ARGS__)
#define VECTOR_INNER_ERR_REPORT_TILIING(who, fmt, ...) OP_LOGE(who, fmt, ##__VA_ARGS__)
#define CUBE_INNER_ERR_REPORT(who, fmt, ...) OP_LOGE(who, fmt, ##__VA_ARGS__)

// `cond` is the failure condition: when it holds, log and run `action` (typically `return ge::GRAPH_FAILED`).
#define OP_CHECK_IF(cond, log_expr, action) \
    do {                                    \
        if (cond) {                         \
            log_expr;                       \
            action;                         \
        }                                   \
    } while (0)
#define OP_CHECK(cond, log_expr, action) OP_CHECK_IF(cond, log_expr, action)
#define OP_TILING_CHECK(cond, log_expr, action) OP_CHECK_IF(cond, log_expr, action)
#define OPS_CHECK(cond, log_expr, action) OP_CHECK_IF(cond, log_expr, action)

#define OP_CHECK_NULL_WITH_CONTEXT(ctx, ptr)                        \
    do {                                                            \
        if ((ptr) == nullptr) {                                     \
            OP_LOGE(ctx, "%s is nullptr", #ptr);                    \
            return ge::GRAPH_FAILED;                                \
        }                                                           \
    } while (0)
#define OPS_CHECK_NULL_WITH_CONTEXT(ctx, ptr) OP_CHECK_NULL_WITH_CONTEXT(ctx, ptr)
#define OP_CHECK_NULL_WITH_CONTEXT_RET(ctx, ptr, ret)               \
    do {                                                            \
        if ((ptr) == nullptr) {                                     \
            OP_LOGE(ctx, "%s is nullptr", #ptr);                    \
            return ret;                                             \
        }                                                           \
    } while (0)

// The error-report family of newer operator code: OP_LOGE_FOR_INVALID_<WHAT>[_WITH_REASON](op, args...). Each only
// logs at error level: the node, what was invalid, and its arguments (parameter names, values, expectations,
// reasons; strings or numbers) joined by "; ". The surrounding check decides what to return.
namespace tw_host::log {
template <typename... Args>
inline void invalid(const char* who, const char* what, const Args&... args) {
    std::string text = std::string("invalid ") + what;
    auto add = [&text](const auto& a) {
        using A = std::decay_t<decltype(a)>;
        text += "; ";
        if constexpr (std::is_convertible_v<A, const char*>) {
            const char* s = a;
            text += s == nullptr ? "(null)" : s;
        } else if constexpr (std::is_same_v<A, std::string>) {
            text += a;
        } else if constexpr (std::is_arithmetic_v<A> || std::is_enum_v<A>) {
            text += std::to_string(static_cast<long long>(a));
        } else {
            text += "?";
        }
    };
    (add(args), ...);
    print("E", who, "%s", text.c_str());
}
}  // namespace tw_host::log

#define TW_OP_LOG_INVALID(what, who, ...) \
    ::tw_host::log::invalid(::tw_host::log::node_name(who), what, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_VALUE(who, ...) TW_OP_LOG_INVALID("value", who, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_VALUE_WITH_REASON(who, ...) TW_OP_LOG_INVALID("value", who, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_VALUES_WITH_REASON(who, ...) TW_OP_LOG_INVALID("values", who, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_DTYPE(who, ...) TW_OP_LOG_INVALID("dtype", who, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_DTYPE_WITH_REASON(who, ...) TW_OP_LOG_INVALID("dtype", who, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_DTYPES_WITH_REASON(who, ...) TW_OP_LOG_INVALID("dtypes", who, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_FORMAT(who, ...) TW_OP_LOG_INVALID("format", who, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_FORMATS_WITH_REASON(who, ...) TW_OP_LOG_INVALID("formats", who, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPE_WITH_REASON(who, ...) TW_OP_LOG_INVALID("shape", who, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPES_WITH_REASON(who, ...) TW_OP_LOG_INVALID("shapes", who, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPEDIM(who, ...) TW_OP_LOG_INVALID("shape dim", who, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPEDIM_WITH_REASON(who, ...) TW_OP_LOG_INVALID("shape dim", who, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPEDIMS_WITH_REASON(who, ...) TW_OP_LOG_INVALID("shape dims", who, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPESIZE_WITH_REASON(who, ...) TW_OP_LOG_INVALID("shape size", who, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPESIZES_WITH_REASON(who, ...) TW_OP_LOG_INVALID("shape sizes", who, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_LISTSIZE(who, ...) TW_OP_LOG_INVALID("list size", who, ##__VA_ARGS__)
#define OP_LOGE_WITHOUT_REPORT(who, fmt, ...) OP_LOGE(who, fmt, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPE(who, ...) TW_OP_LOG_INVALID("shape", who, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_SHAPESIZE(who, ...) TW_OP_LOG_INVALID("shape size", who, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_STRIDE(who, ...) TW_OP_LOG_INVALID("stride", who, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_TENSORNUM(who, ...) TW_OP_LOG_INVALID("tensor number", who, ##__VA_ARGS__)
#define OP_LOGE_FOR_INVALID_TENSORNUMS_WITH_REASON(who, ...) TW_OP_LOG_INVALID("tensor numbers", who, ##__VA_ARGS__)
// The older spelling: (op, input name[, value, expected]).
#define OP_LOGE_WITH_INVALID_INPUT(who, ...) TW_OP_LOG_INVALID("input", who, ##__VA_ARGS__)
#define OP_LOGE_WITH_INVALID_INPUT_DTYPE(who, ...) TW_OP_LOG_INVALID("input dtype", who, ##__VA_ARGS__)

// Branch hints CANN's host headers define for operator code (`if (unlikely(x == nullptr))`).
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

#include "op_common/log/to_string.h"  // Ops::Base::ToString, declared by CANN's opbase log header
