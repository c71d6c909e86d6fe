// tilewise host emulation: gert::ExtendedKernelContext, what every operator context shares (node identity,
// attributes, tensor descriptions, IR-to-instance mapping). See tw_host/node.h for the two index spaces.
#pragma once
#include <cstddef>
// The standard headers CANN's counterpart of this header brings in through its own includes (operators use
// them without including them).
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "exe_graph/runtime/compute_node_info.h"
#include "tw_host/node.h"

namespace gert {

class ExtendedKernelContext {
public:
    explicit ExtendedKernelContext(tw_host::NodeData* node) : node_(node), node_info_(node) {}
    ExtendedKernelContext(const ExtendedKernelContext& o) : node_(o.node_), node_info_(o.node_) {}
    ExtendedKernelContext& operator=(const ExtendedKernelContext&) = delete;

    const char* GetNodeName() const { return node_->node_name.c_str(); }
    const char* GetNodeType() const { return node_->node_type.c_str(); }
    const RuntimeAttrs* GetAttrs() const { return &node_->attrs; }
    const ComputeNodeInfo* GetComputeNodeInfo() const { return &node_info_; }

    size_t GetComputeNodeInputNum() const { return node_->inputs.size(); }
    size_t GetComputeNodeOutputNum() const { return node_->outputs.size(); }
    const AnchorInstanceInfo* GetIrInputInstanceInfo(size_t ir) const {
        return ir < node_->ir_inputs.size() ? &node_->ir_inputs[ir] : nullptr;
    }
    const AnchorInstanceInfo* GetIrOutputInstanceInfo(size_t ir) const {
        return ir < node_->ir_outputs.size() ? &node_->ir_outputs[ir] : nullptr;
    }

    const CompileTimeTensorDesc* GetInputDesc(size_t i) const { return Desc(node_->input(i)); }
    const CompileTimeTensorDesc* GetOutputDesc(size_t i) const { return Desc(node_->output(i)); }
    const CompileTimeTensorDesc* GetOptionalInputDesc(size_t ir) const { return Desc(node_->ir_input(ir)); }
    const CompileTimeTensorDesc* GetRequiredInputDesc(size_t ir) const { return Desc(node_->ir_input(ir)); }
    const CompileTimeTensorDesc* GetDynamicInputDesc(size_t ir, size_t k) const {
        return Desc(node_->ir_input(ir, k));
    }

    tw_host::NodeData* node() const { return node_; }  // emulator-only accessor

protected:
    static const CompileTimeTensorDesc* Desc(const tw_host::TensorSlot* s) { return s ? &s->desc : nullptr; }
    static const Tensor* Tens(const tw_host::TensorSlot* s) { return s ? &s->tensor : nullptr; }

    tw_host::NodeData* node_;
    ComputeNodeInfo node_info_;
};

}  // namespace gert
