// tilewise host emulation: error/ops_error.h, the error-report macros of CANN's operator repositories, on top of
// the emulator's log macros (log/log.h): OPS_ERR_IF(cond, log, action) runs the log and the action when the
// condition holds, OPS_LOG_E_IF_NULL(context, ptr, action) when the pointer is null, and the inner-error reports
// log at error level (so a failed tiling's last error names them, as OP_LOGE does).
#pragma once
#include "log/ops_log.h"

#define OPS_ERR_IF(cond, log_expr, action) OP_CHECK_IF(cond, log_expr, action)
#define OPS_LOG_E_IF_NULL(context, ptr, action)                                                                    \
    do {                                                                                                           \
        if ((ptr) == nullptr) {                                                                                    \
            OP_LOGE(context, "%s is nullptr", #ptr);                                                               \
            action;                                                                                                \
        }                                                                                                          \
    } while (0)
#define OPS_REPORT_VECTOR_INNER_ERR(who, ...) OP_LOGE(who, ##__VA_ARGS__)
#define OPS_REPORT_CUBE_INNER_ERR(who, ...) OP_LOGE(who, ##__VA_ARGS__)
