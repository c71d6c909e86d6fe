// ColumnSumAtomic: y[j] = sum_i x[i, j] for x[M, N] (leading axes flattened into M), float32.
// Host tiling: rows are dealt out to at most BLOCK_DIM cores (never more than M, never more than the cores
// present, since the kernel's SyncAll needs every core resident). Each core reduces its rows into per-strip
// column sums and adds them into y with atomic MTE3 writes; y is zeroed by core 0 behind a SyncAll first.
// The tile is a strip of COL_TILE columns by ROW_TILE rows, clamped to UB.
#include "column_sum_atomic_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

constexpr uint32_t BLOCK_DIM = 8;    // tilewise: tune BLOCK_DIM in [1, 2, 4, 8, 16, 24, 32, 40, 48]
constexpr uint32_t COL_TILE = 256;   // tilewise: tune COL_TILE in [64, 128, 256, 512, 1024, 2048]
constexpr uint32_t ROW_TILE = 8;     // tilewise: tune ROW_TILE in [1, 2, 4, 8, 16, 32, 64]

namespace optiling {
constexpr uint32_t BLOCK_FLOATS = 8;       // hardware: 32-byte block of fp32
constexpr uint32_t RESERVED_BYTES = 1024;  // UB kept free for the framework
constexpr uint32_t MAX_BLOCK_COUNT = 4095; // DataCopy burst count limit

static inline uint32_t CeilDiv(uint32_t a, uint32_t b)
{
    return (a + b - 1) / b;
}

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    ColumnSumAtomicTilingData tiling;
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

    platform_ascendc::PlatformAscendC ascendcPlatform(context->GetPlatformInfo());
    const uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);

    uint32_t blockDim = BLOCK_DIM < coreNum ? BLOCK_DIM : coreNum;
    if (blockDim > rowNum) {
        blockDim = rowNum;
    }
    if (blockDim == 0) {
        blockDim = 1;
    }
    const uint32_t baseRowsPerCore = rowNum / blockDim;
    const uint32_t extraRows = rowNum % blockDim;
    const uint32_t maxRowsPerCore = baseRowsPerCore + (extraRows > 0 ? 1 : 0);

    // Strip width: a whole number of blocks, no wider than the (block-rounded) row.
    const uint32_t colsAligned = CeilDiv(colNum, BLOCK_FLOATS) * BLOCK_FLOATS;
    uint32_t colTile = COL_TILE / BLOCK_FLOATS * BLOCK_FLOATS;
    if (colTile == 0) {
        colTile = BLOCK_FLOATS;
    }
    if (colTile > colsAligned) {
        colTile = colsAligned;
    }
    // UB: input queue of rowTile x colTile (up to two buffers) + output queue of colTile (up to two buffers).
    const uint64_t stripBytes = static_cast<uint64_t>(colTile) * sizeof(float);
    if (2 * stripBytes * 2 + RESERVED_BYTES > ubSize) {
        return ge::GRAPH_FAILED;
    }
    uint32_t rowTile = static_cast<uint32_t>((ubSize - RESERVED_BYTES - 2 * stripBytes) / (2 * stripBytes));
    if (rowTile > ROW_TILE) {
        rowTile = ROW_TILE;
    }
    if (rowTile > maxRowsPerCore) {
        rowTile = maxRowsPerCore;
    }
    if (rowTile > MAX_BLOCK_COUNT) {
        rowTile = MAX_BLOCK_COUNT;
    }
    if (rowTile == 0) {
        rowTile = 1;
    }

    tiling.set_colNum(colNum);
    tiling.set_baseRowsPerCore(baseRowsPerCore);
    tiling.set_extraRows(extraRows);
    tiling.set_colTile(colTile);
    tiling.set_rowTile(rowTile);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());

    // SyncAll between zeroing y and the atomic adds needs the system workspace; no user bytes beyond a block.
    size_t* workspaceSizes = context->GetWorkspaceSizes(1);
    workspaceSizes[0] = ascendcPlatform.GetLibApiWorkSpaceSize() + BLOCK_FLOATS * sizeof(float);
    return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context)
{
    const gert::Shape* xShape = context->GetInputShape(0);
    gert::Shape* yShape = context->GetOutputShape(0);
    const size_t dimNum = xShape->GetDimNum();
    yShape->SetDimNum(1);
    yShape->SetDim(0, dimNum == 0 ? 1 : xShape->GetDim(dimNum - 1));
    return GRAPH_SUCCESS;
}

static ge::graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class ColumnSumAtomic : public OpDef {
public:
    explicit ColumnSumAtomic(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT})
            .Format({ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT})
            .Format({ge::FORMAT_ND});

        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(ColumnSumAtomic);
} // namespace ops
