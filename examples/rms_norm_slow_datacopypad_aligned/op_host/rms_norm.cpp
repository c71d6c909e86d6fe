// RmsNorm: y = x / sqrt(mean(x^2, last axis) + epsilon) * gamma, float32, x[..., N], gamma[N].
// Host tiling: whole rows are dealt out to at most BLOCK_DIM cores (never more cores than rows). The kernel
// walks each row in column chunks of its own COL_TILE, so UB use does not depend on N and nothing here clamps.
#include "rms_norm_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

constexpr uint32_t BLOCK_DIM = 8; // tilewise: tune BLOCK_DIM in [1, 2, 4, 8, 16, 24, 32, 40, 48]

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    RmsNormTilingData tiling;
    const gert::Shape& shape = context->GetInputShape(0)->GetStorageShape();
    const size_t dimNum = shape.GetDimNum();
    if (dimNum == 0) {
        return ge::GRAPH_FAILED;
    }
    const uint32_t colNum = static_cast<uint32_t>(shape.GetDim(dimNum - 1));
    uint32_t rowNum = 1;
    for (size_t i = 0; i + 1 < dimNum; i++) {
        rowNum *= static_cast<uint32_t>(shape.GetDim(i));
    }
    if (rowNum == 0 || colNum == 0) {
        return ge::GRAPH_FAILED;
    }
    const float* epsilon = context->GetAttrs()->GetAttrPointer<float>(0);

    platform_ascendc::PlatformAscendC ascendcPlatform(context->GetPlatformInfo());
    const uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint32_t blockDim = BLOCK_DIM < coreNum ? BLOCK_DIM : coreNum;
    if (blockDim > rowNum) {
        blockDim = rowNum;
    }
    if (blockDim == 0) {
        blockDim = 1;
    }

    tiling.set_colNum(colNum);
    tiling.set_baseRowsPerCore(rowNum / blockDim);
    tiling.set_extraRows(rowNum % blockDim);
    tiling.set_avgFactor(1.0f / static_cast<float>(colNum));
    tiling.set_epsilon(epsilon == nullptr ? 1e-6f : *epsilon);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspaceSizes = context->GetWorkspaceSizes(1);
    workspaceSizes[0] = 0;
    return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context)
{
    const gert::Shape* xShape = context->GetInputShape(0);
    gert::Shape* yShape = context->GetOutputShape(0);
    *yShape = *xShape;
    return GRAPH_SUCCESS;
}

static ge::graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class RmsNorm : public OpDef {
public:
    explicit RmsNorm(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT})
            .Format({ge::FORMAT_ND});
        this->Input("gamma")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT})
            .Format({ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT})
            .Format({ge::FORMAT_ND});
        this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-6);

        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(RmsNorm);
} // namespace ops
