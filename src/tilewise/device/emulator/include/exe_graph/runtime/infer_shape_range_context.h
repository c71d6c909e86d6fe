// tilewise host emulation: gert::InferShapeRangeContext, what an OpDef's SetInferShapeRange function receives: the
// shape range of each input, and the output ranges to fill in. The emulator runs operators on concrete shapes, so
// the range of a tensor is [its shape, its shape] (both bounds point to its origin shape); the runner has no
// dynamic-shape compile step and never calls the function, but operator sources define one and must compile.
#pragma once
#include <cstddef>
#include <map>
#include <utility>

#include "exe_graph/runtime/extended_kernel_context.h"
#include "exe_graph/runtime/range.h"

namespace gert {

class InferShapeRangeContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;

    const Range<Shape>* GetInputShapeRange(size_t i) const { return Of(node_->input(i)); }
    const Range<Shape>* GetOptionalInputShapeRange(size_t ir) const { return Of(node_->ir_input(ir)); }
    const Range<Shape>* GetRequiredInputShapeRange(size_t ir) const { return Of(node_->ir_input(ir)); }
    const Range<Shape>* GetDynamicInputShapeRange(size_t ir, size_t k) const { return Of(node_->ir_input(ir, k)); }
    Range<Shape>* GetOutputShapeRange(size_t i) const { return Of(node_->output(i)); }

private:
    // One range per tensor, made on first use and kept with the context (the bounds point into the node's tensors).
    // An input's range is handed out const, so its bounds are never written through.
    Range<Shape>* Of(const tw_host::TensorSlot* s) const {
        if (s == nullptr) return nullptr;
        auto it = ranges_.find(s);
        if (it == ranges_.end()) {
            Shape* shape = const_cast<Shape*>(&s->tensor.GetOriginShape());
            it = ranges_.emplace(s, Range<Shape>(shape, shape)).first;
        }
        return &it->second;
    }
    mutable std::map<const tw_host::TensorSlot*, Range<Shape>> ranges_;
};

using InferShapeRangeKernelFunc = ge::graphStatus (*)(InferShapeRangeContext*);

}  // namespace gert
