// ScaleShift: y[r, c] = x[r, c] * gamma[c] + beta[c] (the affine step of a normalisation), float16 in and out,
// computed in float32.
// Host tiling: rows are spread over at most BLOCK_DIM cores as evenly as possible (loads differ by at most one row).
// A row must be a whole number of 32-byte blocks (cols a multiple of 16) and fit the UB with its float copies.
#include "scale_shift_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

constexpr uint32_t BLOCK_DIM = 8; // tilewise: tune BLOCK_DIM in [1, 2, 4, 8, 16, 24, 32, 40, 48]

namespace optiling {
constexpr uint32_t ELEMS_PER_BLOCK = 16;   // float16 elements in one 32-byte block
constexpr uint32_t RESERVED_BYTES = 1024;  // UB kept free for the framework
// UB bytes per column: x and y queues (two buffers of fp16 each), the fp16 gamma and beta, and three fp32 rows
// (x widened, gamma and beta widened).
constexpr uint32_t UB_BYTES_PER_COL = 2 * 2 * 2 + 2 * 2 + 3 * 4;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    ScaleShiftTilingData tiling;
    const gert::Shape& xShape = context->GetInputShape(0)->GetOriginShape();
    const size_t dimNum = xShape.GetDimNum();
    if (dimNum < 1) {
        return ge::GRAPH_FAILED;
    }
    const uint32_t cols = static_cast<uint32_t>(xShape.GetDim(dimNum - 1));
    const uint64_t total = xShape.GetShapeSize();
    if (cols == 0 || total == 0 || cols % ELEMS_PER_BLOCK != 0) {
        return ge::GRAPH_FAILED;
    }
    const uint32_t rows = static_cast<uint32_t>(total / cols);

    platform_ascendc::PlatformAscendC ascendcPlatform(context->GetPlatformInfo());
    const uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    if (static_cast<uint64_t>(cols) * UB_BYTES_PER_COL + RESERVED_BYTES > ubSize) {
        return ge::GRAPH_FAILED;
    }

    uint32_t blockDim = BLOCK_DIM < coreNum ? BLOCK_DIM : coreNum;
    if (blockDim > rows) {
        blockDim = rows;
    }
    if (blockDim == 0) {
        blockDim = 1;
    }
    tiling.set_cols(cols);
    tiling.set_baseRowsPerCore(rows / blockDim);
    tiling.set_extraRows(rows % blockDim);
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
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}

static ge::graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class ScaleShift : public OpDef {
public:
    explicit ScaleShift(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("gamma").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("beta").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});

        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(ScaleShift);
} // namespace ops
