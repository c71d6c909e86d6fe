// tilewise host emulation: where OP_ADD and IMPL_OP_* put what they register. Header-only: the maps are
// function-local statics, ready whatever the order of static initialisation across op_host translation units.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "register/op_def.h"

namespace tw_host {

using OpDefFactory = std::function<std::unique_ptr<ops::OpDef>()>;

inline std::map<std::string, OpDefFactory>& opdef_registry() {
    static std::map<std::string, OpDefFactory> registry;
    return registry;
}

// What IMPL_OP / IMPL_OP_OPTILING / IMPL_OP_INFERSHAPE registered for one operator type.
struct OpImplRecord {
    ops::TilingFunc tiling = nullptr;
    ops::InferShapeFunc infer_shape = nullptr;
    ops::InferDataTypeFunc infer_dtype = nullptr;
    ops::TilingParseFunc tiling_parse = nullptr;
    std::function<std::shared_ptr<void>()> make_compile_info;  // set by TilingParse<CompileInfo>(fn)
};

inline std::map<std::string, OpImplRecord>& opimpl_registry() {
    static std::map<std::string, OpImplRecord> registry;
    return registry;
}

}  // namespace tw_host
