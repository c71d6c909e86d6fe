// CopyTile host side (fast side of copy-unaligned-row): a half [rows, cols] matrix read into UB by 48 cores, each
// a band of rows / 48 rows, in tiles of [TILE_M, TILE_N]; y holds 64 elements per core, the check of what was read.
// Tile [64, 1024] on both sides of the pair; the sides differ only in the case's shape (tilewise.toml).
#include "copy_tile_tiling.h"
#include "register/op_def_registry.h"

constexpr uint32_t BLOCK_DIM = 48;  // the published launch: every AIV core of the A2/A3 part
constexpr uint32_t TILE_M = 64;
constexpr uint32_t TILE_N = 1024;
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
    // Whole row tiles per core, a last column tile wide enough for the check row, and the GM gap between tile rows
    // (widest beside the narrowest, last, column tile) within DataCopyParams' 16-bit srcStride.
    uint32_t lastCols = cols == 0 ? 0 : cols - (cols - 1) / TILE_N * TILE_N;
    if (rows % (BLOCK_DIM * TILE_M) != 0 || lastCols < CHECK_ELEMS || (cols - lastCols) * 2 > 65535) {
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
