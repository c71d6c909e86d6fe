// tilewise host emulation: IMPL_OP(op).InferShape(f).Tiling(f).TilingParse<CompileInfo>(f)..., the registration
// style of CANN's own operators (ops-math, ops-nn), used instead of or beside OpDef's SetTiling/SetInferShape.
#pragma once
#include <initializer_list>
#include <memory>
#include <string>
// The standard headers CANN's counterpart of this header brings in through its own includes (operators use
// them without including them).
#include <cstdlib>
#include <unordered_set>

#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "exe_graph/runtime/tiling_parse_context.h"
#include "graph/types.h"
#include "tw_host/registry.h"

namespace gert {

// Each call writes straight into the registry entry of the op type, so the chain's final copy is irrelevant.
class OpImplRegisterV2 {
public:
    explicit OpImplRegisterV2(const char* op_type) : op_type_(op_type) {}

    OpImplRegisterV2& Tiling(ops::TilingFunc f, size_t /*max_tiling_data_size*/ = 2048) {
        Record().tiling = f;
        return *this;
    }
    OpImplRegisterV2& InferShape(ops::InferShapeFunc f) {
        Record().infer_shape = f;
        return *this;
    }
    OpImplRegisterV2& InferDataType(ops::InferDataTypeFunc f) {
        Record().infer_dtype = f;
        return *this;
    }
    template <typename CompileInfo>
    OpImplRegisterV2& TilingParse(ops::TilingParseFunc f) {
        Record().tiling_parse = f;
        Record().make_compile_info = [] {
            return std::shared_ptr<void>(new CompileInfo(), [](void* p) { delete static_cast<CompileInfo*>(p); });
        };
        return *this;
    }
    // Accepted and ignored: graph-engine details that do not change what tiling sees.
    template <typename F>
    OpImplRegisterV2& InferShapeRange(F) { return *this; }
    OpImplRegisterV2& InputsDataDependency(std::initializer_list<int32_t>) { return *this; }
    OpImplRegisterV2& TilingInputsDataDependency(std::initializer_list<int32_t>) { return *this; }
    template <typename... A>
    OpImplRegisterV2& TilingInputsDataDependency(std::initializer_list<int32_t>, A...) { return *this; }
    OpImplRegisterV2& OutputShapeDependOnCompute(std::initializer_list<int32_t>) { return *this; }
    OpImplRegisterV2& InferOutDataTypeSameWithFirstInput() { return *this; }
    template <typename... A>
    OpImplRegisterV2& PrivateAttr(const char*, A...) { return *this; }

private:
    tw_host::OpImplRecord& Record() { return tw_host::opimpl_registry()[op_type_]; }
    std::string op_type_;
};

}  // namespace gert

#define TW_OPIMPL_CAT2(a, b) a##b
#define TW_OPIMPL_CAT(a, b) TW_OPIMPL_CAT2(a, b)
#define IMPL_OP(op_type)                                                                       \
    [[maybe_unused]] static ::gert::OpImplRegisterV2 TW_OPIMPL_CAT(tw_op_impl_##op_type##_, __COUNTER__) = \
        ::gert::OpImplRegisterV2(#op_type)
#define IMPL_OP_OPTILING(op_type) IMPL_OP(op_type)
#define IMPL_OP_INFERSHAPE(op_type) IMPL_OP(op_type)
#define IMPL_OP_CT(op_type) IMPL_OP(op_type)
