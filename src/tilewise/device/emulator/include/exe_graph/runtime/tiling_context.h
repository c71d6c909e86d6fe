// tilewise host emulation: gert::TilingContext, the single argument of an operator's tiling function.
#pragma once
#include <cstddef>
#include <cstdint>

#include "exe_graph/runtime/extended_kernel_context.h"
#include "exe_graph/runtime/tiling_data.h"
#include "platform/platform_infos_def.h"

namespace gert {

class TilingContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;

    // Shapes and tensors by instance index.
    const StorageShape* GetInputShape(size_t i) const { return Shp(node_->input(i)); }
    const StorageShape* GetOutputShape(size_t i) const { return Shp(node_->output(i)); }
    const Tensor* GetInputTensor(size_t i) const { return Tens(node_->input(i)); }
    // Shapes and tensors by IR index.
    const StorageShape* GetOptionalInputShape(size_t ir) const { return Shp(node_->ir_input(ir)); }
    const StorageShape* GetRequiredInputShape(size_t ir) const { return Shp(node_->ir_input(ir)); }
    const StorageShape* GetDynamicInputShape(size_t ir, size_t k) const { return Shp(node_->ir_input(ir, k)); }
    const Tensor* GetOptionalInputTensor(size_t ir) const { return Tens(node_->ir_input(ir)); }
    const Tensor* GetRequiredInputTensor(size_t ir) const { return Tens(node_->ir_input(ir)); }
    const Tensor* GetDynamicInputTensor(size_t ir, size_t k) const { return Tens(node_->ir_input(ir, k)); }

    fe::PlatFormInfos* GetPlatformInfo() const { return &node_->platform; }

    ge::graphStatus SetBlockDim(uint32_t n) {
        node_->block_dim = n;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetBlockDim() const { return node_->block_dim; }
    ge::graphStatus SetTilingKey(uint64_t k) {
        node_->tiling_key = k;
        return ge::GRAPH_SUCCESS;
    }
    uint64_t GetTilingKey() const { return node_->tiling_key; }
    ge::graphStatus SetScheduleMode(uint32_t m) {
        node_->schedule_mode = m;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetScheduleMode() const { return node_->schedule_mode; }
    ge::graphStatus SetNeedAtomic(bool a) {
        node_->need_atomic = a;
        return ge::GRAPH_SUCCESS;
    }
    bool NeedAtomic() const { return node_->need_atomic; }
    int32_t GetDeterministic() const { return 0; }

    TilingData* GetRawTilingData() const { return &node_->raw_tiling; }

    // The tiling buffer viewed as a plain struct (the ops-math style, without BEGIN_TILING_DATA_DEF). The data size
    // becomes sizeof(T) so that the kernel receives the whole struct. The buffer starts zeroed.
    template <typename T>
    T* GetTilingData() const {
        TilingData* raw = GetRawTilingData();
        if (raw->GetCapacity() < sizeof(T)) {
            return nullptr;
        }
        raw->SetDataSize(sizeof(T));
        return static_cast<T*>(raw->GetData());
    }

    // An array of `n` workspace sizes the operator fills in; entries it leaves alone stay 0.
    size_t* GetWorkspaceSizes(size_t n) const {
        node_->workspace_sizes.resize(n, 0);
        node_->workspace_touched = true;
        return node_->workspace_sizes.empty() ? nullptr : node_->workspace_sizes.data();
    }
    size_t GetWorkspaceNum() const { return node_->workspace_sizes.size(); }

    // What the operator's TilingParse function built (IMPL_OP_OPTILING(...).TilingParse<T>(fn)), or nullptr.
    const void* GetCompileInfo() const { return node_->compile_info; }
    template <typename T>
    const T* GetCompileInfo() const { return static_cast<const T*>(node_->compile_info); }

private:
    static const StorageShape* Shp(const tw_host::TensorSlot* s) { return s ? &s->tensor.GetShape() : nullptr; }
};

}  // namespace gert
