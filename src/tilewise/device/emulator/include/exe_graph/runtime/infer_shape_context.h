// tilewise host emulation: gert::InferShapeContext. Shapes here are plain gert::Shape (the origin shape), unlike
// the TilingContext's StorageShape.
#pragma once
#include <cstddef>

#include "exe_graph/runtime/extended_kernel_context.h"

namespace gert {

class InferShapeContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;

    const Shape* GetInputShape(size_t i) const { return Shp(node_->input(i)); }
    const Shape* GetOptionalInputShape(size_t ir) const { return Shp(node_->ir_input(ir)); }
    const Shape* GetRequiredInputShape(size_t ir) const { return Shp(node_->ir_input(ir)); }
    const Shape* GetDynamicInputShape(size_t ir, size_t k) const { return Shp(node_->ir_input(ir, k)); }
    const Tensor* GetInputTensor(size_t i) const { return Tens(node_->input(i)); }
    const Tensor* GetOptionalInputTensor(size_t ir) const { return Tens(node_->ir_input(ir)); }
    const Tensor* GetRequiredInputTensor(size_t ir) const { return Tens(node_->ir_input(ir)); }

    Shape* GetOutputShape(size_t i) const {
        tw_host::TensorSlot* s = node_->output(i);
        return s ? &s->tensor.MutableOriginShape() : nullptr;
    }

private:
    static const Shape* Shp(const tw_host::TensorSlot* s) { return s ? &s->tensor.GetOriginShape() : nullptr; }
};

}  // namespace gert
