// CopyRepeat host side (slow side of copy-l2-reuse): 48 cores each read their band of rows / 48 rows of a half
// [rows, cols] matrix 4 times into UB in [64, 1024] tiles; y holds 64 elements per core, the check of what was read.
// Slow: one slice, the whole width: each of the 4 passes covers the whole matrix before the next starts.
#include "copy_repeat_tiling.h"
#include "register/op_def_registry.h"

constexpr uint32_t BLOCK_DIM = 48;  // the published launch: every AIV core of the A2/A3 part
constexpr uint32_t TILE_M = 64;
constexpr uint32_t TILE_N = 1024;
constexpr uint32_t SLICES = 1;
constexpr uint32_t REPEATS = 4;
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
    // Whole row tiles per core, whole column tiles per slice, and the GM gap between tile rows within
    // DataCopyParams' 16-bit srcStride.
    if (rows % (BLOCK_DIM * TILE_M) != 0 || cols % (SLICES * TILE_N) != 0 || (cols - TILE_N) * 2 > 65535) {
        return ge::GRAPH_FAILED;
    }
    CopyRepeatTilingData tiling;
    tiling.set_rows(rows);
    tiling.set_cols(cols);
    tiling.set_tileM(TILE_M);
    tiling.set_tileN(TILE_N);
    tiling.set_slices(SLICES);
    tiling.set_repeats(REPEATS);
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
class CopyRepeat : public OpDef {
public:
    explicit CopyRepeat(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(CopyRepeat);
} // namespace ops
