// CastFp32ToFp16 host side: y = (half)x with round-to-nearest-even.
// The narrower output decides the alignment: chunks and tiles are multiples of 16 elements (one 32-byte fp16
// block), and UB is shared between a 4-byte input tile and a 2-byte output tile per buffer.
#include "cast_fp32_to_fp16_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

constexpr uint32_t BLOCK_DIM = 8;       // tilewise: tune BLOCK_DIM in [1, 2, 4, 8, 16, 24, 32, 40, 48]
constexpr uint32_t TILE_LENGTH = 2048;  // tilewise: tune TILE_LENGTH in [256, 512, 1024, 2048, 4096, 8192, 16384]

constexpr uint32_t ALIGN_ELEMS = 32 / sizeof(uint16_t);
constexpr uint32_t BYTES_PER_ELEM = sizeof(float) + sizeof(uint16_t);  // one input slot plus one output slot
constexpr uint32_t MAX_BUFFER_NUM = 2;

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    CastFp32ToFp16TilingData tiling;
    uint32_t totalLength = static_cast<uint32_t>(context->GetInputShape(0)->GetOriginShape().GetShapeSize());
    if (totalLength == 0) {
        return ge::GRAPH_FAILED;
    }

    platform_ascendc::PlatformAscendC ascendcPlatform(context->GetPlatformInfo());
    uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);

    uint32_t blockDim = BLOCK_DIM < coreNum ? BLOCK_DIM : coreNum;
    if (blockDim == 0) {
        blockDim = 1;
    }
    uint32_t perCore = (totalLength + blockDim - 1) / blockDim;
    uint32_t blockLength = (perCore + ALIGN_ELEMS - 1) / ALIGN_ELEMS * ALIGN_ELEMS;
    uint32_t usedCores = (totalLength + blockLength - 1) / blockLength;
    uint32_t lastBlockLength = totalLength - (usedCores - 1) * blockLength;

    uint32_t maxTile = static_cast<uint32_t>(ubSize / (MAX_BUFFER_NUM * BYTES_PER_ELEM));
    uint32_t tileLength = TILE_LENGTH < maxTile ? TILE_LENGTH : maxTile;
    if (tileLength > blockLength) {
        tileLength = blockLength;
    }
    tileLength = tileLength / ALIGN_ELEMS * ALIGN_ELEMS;
    if (tileLength == 0) {
        tileLength = ALIGN_ELEMS;
    }

    tiling.set_totalLength(totalLength);
    tiling.set_blockLength(blockLength);
    tiling.set_lastBlockLength(lastBlockLength);
    tiling.set_tileLength(tileLength);
    context->SetBlockDim(usedCores);
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
    gert::Shape* yShape = context->GetOutputShape(0);
    *yShape = *xShape;
    return GRAPH_SUCCESS;
}

static ge::graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, ge::DT_FLOAT16);
    return ge::GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class CastFp32ToFp16 : public OpDef {
public:
    explicit CastFp32ToFp16(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});

        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(CastFp32ToFp16);
} // namespace ops
