// CopyWhole host side (fast side of copy-same-address): 48 cores each read the whole half [rows, cols] matrix into
// UB in [128, 64] tiles, walking its rows / 48-row blocks; y holds 64 elements per core, the check of what was read.
// Fast: core b starts at block b and wraps within each group of 48 blocks, so the cores read different blocks.
#include "copy_whole_tiling.h"
#include "register/op_def_registry.h"

constexpr uint32_t BLOCK_DIM = 48;  // the published launch: every AIV core of the A2/A3 part
constexpr uint32_t TILE_M = 128;
constexpr uint32_t TILE_N = 64;
constexpr uint32_t STAGGERED = 1;
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
    // Whole row tiles per block, whole column tiles, and the GM gap between tile rows within DataCopyParams' 16-bit
    // srcStride.
    if (rows % (BLOCK_DIM * TILE_M) != 0 || cols % TILE_N != 0 || (cols - TILE_N) * 2 > 65535) {
        return ge::GRAPH_FAILED;
    }
    CopyWholeTilingData tiling;
    tiling.set_rows(rows);
    tiling.set_cols(cols);
    tiling.set_tileM(TILE_M);
    tiling.set_tileN(TILE_N);
    tiling.set_staggered(STAGGERED);
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
class CopyWhole : public OpDef {
public:
    explicit CopyWhole(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(CopyWhole);
} // namespace ops
