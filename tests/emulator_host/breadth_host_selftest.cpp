// Host-side names public operators needed next (test_breadth_host.py), in a program written for the test:
// ge::GetSizeInBytes / GetPrimaryFormat / GetSubFormat, gert::ComputeNodeInfo from a context's GetComputeNodeInfo(),
// the `likely` / `unlikely` branch hints and the OP_LOGE_WITH_INVALID_INPUT[_DTYPE] / OP_LOGE_FOR_INVALID_* logs.
#include <cstdio>

#include "platform/soc_spec.h"  // first: it must stand alone, as tiling code includes it by this path

#include "register/op_impl_registry.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "log/log.h"
#include "platform/platform_ascendc.h"
#include "mki/utils/math/tensor_utils.h"

static int failures = 0;
#define CHECK(cond)                                               \
    do {                                                          \
        if (!(cond)) {                                            \
            std::printf("FAILED line %d: %s\n", __LINE__, #cond); \
            ++failures;                                           \
        }                                                         \
    } while (0)

// An infer-shape function of the kind chunk_cat-style operators write: every count and description comes from the
// ComputeNodeInfo, the dynamic input's instances from its AnchorInstanceInfo.
static ge::graphStatus CountInstances(gert::InferShapeContext* context, size_t* dynamic_num, ge::DataType* last) {
    auto info = context->GetComputeNodeInfo();
    OP_CHECK_NULL_WITH_CONTEXT(context, info);
    auto anchor = info->GetInputInstanceInfo(1);
    OP_CHECK_NULL_WITH_CONTEXT(context, anchor);
    if (unlikely(info->GetInputInstanceInfo(2) != nullptr)) {  // only two IR inputs
        return ge::GRAPH_FAILED;
    }
    *dynamic_num = anchor->GetInstanceNum();
    *last = info->GetInputTdInfo(anchor->GetInstanceStart() + anchor->GetInstanceNum() - 1)->GetDataType();
    return ge::GRAPH_SUCCESS;
}

int main() {
    // GetSizeInBytes: whole bytes per element; 4-bit types two to a byte, rounded up; -1 for what has no size.
    CHECK(ge::GetSizeInBytes(10, ge::DT_FLOAT16) == 20);
    CHECK(ge::GetSizeInBytes(3, ge::DT_INT64) == 24);
    CHECK(ge::GetSizeInBytes(5, ge::DT_INT4) == 3);
    CHECK(ge::GetSizeInBytes(9, ge::DT_UINT1) == 2);
    CHECK(ge::GetSizeInBytes(-1, ge::DT_FLOAT) == -1);
    CHECK(ge::GetSizeInBytes(4, ge::DT_STRING) == -1);
    CHECK(ge::GetSizeInBytes(INT64_MAX / 2, ge::DT_FLOAT) == -1);
    // A format with a sub-format in its upper bits: the primary format is the low byte.
    const int32_t nz_with_sub = static_cast<int32_t>(ge::FORMAT_FRACTAL_Z) | (3 << 8);
    CHECK(ge::GetPrimaryFormat(nz_with_sub) == ge::FORMAT_FRACTAL_Z);
    CHECK(ge::GetSubFormat(nz_with_sub) == 3);
    CHECK(likely(1 + 1 == 2) && !unlikely(1 + 1 == 3));
    CHECK(std::string(ge::GetFormatName(ge::FORMAT_NCHW)) == "NCHW");
    CHECK(std::string(ge::GetFormatName(static_cast<ge::Format>(nz_with_sub))) == "FRACTAL_Z");
    CHECK(ge::GetFormatName(static_cast<ge::Format>(99)) == nullptr);
    // The whole of ge::Format's list: C1HWNCoC0 is 25, FRACTAL_ZN_LSTM 38; NULL is named, not the C macro.
    static_assert(ge::FORMAT_C1HWNCoC0 == 25 && ge::FORMAT_FRACTAL_ZN_LSTM == 38 && ge::FORMAT_NULL == 202, "ge::Format");
    CHECK(std::string(ge::GetFormatName(ge::FORMAT_C1HWNCoC0)) == "C1HWNCoC0");
    CHECK(std::string(ge::GetFormatName(ge::FORMAT_NULL)) == "NULL");

    static_assert(static_cast<uint32_t>(NpuArch::DAV_2201) == 2201 && static_cast<uint32_t>(NpuArch::DAV_3102) == 3102 &&
                      static_cast<uint32_t>(NpuArch::DAV_5102) == 5102,
                  "platform/soc_spec.h's NpuArch: DAV_<__NPU_ARCH__>");
    // GetCurNpuArch: DAV_2201 for the Atlas A2 / A3, DAV_3002 for the 310B, DAV_2002 for the 310P.
    fe::PlatFormInfos chip;
    CHECK(platform_ascendc::PlatformAscendC(&chip).GetCurNpuArch() == NpuArch::DAV_2201);
    chip.soc_version = "Ascend310B1";
    CHECK(platform_ascendc::PlatformAscendC(&chip).GetCurNpuArch() == NpuArch::DAV_3002);
    chip.soc_version = "Ascend310P3";
    CHECK(platform_ascendc::PlatformAscendC(&chip).GetCurNpuArch() == NpuArch::DAV_2002);

    // A node of two IR inputs, the second dynamic with three instances, and one output.
    tw_host::NodeData node;
    node.node_name = "Cat_1";
    node.node_type = "ChunkCatLike";
    node.ir_inputs = {gert::AnchorInstanceInfo(0, 1), gert::AnchorInstanceInfo(1, 3)};
    node.ir_outputs = {gert::AnchorInstanceInfo(0, 1)};
    node.inputs.resize(4);
    node.outputs.resize(1);
    const ge::DataType dts[4] = {ge::DT_INT32, ge::DT_FLOAT16, ge::DT_FLOAT16, ge::DT_BF16};
    for (int i = 0; i < 4; ++i) node.inputs[i].set_dtype(dts[i]);
    node.outputs[0].set_dtype(ge::DT_FLOAT);
    node.outputs[0].set_format(ge::FORMAT_NCHW);

    gert::InferShapeContext shape_ctx(&node);
    size_t dynamic_num = 0;
    ge::DataType last = ge::DT_UNDEFINED;
    CHECK(CountInstances(&shape_ctx, &dynamic_num, &last) == ge::GRAPH_SUCCESS);
    CHECK(dynamic_num == 3 && last == ge::DT_BF16);

    gert::TilingContext tiling_ctx(&node);
    const gert::ComputeNodeInfo* info = tiling_ctx.GetComputeNodeInfo();
    CHECK(std::string(info->GetNodeName()) == "Cat_1" && std::string(info->GetNodeType()) == "ChunkCatLike");
    CHECK(info->GetIrInputsNum() == 2 && info->GetIrOutputsNum() == 1);
    CHECK(info->GetInputsNum() == 4 && info->GetOutputsNum() == 1);
    CHECK(info->GetOutputInstanceInfo(0)->GetInstanceNum() == 1 && info->GetOutputInstanceInfo(1) == nullptr);
    CHECK(info->GetInputTdInfo(0)->GetDataType() == ge::DT_INT32 && info->GetInputTdInfo(4) == nullptr);
    CHECK(info->GetOutputTdInfo(0)->GetDataType() == ge::DT_FLOAT);
    CHECK(info->GetOutputTdInfo(0)->GetOriginFormat() == ge::FORMAT_NCHW);
    CHECK(info->GetAttrs() == tiling_ctx.GetAttrs());
    // The view follows the node: what changes there shows through it.
    node.inputs[0].set_dtype(ge::DT_INT8);
    CHECK(info->GetInputTdInfo(0)->GetDataType() == ge::DT_INT8);

    // Mki::TensorDesc::IsContiguous: no strides, or the packed row-major ones (a dimension of 1 may have any).
    Mki::TensorDesc desc;
    desc.dims = {2, 3, 4};
    CHECK(desc.IsContiguous());
    desc.strides = {12, 4, 1};
    CHECK(desc.IsContiguous());
    desc.strides = {16, 4, 1};  // rows of 4 with a gap after every 3: a strided view
    CHECK(!desc.IsContiguous());
    desc.dims = {2, 1, 4};
    desc.strides = {4, 99, 1};
    CHECK(desc.IsContiguous());
    desc.strides = {4, 1};
    CHECK(!desc.IsContiguous());
    CHECK(Mki::Utils::RoundUp(5u, 4u) == 8u);  // tensor_utils.h brings the Utils arithmetic

    OP_LOGE_WITH_INVALID_INPUT_DTYPE(shape_ctx.GetNodeName(), "x", "DT_INT8", "DT_FLOAT, DT_FLOAT16");
    OP_LOGE_WITH_INVALID_INPUT(shape_ctx.GetNodeName(), "platform_info");
    OP_LOGE_FOR_INVALID_TENSORNUM(shape_ctx.GetNodeName(), "tensor_list", 70, "at most 64");

    if (failures == 0) std::printf("all checks passed\n");
    return failures == 0 ? 0 : 1;
}
