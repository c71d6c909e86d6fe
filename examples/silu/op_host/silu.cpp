// Silu (swish): y = x * sigmoid(x), float16 / float32.
// Host tiling: the tensor is counted in 32-byte blocks and the blocks are spread over at most BLOCK_DIM cores as
// evenly as possible (core loads differ by at most one block), so only the final core can end on a partial block.
// The input dtype picks the kernel instantiation through the tiling key: 1 = float16, 2 = float32.
#include "silu_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

constexpr uint32_t BLOCK_DIM = 16;     // tilewise: tune BLOCK_DIM in [1, 2, 4, 8, 16, 24, 32, 40, 48]
constexpr uint32_t TILE_LENGTH = 1024; // tilewise: tune TILE_LENGTH in [256, 512, 1024, 2048, 4096, 8192]

namespace optiling {
constexpr uint32_t BLOCK_BYTES = 32;      // hardware: DataCopy granule
constexpr uint32_t RESERVED_BYTES = 1024; // UB kept free for the framework

static inline uint32_t CeilDiv(uint32_t a, uint32_t b)
{
    return (a + b - 1) / b;
}

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    SiluTilingData tiling;
    const uint32_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    if (totalLength == 0) {
        return ge::GRAPH_FAILED;
    }
    const ge::DataType dtype = context->GetInputDesc(0)->GetDataType();
    if (dtype != ge::DT_FLOAT16 && dtype != ge::DT_FLOAT) {
        return ge::GRAPH_FAILED;
    }
    const bool isHalf = (dtype == ge::DT_FLOAT16);
    const uint32_t typeSize = isHalf ? sizeof(uint16_t) : sizeof(float);
    const uint32_t alignElems = BLOCK_BYTES / typeSize;

    platform_ascendc::PlatformAscendC ascendcPlatform(context->GetPlatformInfo());
    const uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);

    const uint32_t totalBlocks = CeilDiv(totalLength, alignElems);
    uint32_t blockDim = BLOCK_DIM < coreNum ? BLOCK_DIM : coreNum;
    if (blockDim > totalBlocks) {
        blockDim = totalBlocks;
    }
    if (blockDim == 0) {
        blockDim = 1;
    }
    const uint32_t baseBlocksPerCore = totalBlocks / blockDim;
    const uint32_t extraBlocks = totalBlocks % blockDim;
    const uint32_t maxCoreLength = (baseBlocksPerCore + (extraBlocks > 0 ? 1 : 0)) * alignElems;

    // x and y queues (up to two buffers each) + fp32 scratch: one tile, or two when fp16 is widened first.
    const uint32_t scratchBytes = isHalf ? 2 * sizeof(float) : sizeof(float);
    const uint64_t bytesPerElem = 2 * 2 * typeSize + scratchBytes;
    const uint32_t maxTile = static_cast<uint32_t>((ubSize - RESERVED_BYTES) / bytesPerElem);
    uint32_t tileLength = TILE_LENGTH < maxTile ? TILE_LENGTH : maxTile;
    if (tileLength > maxCoreLength) {
        tileLength = maxCoreLength;
    }
    tileLength = tileLength / alignElems * alignElems;
    if (tileLength == 0) {
        tileLength = alignElems;
    }

    tiling.set_totalLength(totalLength);
    tiling.set_baseBlocksPerCore(baseBlocksPerCore);
    tiling.set_extraBlocks(extraBlocks);
    tiling.set_tileLength(tileLength);
    context->SetTilingKey(isHalf ? 1 : 2);
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
class Silu : public OpDef {
public:
    explicit Silu(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});

        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(Silu);
} // namespace ops
