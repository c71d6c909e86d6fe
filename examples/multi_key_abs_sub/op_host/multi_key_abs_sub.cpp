// MultiKeyAbsSub: z = |x - y|, float16.
// Host tiling: the flat tensors are cut into tiles of TILE_LENGTH halves (clamped to UB) and whole tiles are dealt
// out to at most BLOCK_DIM cores. Two tiling keys select the kernel variant:
//   key 1: totalLength is a multiple of the tile, every copy is a full aligned tile -> plain DataCopy only;
//   key 2: the last tile is short (possibly not a 32-byte multiple)             -> DataCopyPad for that tile.
#include "multi_key_abs_sub_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

constexpr uint32_t BLOCK_DIM = 16;     // tilewise: tune BLOCK_DIM in [1, 2, 4, 8, 16, 24, 32, 40, 48]
constexpr uint32_t TILE_LENGTH = 2048; // tilewise: tune TILE_LENGTH in [512, 1024, 2048, 4096, 8192]

namespace optiling {
constexpr uint32_t BLOCK_HALFS = 16;      // hardware: 32-byte block of fp16
constexpr uint32_t RESERVED_BYTES = 1024; // UB kept free for the framework

static inline uint32_t CeilDiv(uint32_t a, uint32_t b)
{
    return (a + b - 1) / b;
}

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    MultiKeyAbsSubTilingData tiling;
    const uint32_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    if (totalLength == 0 || context->GetInputShape(1)->GetOriginShape().GetShapeSize() != totalLength) {
        return ge::GRAPH_FAILED;
    }

    platform_ascendc::PlatformAscendC ascendcPlatform(context->GetPlatformInfo());
    const uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);

    // x, y and z queues of half, up to two buffers each (the kernel's BUFFER_NUM is at most 2).
    const uint64_t bytesPerElem = 3 * 2 * sizeof(uint16_t);
    const uint32_t maxTile = static_cast<uint32_t>((ubSize - RESERVED_BYTES) / bytesPerElem);
    uint32_t tileLength = TILE_LENGTH < maxTile ? TILE_LENGTH : maxTile;
    tileLength = tileLength / BLOCK_HALFS * BLOCK_HALFS;
    if (tileLength == 0) {
        tileLength = BLOCK_HALFS;
    }
    const uint32_t tileNum = CeilDiv(totalLength, tileLength);
    const uint32_t lastTileLength = totalLength - (tileNum - 1) * tileLength;

    uint32_t blockDim = BLOCK_DIM < coreNum ? BLOCK_DIM : coreNum;
    if (blockDim > tileNum) {
        blockDim = tileNum;
    }
    if (blockDim == 0) {
        blockDim = 1;
    }

    tiling.set_totalLength(totalLength);
    tiling.set_tileLength(tileLength);
    tiling.set_tileNum(tileNum);
    tiling.set_baseTilesPerCore(tileNum / blockDim);
    tiling.set_extraTiles(tileNum % blockDim);
    tiling.set_lastTileLength(lastTileLength);
    // Key 1: every tile is full and aligned; key 2: the last tile is short.
    context->SetTilingKey(lastTileLength == tileLength ? 1 : 2);
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
    gert::Shape* zShape = context->GetOutputShape(0);
    *zShape = *xShape;
    return GRAPH_SUCCESS;
}

static ge::graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class MultiKeyAbsSub : public OpDef {
public:
    explicit MultiKeyAbsSub(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND});
        this->Input("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND});
        this->Output("z")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND});

        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(MultiKeyAbsSub);
} // namespace ops
