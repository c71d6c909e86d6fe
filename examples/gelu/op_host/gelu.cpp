// Gelu (tanh approximation), float16 / float32.
// Host tiling: cut the flat tensor into at most BLOCK_DIM contiguous slices whose length is a multiple of one
// 32-byte block, so every core but the last starts and ends on a block boundary; the kernel streams each slice
// in tiles of tileLength elements. The tile is clamped so the double-buffered queues and the fp32 scratch fit UB.
#include "gelu_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

constexpr uint32_t BLOCK_DIM = 8;      // tilewise: tune BLOCK_DIM in [1, 2, 4, 8, 16, 24, 32, 40, 48]
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
    GeluTilingData tiling;
    const uint32_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    if (totalLength == 0) {
        return ge::GRAPH_FAILED;
    }
    const ge::DataType dtype = context->GetInputDesc(0)->GetDataType();
    const uint32_t typeSize = (dtype == ge::DT_FLOAT) ? sizeof(float) : sizeof(uint16_t);
    const uint32_t alignElems = BLOCK_BYTES / typeSize;

    platform_ascendc::PlatformAscendC ascendcPlatform(context->GetPlatformInfo());
    uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);

    uint32_t blockDim = BLOCK_DIM < coreNum ? BLOCK_DIM : coreNum;
    if (blockDim == 0) {
        blockDim = 1;
    }
    const uint32_t blockLength = CeilDiv(CeilDiv(totalLength, blockDim), alignElems) * alignElems;
    // Re-derive the core count so that no core is left with an empty slice.
    blockDim = CeilDiv(totalLength, blockLength);

    // Per element of a tile: x and y queues (up to two buffers each, the kernel's BUFFER_NUM is at most 2)
    // plus the fp32 scratch (one buffer, or two when a 16-bit input has to be widened first).
    const uint32_t scratchBytes = (typeSize < sizeof(float)) ? 2 * sizeof(float) : sizeof(float);
    const uint32_t bytesPerElem = 2 * 2 * typeSize + scratchBytes;
    uint32_t maxTile = static_cast<uint32_t>((ubSize - RESERVED_BYTES) / bytesPerElem);
    uint32_t tileLength = TILE_LENGTH < maxTile ? TILE_LENGTH : maxTile;
    if (tileLength > blockLength) {
        tileLength = blockLength;   // a tile larger than the slice only wastes UB
    }
    tileLength = tileLength / alignElems * alignElems;
    if (tileLength == 0) {
        tileLength = alignElems;
    }

    tiling.set_totalLength(totalLength);
    tiling.set_blockLength(blockLength);
    tiling.set_tileLength(tileLength);
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
class Gelu : public OpDef {
public:
    explicit Gelu(const char* name) : OpDef(name)
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

OP_ADD(Gelu);
} // namespace ops
