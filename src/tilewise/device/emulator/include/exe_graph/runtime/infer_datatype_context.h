// tilewise host emulation: gert::InferDataTypeContext.
#pragma once
#include <cstddef>

#include "exe_graph/runtime/extended_kernel_context.h"

namespace gert {

class InferDataTypeContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;

    ge::DataType GetInputDataType(size_t i) const { return Dt(node_->input(i)); }
    ge::DataType GetOptionalInputDataType(size_t ir) const { return Dt(node_->ir_input(ir)); }
    ge::DataType GetRequiredInputDataType(size_t ir) const { return Dt(node_->ir_input(ir)); }
    ge::DataType GetDynamicInputDataType(size_t ir, size_t k) const { return Dt(node_->ir_input(ir, k)); }
    ge::DataType GetOutputDataType(size_t i) const { return Dt(node_->output(i)); }

    ge::graphStatus SetOutputDataType(size_t i, ge::DataType dt) {
        tw_host::TensorSlot* s = node_->output(i);
        if (s == nullptr) {
            return ge::GRAPH_FAILED;
        }
        s->set_dtype(dt);
        return ge::GRAPH_SUCCESS;
    }

private:
    static ge::DataType Dt(const tw_host::TensorSlot* s) { return s ? s->tensor.GetDataType() : ge::DT_UNDEFINED; }
};

}  // namespace gert
