// tilewise host emulation of the mki framework: MKI_CHECK(condition, message, handler...). When the condition is
// false the message is logged as an error and the handler runs (`return false`, `return Status::FailStatus(...)`,
// `break`); the handler may contain top-level commas. The if/else form keeps `break` and `continue` meaning the
// caller's loop, and the macro safe before an `else`.
#pragma once
#include "mki/utils/log/log.h"
#include "mki/utils/status/status.h"

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

// A tiling step's Status: a failure is logged (its message becomes the run's reason) and returned from the caller.
#define OP_TILING_CHECK_STATUS_RETURN(status)                                   \
    do {                                                                        \
        const ::Mki::Status tw_mki_status = (status);                           \
        if (!tw_mki_status.Ok()) {                                              \
            MKI_LOG(ERROR) << "tiling step failed: " << tw_mki_status.ToString(); \
            return tw_mki_status;                                               \
        }                                                                       \
    } while (0)
