// RowSum host side: y[i] = sum(x[i, :]) over the last axis, fp32, rows of at most one vector repeat (64 floats).
#include "row_sum_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

constexpr uint32_t BLOCK_DIM = 8;       // tilewise: tune BLOCK_DIM in [1, 2, 4, 8, 16, 24, 32, 40, 48]
constexpr uint32_t ROWS_PER_TILE = 32;  // tilewise: tune ROWS_PER_TILE in [8, 16, 32, 64, 128, 248]

constexpr uint32_t ELEMS_PER_BLOCK = 32 / sizeof(float);
constexpr uint32_t ELEMS_PER_REPEAT = 256 / sizeof(float);
constexpr uint32_t MAX_REPEAT = 255;

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    RowSumTilingData tiling;
    const gert::Shape& shape = context->GetInputShape(0)->GetOriginShape();
    const size_t dims = shape.GetDimNum();
    if (dims == 0) {
        return ge::GRAPH_FAILED;
    }
    const uint32_t colNum = static_cast<uint32_t>(shape.GetDim(dims - 1));
    if (colNum == 0 || colNum > ELEMS_PER_REPEAT || colNum % ELEMS_PER_BLOCK != 0) {
        return ge::GRAPH_FAILED;  // one row must be whole 32-byte blocks inside one repeat
    }
    const uint32_t rowNum = static_cast<uint32_t>(shape.GetShapeSize() / colNum);
    if (rowNum == 0) {
        return ge::GRAPH_FAILED;
    }

    platform_ascendc::PlatformAscendC ascendcPlatform(context->GetPlatformInfo());
    const uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    const uint32_t groups = (rowNum + ELEMS_PER_BLOCK - 1) / ELEMS_PER_BLOCK;
    uint32_t blockDim = BLOCK_DIM < coreNum ? BLOCK_DIM : coreNum;
    if (blockDim > groups) {
        blockDim = groups;
    }
    if (blockDim == 0) {
        blockDim = 1;
    }
    uint32_t rowsPerTile = ROWS_PER_TILE / ELEMS_PER_BLOCK * ELEMS_PER_BLOCK;
    if (rowsPerTile > MAX_REPEAT) {
        rowsPerTile = MAX_REPEAT / ELEMS_PER_BLOCK * ELEMS_PER_BLOCK;
    }
    if (rowsPerTile == 0) {
        rowsPerTile = ELEMS_PER_BLOCK;
    }

    tiling.set_rowNum(rowNum);
    tiling.set_colNum(colNum);
    tiling.set_formerNum(groups % blockDim);
    tiling.set_smallRows(groups / blockDim * ELEMS_PER_BLOCK);
    tiling.set_rowsPerTile(rowsPerTile);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* currentWorkspace = context->GetWorkspaceSizes(1);
    currentWorkspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context)
{
    const gert::Shape* xShape = context->GetInputShape(0);
    gert::Shape* yShape = context->GetOutputShape(0);
    const size_t dims = xShape->GetDimNum();
    yShape->SetDimNum(dims > 1 ? dims - 1 : 1);
    if (dims <= 1) {
        yShape->SetDim(0, 1);
        return GRAPH_SUCCESS;
    }
    for (size_t i = 0; i + 1 < dims; i++) {
        yShape->SetDim(i, xShape->GetDim(i));
    }
    return GRAPH_SUCCESS;
}

static ge::graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class RowSum : public OpDef {
public:
    explicit RowSum(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});

        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(RowSum);
} // namespace ops
