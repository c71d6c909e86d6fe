// AddTiles host side: z = x + y on half [rows, cols] (the published walk-through uses [8192, 8192]). The tiling
// only passes the shape; the launch uses BLOCK_DIM cores, the one knob the host owns in this series.
#include "add_tiles_tiling.h"
#include "register/op_def_registry.h"

constexpr uint32_t BLOCK_DIM = 1;

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const gert::Shape& shape = context->GetInputShape(0)->GetOriginShape();
    size_t dims = shape.GetDimNum();
    if (dims == 0 || shape.GetShapeSize() == 0) {
        return ge::GRAPH_FAILED;
    }
    uint32_t cols = static_cast<uint32_t>(shape.GetDim(dims - 1));
    uint32_t rows = static_cast<uint32_t>(shape.GetShapeSize() / cols);
    // Every tile the kernel moves must be whole 32-byte blocks: a row of half must be a multiple of 16 elements.
    if (cols % 16 != 0) {
        return ge::GRAPH_FAILED;
    }
    AddTilesTilingData tiling;
    tiling.set_rows(rows);
    tiling.set_cols(cols);
    context->SetBlockDim(BLOCK_DIM);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}

static ge::graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class AddTiles : public OpDef {
public:
    explicit AddTiles(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(AddTiles);
} // namespace ops
