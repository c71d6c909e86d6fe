// tilewise host emulation of the mki framework: MKI_CHECK(condition, message, handler...). When the condition is
// false the message is logged as an error and the handler runs (`return false`, `return Status::FailStatus(...)`,
// `break`); the handler may contain top-level commas. The if/else form keeps `break` and `continue` meaning the
// caller's loop, and the macro safe before an `else`.
#pragma once
#include "mki/utils/log/log.h"

#define MKI_CHECK(condition, message, ...)  \
    if (!(condition)) {                     \
        MKI_LOG(ERROR) << message;          \
        __VA_ARGS__;                        \
    } else                                  \
        (void)0

#define MKI_CHECK_NO_LOG(condition, ...) \
    if (!(condition)) {                  \
        __VA_ARGS__;                     \
    } else                               \
        (void)0
