// BroadcastAdd host side: z[M, N] = x[M, N] + b[N] (bias row broadcast over all leading dims), fp16.
// x is viewed as M rows of N; rows are split over cores and tiled tileRows at a time.
// Tiling key 1: a row is a whole number of 32-byte blocks, so row tiles are plain contiguous DataCopy.
// Tiling key 2: rows end mid-block; they are moved with DataCopyPad and sit at a padded pitch in UB.
#include "broadcast_add_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

constexpr uint32_t BLOCK_DIM = 8;   // tilewise: tune BLOCK_DIM in [1, 2, 4, 8, 16, 24, 32, 40, 48]
constexpr uint32_t TILE_ROWS = 8;   // tilewise: tune TILE_ROWS in [1, 2, 4, 8, 16, 32, 64, 128]

constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t ELEMS_PER_BLOCK = BLOCK_BYTES / sizeof(uint16_t);
constexpr uint32_t QUEUE_COUNT = 2;     // x and z are tiled; b is loaded once
constexpr uint32_t MAX_BUFFER_NUM = 2;
constexpr uint32_t MAX_BURST_COUNT = 4095;  // one row per burst, and a copy takes at most this many bursts
constexpr uint64_t TILING_KEY_ALIGNED = 1;
constexpr uint64_t TILING_KEY_PADDED = 2;

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    BroadcastAddTilingData tiling;
    const gert::Shape& xShape = context->GetInputShape(0)->GetStorageShape();
    size_t dimNum = xShape.GetDimNum();
    if (dimNum == 0) {
        return ge::GRAPH_FAILED;
    }
    uint32_t cols = static_cast<uint32_t>(xShape.GetDim(dimNum - 1));
    uint32_t bLength = static_cast<uint32_t>(context->GetInputShape(1)->GetOriginShape().GetShapeSize());
    if (cols == 0 || bLength != cols) {
        return ge::GRAPH_FAILED;
    }
    uint32_t rows = static_cast<uint32_t>(xShape.GetShapeSize() / cols);
    uint32_t rowStride = (cols + ELEMS_PER_BLOCK - 1) / ELEMS_PER_BLOCK * ELEMS_PER_BLOCK;

    platform_ascendc::PlatformAscendC ascendcPlatform(context->GetPlatformInfo());
    uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);

    uint32_t blockDim = BLOCK_DIM < coreNum ? BLOCK_DIM : coreNum;
    if (blockDim > rows) {
        blockDim = rows;
    }
    if (blockDim == 0) {
        blockDim = 1;
    }
    uint32_t rowsPerCore = rows / blockDim;
    uint32_t formerNum = rows % blockDim;

    uint64_t rowBytes = static_cast<uint64_t>(rowStride) * sizeof(uint16_t);
    if (ubSize <= rowBytes) {
        return ge::GRAPH_FAILED;
    }
    uint64_t maxRows = (ubSize - rowBytes) / (QUEUE_COUNT * MAX_BUFFER_NUM * rowBytes);
    if (maxRows == 0) {
        return ge::GRAPH_FAILED;  // one row of x and z does not fit next to b; this op does not split columns
    }
    uint32_t tileRows = TILE_ROWS < maxRows ? TILE_ROWS : static_cast<uint32_t>(maxRows);
    uint32_t maxCoreRows = rowsPerCore + (formerNum > 0 ? 1 : 0);
    if (tileRows > MAX_BURST_COUNT) {
        tileRows = MAX_BURST_COUNT;
    }
    if (tileRows > maxCoreRows) {
        tileRows = maxCoreRows;
    }
    if (tileRows == 0) {
        tileRows = 1;
    }

    tiling.set_rows(rows);
    tiling.set_cols(cols);
    tiling.set_rowStride(rowStride);
    tiling.set_formerNum(formerNum);
    tiling.set_rowsPerCore(rowsPerCore);
    tiling.set_tileRows(tileRows);
    context->SetTilingKey(cols % ELEMS_PER_BLOCK == 0 ? TILING_KEY_ALIGNED : TILING_KEY_PADDED);
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
    gert::Shape* zShape = context->GetOutputShape(0);
    *zShape = *xShape;
    return GRAPH_SUCCESS;
}

static ge::graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class BroadcastAdd : public OpDef {
public:
    explicit BroadcastAdd(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});

        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(BroadcastAdd);
} // namespace ops
