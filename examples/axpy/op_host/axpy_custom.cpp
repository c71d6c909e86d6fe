// AxpyCustom host side: z = alpha * x + y on fp32, alpha a float attribute.
// Work is split in whole 32-byte blocks so core loads differ by at most one block; the last core ends at the
// tensor's real end, which may fall inside a block.
#include "axpy_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

constexpr uint32_t BLOCK_DIM = 8;      // tilewise: tune BLOCK_DIM in [1, 2, 4, 8, 16, 24, 32, 40, 48]
constexpr uint32_t TILE_LENGTH = 512;  // tilewise: tune TILE_LENGTH in [128, 256, 512, 1024, 2048, 4096]

constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t ELEMS_PER_BLOCK = BLOCK_BYTES / sizeof(float);
constexpr uint32_t QUEUE_COUNT = 2;
constexpr uint32_t MAX_BUFFER_NUM = 2;

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    AxpyCustomTilingData tiling;
    const uint32_t totalLength =
        static_cast<uint32_t>(context->GetInputShape(0)->GetOriginShape().GetShapeSize());
    if (totalLength == 0) {
        return ge::GRAPH_FAILED;
    }
    const float* alpha = context->GetAttrs()->GetAttrPointer<float>(0);

    platform_ascendc::PlatformAscendC ascendcPlatform(context->GetPlatformInfo());
    const uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);

    const uint32_t totalBlocks = (totalLength + ELEMS_PER_BLOCK - 1) / ELEMS_PER_BLOCK;
    uint32_t blockDim = BLOCK_DIM < coreNum ? BLOCK_DIM : coreNum;
    if (blockDim > totalBlocks) {
        blockDim = totalBlocks;
    }
    if (blockDim == 0) {
        blockDim = 1;
    }
    const uint32_t smallBlocks = totalBlocks / blockDim;
    const uint32_t formerNum = totalBlocks % blockDim;

    // x and the bound y/z queue, each double-buffered at most.
    const uint32_t maxTile = static_cast<uint32_t>(ubSize / (QUEUE_COUNT * MAX_BUFFER_NUM * sizeof(float)));
    uint32_t tileLength = TILE_LENGTH < maxTile ? TILE_LENGTH : maxTile;
    tileLength = tileLength / ELEMS_PER_BLOCK * ELEMS_PER_BLOCK;
    if (tileLength == 0) {
        tileLength = ELEMS_PER_BLOCK;
    }

    tiling.set_totalLength(totalLength);
    tiling.set_formerNum(formerNum);
    tiling.set_formerLength((smallBlocks + 1) * ELEMS_PER_BLOCK);
    tiling.set_smallLength(smallBlocks * ELEMS_PER_BLOCK);
    tiling.set_tileLength(tileLength);
    tiling.set_alpha(alpha == nullptr ? 1.0f : *alpha);
    context->SetBlockDim(blockDim);
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
class AxpyCustom : public OpDef {
public:
    explicit AxpyCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("alpha").AttrType(OPTIONAL).Float(1.0);

        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(AxpyCustom);
} // namespace ops
