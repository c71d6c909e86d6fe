// CopyTile host side (fast side of copy-tile-128b-to-8k): a half [rows, cols] matrix read into UB by 48 cores, each
// a band of rows / 48 rows, in tiles of [TILE_M, TILE_N]; y holds 64 elements per core, the check of what was read.
// Fast: tile [64, 64], so every DataCopyPad moves 64 rows of 128 bytes (8 KB).
#include "copy_tile_tiling.h"
#include "register/op_def_registry.h"

constexpr uint32_t BLOCK_DIM = 48;  // the published launch: every AIV core of the A2/A3 part
constexpr uint32_t TILE_M = 64;
constexpr uint32_t TILE_N = 64;
constexpr uint32_t CHECK_ELEMS = 64;

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const gert::Shape& shape = context->GetInputShape(0)->GetOriginShape();
    if (shape.GetDimNum() != 2) {
        return ge::GRAPH_FAILED;
    }
    uint32_t rows = static_cast<uint32_t>(shape.GetDim(0));
    uint32_t cols = static_cast<uint32_t>(shape.GetDim(1));
    // Whole row tiles per core; the GM gap between tile rows must fit DataCopyParams' 16-bit srcStride.
    if (rows % (BLOCK_DIM * TILE_M) != 0 || cols < TILE_N || (cols - TILE_N) * 2 > 65535) {
        return ge::GRAPH_FAILED;
    }
    CopyTileTilingData tiling;
    tiling.set_rows(rows);
    tiling.set_cols(cols);
    tiling.set_tileM(TILE_M);
    tiling.set_tileN(TILE_N);
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
    gert::Shape* yShape = context->GetOutputShape(0);
    yShape->SetDimNum(2);
    yShape->SetDim(0, BLOCK_DIM);
    yShape->SetDim(1, CHECK_ELEMS);
    return GRAPH_SUCCESS;
}

static ge::graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class CopyTile : public OpDef {
public:
    explicit CopyTile(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(CopyTile);
} // namespace ops
