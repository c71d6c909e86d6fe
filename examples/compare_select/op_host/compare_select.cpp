// CompareSelect host side: z = (x > y) ? x : y for fp16/fp32, built from Compare + Select rather than Max.
// Per-core chunks are 32-byte aligned; tiles are whole 256-byte repeats so the kernel can round a short tile up
// to full repeats for Compare/Select without leaving its UB buffers.
#include "compare_select_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

constexpr uint32_t BLOCK_DIM = 8;       // tilewise: tune BLOCK_DIM in [1, 2, 4, 8, 16, 24, 32, 40, 48]
constexpr uint32_t TILE_LENGTH = 1024;  // tilewise: tune TILE_LENGTH in [128, 256, 512, 1024, 2048, 4096, 8192]

constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t REPEAT_BYTES = 256;
constexpr uint32_t QUEUE_COUNT = 3;
constexpr uint32_t MAX_BUFFER_NUM = 2;

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    CompareSelectTilingData tiling;
    uint32_t totalLength = static_cast<uint32_t>(context->GetInputShape(0)->GetOriginShape().GetShapeSize());
    if (totalLength == 0) {
        return ge::GRAPH_FAILED;
    }
    ge::DataType dtype = context->GetInputDesc(0)->GetDataType();
    uint32_t typeSize = (dtype == ge::DT_FLOAT) ? sizeof(float) : sizeof(uint16_t);
    uint32_t alignElems = BLOCK_BYTES / typeSize;
    uint32_t repeatElems = REPEAT_BYTES / typeSize;

    platform_ascendc::PlatformAscendC ascendcPlatform(context->GetPlatformInfo());
    uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);

    uint32_t blockDim = BLOCK_DIM < coreNum ? BLOCK_DIM : coreNum;
    if (blockDim == 0) {
        blockDim = 1;
    }
    uint32_t perCore = (totalLength + blockDim - 1) / blockDim;
    uint32_t blockLength = (perCore + alignElems - 1) / alignElems * alignElems;
    uint32_t usedCores = (totalLength + blockLength - 1) / blockLength;
    uint32_t lastBlockLength = totalLength - (usedCores - 1) * blockLength;

    // Besides the double-buffered x/y/z tiles the kernel keeps a one-bit-per-element select mask; charging a
    // whole byte per element for it keeps the estimate safe.
    uint32_t maxTile = static_cast<uint32_t>(ubSize / (QUEUE_COUNT * MAX_BUFFER_NUM * typeSize + 1));
    uint32_t tileLength = TILE_LENGTH < maxTile ? TILE_LENGTH : maxTile;
    uint32_t coreCeil = (blockLength + repeatElems - 1) / repeatElems * repeatElems;
    if (tileLength > coreCeil) {
        tileLength = coreCeil;
    }
    tileLength = tileLength / repeatElems * repeatElems;
    if (tileLength == 0) {
        tileLength = repeatElems;
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
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class CompareSelect : public OpDef {
public:
    explicit CompareSelect(const char* name) : OpDef(name)
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
OP_ADD(CompareSelect);
} // namespace ops
