// tilewise host emulation: the data behind every context (tiling, infer-shape, infer-datatype, tiling-parse).
//
// An operator's IR (its OpDef) declares inputs and outputs, each REQUIRED, OPTIONAL or DYNAMIC. At run time an
// IR input has 0..n instances: an absent OPTIONAL input has none, a DYNAMIC one has as many as were passed.
// Context methods come in two indexings, as in the real runtime:
//   - GetInputShape(i), GetInputDesc(i), GetInputTensor(i): i counts instances (absent optionals skipped);
//   - GetOptionalInputShape(ir), GetDynamicInputShape(ir, k), GetIrInputInstanceInfo(ir): ir counts IR inputs.
// NodeData holds both views; the contexts are thin facades over it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "exe_graph/runtime/continuous_vector.h"
#include "exe_graph/runtime/runtime_attrs.h"
#include "exe_graph/runtime/shape.h"
#include "exe_graph/runtime/storage_shape.h"
#include "exe_graph/runtime/tensor.h"
#include "exe_graph/runtime/tiling_data.h"
#include "graph/types.h"
#include "platform/platform_infos_def.h"

namespace gert {

// Where one IR input's instances sit among all instances.
class AnchorInstanceInfo {
public:
    AnchorInstanceInfo() = default;
    AnchorInstanceInfo(uint32_t start, uint32_t num) : start_(start), num_(num) {}
    size_t GetInstanceStart() const { return start_; }
    size_t GetInstanceNum() const { return num_; }
    void SetInstanceStart(uint32_t s) { start_ = s; }
    void SetInstanceNum(uint32_t n) { num_ = n; }

private:
    uint32_t start_ = 0;
    uint32_t num_ = 0;
};

}  // namespace gert

namespace tw_host {

// One tensor instance as every context sees it: the Tensor carries shape, dtype, format and (optional) data; the
// CompileTimeTensorDesc and the StorageShape views are kept in sync with it.
struct TensorSlot {
    gert::Tensor tensor;
    gert::CompileTimeTensorDesc desc;

    void set_shape(const gert::Shape& s) {
        tensor.MutableOriginShape() = s;
        tensor.MutableStorageShape() = s;
    }
    void set_dtype(ge::DataType dt) {
        tensor.SetDataType(dt);
        desc.SetDataType(dt);
    }
    void set_format(ge::Format f) {
        tensor.SetFormat(gert::StorageFormat(f, f));
        desc.SetFormat(gert::StorageFormat(f, f));
    }
};

struct NodeData {
    std::string node_name;
    std::string node_type;

    // Per IR input/output: where its instances are. Outputs normally have exactly one instance each.
    std::vector<gert::AnchorInstanceInfo> ir_inputs;
    std::vector<gert::AnchorInstanceInfo> ir_outputs;
    std::vector<TensorSlot> inputs;   // instances
    std::vector<TensorSlot> outputs;  // instances

    gert::RuntimeAttrs attrs;
    fe::PlatFormInfos platform;

    // Tiling results.
    gert::TilingData raw_tiling{64 * 1024};
    uint32_t block_dim = 0;
    uint64_t tiling_key = 0;
    uint32_t schedule_mode = 0;
    bool need_atomic = false;
    std::vector<size_t> workspace_sizes;
    bool workspace_touched = false;
    const void* compile_info = nullptr;

    const TensorSlot* input(size_t i) const { return i < inputs.size() ? &inputs[i] : nullptr; }
    TensorSlot* output(size_t i) { return i < outputs.size() ? &outputs[i] : nullptr; }
    const TensorSlot* output(size_t i) const { return i < outputs.size() ? &outputs[i] : nullptr; }

    // Instance `k` of IR input `ir`, or nullptr if the IR input has fewer instances.
    const TensorSlot* ir_input(size_t ir, size_t k = 0) const {
        if (ir >= ir_inputs.size() || k >= ir_inputs[ir].GetInstanceNum()) {
            return nullptr;
        }
        return input(ir_inputs[ir].GetInstanceStart() + k);
    }
    const TensorSlot* ir_output(size_t ir, size_t k = 0) const {
        if (ir >= ir_outputs.size() || k >= ir_outputs[ir].GetInstanceNum()) {
            return nullptr;
        }
        return output(ir_outputs[ir].GetInstanceStart() + k);
    }
    TensorSlot* ir_output(size_t ir, size_t k = 0) {
        return const_cast<TensorSlot*>(static_cast<const NodeData*>(this)->ir_output(ir, k));
    }
};

}  // namespace tw_host
