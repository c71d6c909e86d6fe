// ReduceSumAll: y[0] = sum of every element of x, float32.
// Host tiling: the flat input is cut into at most BLOCK_DIM slices of a whole number of 32-byte blocks (the last
// core takes the remainder), streamed in tiles of TILE_LENGTH. Cores meet in a two-stage reduction through GM:
// the user workspace holds one 32-byte slot per core for the partial sums, on top of the system workspace that
// SyncAll needs.
#include "reduce_sum_all_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

constexpr uint32_t BLOCK_DIM = 8;      // tilewise: tune BLOCK_DIM in [1, 2, 4, 8, 16, 24, 32, 40, 48]
constexpr uint32_t TILE_LENGTH = 2048; // tilewise: tune TILE_LENGTH in [256, 512, 1024, 2048, 4096, 8192, 16384]

namespace optiling {
constexpr uint32_t BLOCK_FLOATS = 8;        // hardware: 32-byte block of fp32
constexpr uint32_t PARTIAL_SLOT_BYTES = 32; // one block per core in the user workspace
constexpr uint32_t RESERVED_BYTES = 4096;   // partial buffers, reduce work area, framework

static inline uint32_t CeilDiv(uint32_t a, uint32_t b)
{
    return (a + b - 1) / b;
}

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    ReduceSumAllTilingData tiling;
    const uint32_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    if (totalLength == 0) {
        return ge::GRAPH_FAILED;
    }

    platform_ascendc::PlatformAscendC ascendcPlatform(context->GetPlatformInfo());
    const uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);

    // SyncAll needs every core resident at once, so never ask for more cores than there are.
    uint32_t blockDim = BLOCK_DIM < coreNum ? BLOCK_DIM : coreNum;
    if (blockDim == 0) {
        blockDim = 1;
    }
    const uint32_t blockLength = CeilDiv(CeilDiv(totalLength, blockDim), BLOCK_FLOATS) * BLOCK_FLOATS;
    blockDim = CeilDiv(totalLength, blockLength);

    // Per element of a tile: the input queue (at most two buffers) plus the lane-wise accumulator and
    // ReduceSum's work area (at most one float per 64).
    const uint64_t bytesPerElem = 2 * sizeof(float) + sizeof(float) + 1;
    uint32_t maxTile = static_cast<uint32_t>((ubSize - RESERVED_BYTES) / bytesPerElem);
    uint32_t tileLength = TILE_LENGTH < maxTile ? TILE_LENGTH : maxTile;
    if (tileLength > blockLength) {
        tileLength = blockLength;
    }
    tileLength = tileLength / BLOCK_FLOATS * BLOCK_FLOATS;
    if (tileLength == 0) {
        tileLength = BLOCK_FLOATS;
    }

    tiling.set_totalLength(totalLength);
    tiling.set_blockLength(blockLength);
    tiling.set_tileLength(tileLength);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());

    size_t* workspaceSizes = context->GetWorkspaceSizes(1);
    const size_t sysWorkspaceSize = ascendcPlatform.GetLibApiWorkSpaceSize();
    workspaceSizes[0] = sysWorkspaceSize + static_cast<size_t>(blockDim) * PARTIAL_SLOT_BYTES;
    return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context)
{
    gert::Shape* yShape = context->GetOutputShape(0);
    yShape->SetDimNum(1);
    yShape->SetDim(0, 1);
    return GRAPH_SUCCESS;
}

static ge::graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class ReduceSumAll : public OpDef {
public:
    explicit ReduceSumAll(const char* name) : OpDef(name)
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

OP_ADD(ReduceSumAll);
} // namespace ops
