// AddCustom host side: z = x + y for fp16/fp32.
// The flat element range is cut into per-core chunks that are multiples of one 32-byte block, so no two
// cores ever touch the same GM block; only the last core can end on an unaligned length, which the kernel
// moves with DataCopyPad.
#include "add_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

constexpr uint32_t BLOCK_DIM = 48;      // tilewise: tune BLOCK_DIM in [1, 2, 4, 8, 16, 24, 32, 40, 48]
constexpr uint32_t TILE_LENGTH = 4096;  // tilewise: tune TILE_LENGTH in [64, 128, 256, 512, 1024, 2048, 4096, 8192]

constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t QUEUE_COUNT = 3;     // x, y, z each get their own queue
constexpr uint32_t MAX_BUFFER_NUM = 2;  // size UB for double buffering even if the kernel uses fewer

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    AddCustomTilingData tiling;
    uint32_t totalLength = static_cast<uint32_t>(context->GetInputShape(0)->GetOriginShape().GetShapeSize());
    if (totalLength == 0) {
        return ge::GRAPH_FAILED;
    }
    ge::DataType dtype = context->GetInputDesc(0)->GetDataType();
    uint32_t typeSize = (dtype == ge::DT_FLOAT) ? sizeof(float) : sizeof(uint16_t);
    uint32_t alignElems = BLOCK_BYTES / typeSize;

    platform_ascendc::PlatformAscendC ascendcPlatform(context->GetPlatformInfo());
    uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);

    uint32_t blockDim = BLOCK_DIM < coreNum ? BLOCK_DIM : coreNum;
    if (blockDim == 0) {
        blockDim = 1;
    }
    // Round each core's share up to whole blocks; with tiny inputs this can leave trailing cores idle, so
    // the launch shrinks to the cores that actually own data.
    uint32_t perCore = (totalLength + blockDim - 1) / blockDim;
    uint32_t blockLength = (perCore + alignElems - 1) / alignElems * alignElems;
    uint32_t usedCores = (totalLength + blockLength - 1) / blockLength;
    uint32_t lastBlockLength = totalLength - (usedCores - 1) * blockLength;

    uint32_t maxTile = static_cast<uint32_t>(ubSize / (QUEUE_COUNT * MAX_BUFFER_NUM * typeSize));
    uint32_t tileLength = TILE_LENGTH < maxTile ? TILE_LENGTH : maxTile;
    if (tileLength > blockLength) {
        tileLength = blockLength;
    }
    tileLength = tileLength / alignElems * alignElems;
    if (tileLength == 0) {
        tileLength = alignElems;
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
    gert::Shape* zShape = context->GetOutputShape(0);
    *zShape = *xShape;
    return GRAPH_SUCCESS;
}

static ge::graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    const auto inputDataType = context->GetInputDataType(0);
    context->SetOutputDataType(0, inputDataType);
    return ge::GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class AddCustom : public OpDef {
public:
    explicit AddCustom(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("z")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});

        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(AddCustom);
} // namespace ops
