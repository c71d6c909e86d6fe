// LeakyRelu host side: y = x >= 0 ? x : negative_slope * x, fp16/fp32.
// Tiling key 1: negative_slope == 0, the kernel runs a single Relu.
// Tiling key 2: general slope, the kernel splits x into max(x, 0) + slope * min(x, 0).
// Chunks per core are 32-byte aligned; UB holds double-buffered x and y tiles plus one scratch tile.
#include "leaky_relu_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

constexpr uint32_t BLOCK_DIM = 8;       // tilewise: tune BLOCK_DIM in [1, 2, 4, 8, 16, 24, 32, 40, 48]
constexpr uint32_t TILE_LENGTH = 1024;  // tilewise: tune TILE_LENGTH in [128, 256, 512, 1024, 2048, 4096, 8192]

constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t QUEUE_COUNT = 2;     // x in, y out
constexpr uint32_t SCRATCH_TILES = 1;   // min(x, 0) * slope
constexpr uint32_t MAX_BUFFER_NUM = 2;
constexpr uint64_t TILING_KEY_RELU = 1;
constexpr uint64_t TILING_KEY_LEAKY = 2;

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    LeakyReluTilingData tiling;
    uint32_t totalLength = static_cast<uint32_t>(context->GetInputShape(0)->GetOriginShape().GetShapeSize());
    if (totalLength == 0) {
        return ge::GRAPH_FAILED;
    }
    ge::DataType dtype = context->GetInputDesc(0)->GetDataType();
    uint32_t typeSize = (dtype == ge::DT_FLOAT) ? sizeof(float) : sizeof(uint16_t);
    uint32_t alignElems = BLOCK_BYTES / typeSize;
    const float* slopeAttr = context->GetAttrs()->GetAttrPointer<float>(0);
    float negativeSlope = (slopeAttr == nullptr) ? 0.01f : *slopeAttr;

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

    uint32_t maxTile =
        static_cast<uint32_t>(ubSize / ((QUEUE_COUNT * MAX_BUFFER_NUM + SCRATCH_TILES) * typeSize));
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
    tiling.set_negativeSlope(negativeSlope);
    context->SetTilingKey(negativeSlope == 0.0f ? TILING_KEY_RELU : TILING_KEY_LEAKY);
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
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class LeakyRelu : public OpDef {
public:
    explicit LeakyRelu(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("negative_slope").AttrType(OPTIONAL).Float(0.01);

        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(LeakyRelu);
} // namespace ops
