// tilewise host emulation: gert::ComputeNodeInfo, the compile-time view of a node that every context hands out
// with GetComputeNodeInfo(): its type and name, IR and instance counts, where each IR input's instances sit
// (AnchorInstanceInfo), each instance's compile-time tensor description and the attributes. In the real runtime it
// is a serialised block; here it is a read-only view of the node's data (tw_host/node.h), so it always agrees with
// what the context's own getters answer.
#pragma once
#include <cstddef>

#include "tw_host/node.h"

namespace gert {

class ComputeNodeInfo {
public:
    explicit ComputeNodeInfo(const tw_host::NodeData* node) : node_(node) {}
    ComputeNodeInfo(const ComputeNodeInfo&) = delete;
    ComputeNodeInfo& operator=(const ComputeNodeInfo&) = delete;

    const char* GetNodeType() const { return node_->node_type.c_str(); }
    const char* GetNodeName() const { return node_->node_name.c_str(); }
    size_t GetIrInputsNum() const { return node_->ir_inputs.size(); }
    size_t GetIrOutputsNum() const { return node_->ir_outputs.size(); }
    size_t GetInputsNum() const { return node_->inputs.size(); }
    size_t GetOutputsNum() const { return node_->outputs.size(); }
    // Indexed by IR input / output; nullptr past the IR's end.
    const AnchorInstanceInfo* GetInputInstanceInfo(size_t ir_index) const {
        return ir_index < node_->ir_inputs.size() ? &node_->ir_inputs[ir_index] : nullptr;
    }
    const AnchorInstanceInfo* GetOutputInstanceInfo(size_t ir_index) const {
        return ir_index < node_->ir_outputs.size() ? &node_->ir_outputs[ir_index] : nullptr;
    }
    // Indexed by instance; nullptr past the last one.
    const CompileTimeTensorDesc* GetInputTdInfo(size_t index) const {
        const tw_host::TensorSlot* s = node_->input(index);
        return s ? &s->desc : nullptr;
    }
    const CompileTimeTensorDesc* GetOutputTdInfo(size_t index) const {
        const tw_host::TensorSlot* s = node_->output(index);
        return s ? &s->desc : nullptr;
    }
    const RuntimeAttrs* GetAttrs() const { return &node_->attrs; }

private:
    const tw_host::NodeData* node_;
};

}  // namespace gert
