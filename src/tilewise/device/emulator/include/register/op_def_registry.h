// tilewise host emulation: the one header a classic op_host file includes. It brings in everything such a file
// uses without further includes (ge types, gert contexts, the OpDef builder, tiling macros, platform queries,
// the standard headers real toolkits leak), and defines OP_ADD.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/infer_shape_range_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "exe_graph/runtime/tiling_parse_context.h"
#include "graph/types.h"
#include "register/op_def.h"
#include "register/op_impl_registry.h"
#include "register/tilingdata_base.h"
#include "securec.h"
#include "tiling/platform/platform_ascendc.h"
#include "tw_host/registry.h"

namespace ops::detail {

struct OpDefRegistrar {
    OpDefRegistrar(const char* op_type, tw_host::OpDefFactory factory) {
        tw_host::opdef_registry()[op_type] = std::move(factory);
    }
};

}  // namespace ops::detail

#define TW_OPDEF_CAT2(a, b) a##b
#define TW_OPDEF_CAT(a, b) TW_OPDEF_CAT2(a, b)
// Registers class `op_type` (an ops::OpDef subclass, named at the point of use, normally inside namespace ops)
// under its own name. The user writes the trailing ';'.
#define OP_ADD(op_type, ...)                                                              \
    static const ::ops::detail::OpDefRegistrar TW_OPDEF_CAT(tw_op_add_##op_type##_, __LINE__)( \
        #op_type, []() -> std::unique_ptr<::ops::OpDef> { return std::unique_ptr<::ops::OpDef>(new op_type(#op_type)); })
