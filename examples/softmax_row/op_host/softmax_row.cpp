// SoftmaxRow: softmax over the last axis of x (all leading axes flattened into rows), float32.
// Host tiling: whole rows are dealt out to at most BLOCK_DIM cores, and a core copies ROWS_PER_TILE rows per
// DMA so that short rows still make reasonably large transfers. A row must fit UB (N up to several thousand);
// rowsPerTile is clamped so the double-buffered in/out tiles plus the reduce work area fit.
#include "softmax_row_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

constexpr uint32_t BLOCK_DIM = 8;     // tilewise: tune BLOCK_DIM in [1, 2, 4, 8, 16, 24, 32, 40, 48]
constexpr uint32_t ROWS_PER_TILE = 2; // tilewise: tune ROWS_PER_TILE in [1, 2, 4, 8, 16]

namespace optiling {
constexpr uint32_t BLOCK_FLOATS = 8;      // hardware: 32-byte block of fp32
constexpr uint32_t REPEAT_FLOATS = 64;    // hardware: 256-byte repeat of fp32
constexpr uint32_t RESERVED_BYTES = 1024; // UB kept free for the framework

static inline uint32_t CeilDiv(uint32_t a, uint32_t b)
{
    return (a + b - 1) / b;
}

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    SoftmaxRowTilingData tiling;
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

    const uint32_t colsAligned = CeilDiv(colNum, BLOCK_FLOATS) * BLOCK_FLOATS;
    // ReduceMax keeps a (value, index) pair per repeat in its work area.
    const uint32_t workLength = CeilDiv(CeilDiv(colNum, REPEAT_FLOATS) * 2, BLOCK_FLOATS) * BLOCK_FLOATS;
    const uint64_t fixedBytes = (workLength + BLOCK_FLOATS) * sizeof(float) + RESERVED_BYTES;
    // x and y queues, up to two buffers each (the kernel's BUFFER_NUM is at most 2).
    const uint64_t bytesPerRow = 2 * 2 * static_cast<uint64_t>(colsAligned) * sizeof(float);
    if (fixedBytes + bytesPerRow > ubSize) {
        return ge::GRAPH_FAILED; // one row must fit UB for this kernel
    }
    uint32_t rowsPerTile = static_cast<uint32_t>((ubSize - fixedBytes) / bytesPerRow);
    if (rowsPerTile > ROWS_PER_TILE) {
        rowsPerTile = ROWS_PER_TILE;
    }
    if (rowsPerTile > maxRowsPerCore) {
        rowsPerTile = maxRowsPerCore;
    }
    if (rowsPerTile == 0) {
        rowsPerTile = 1;
    }

    tiling.set_colNum(colNum);
    tiling.set_colsAligned(colsAligned);
    tiling.set_baseRowsPerCore(baseRowsPerCore);
    tiling.set_extraRows(extraRows);
    tiling.set_rowsPerTile(rowsPerTile);
    tiling.set_workLength(workLength);
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
class SoftmaxRow : public OpDef {
public:
    explicit SoftmaxRow(const char* name) : OpDef(name)
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

OP_ADD(SoftmaxRow);
} // namespace ops
