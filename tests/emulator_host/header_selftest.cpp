// Self-test of the host emulation headers' semantics, beyond "the examples compile": tiling-struct layout and
// serialisation, attribute defaults and conversion, OPTIONAL/DYNAMIC input binding, IMPL_OP registration with a
// compile-info struct, default output dtypes, and template-argument tiling keys. Prints "all checks passed".
#include <cstdio>
#include <type_traits>

#include "ascendc/host_api/tiling/template_argument.h"
#include "log/log.h"
#include "register/op_def_registry.h"
#include "tw_host/host_api.h"
#include "util/math_util.h"

static int g_failures = 0;
#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            std::printf("FAILED line %d: %s\n", __LINE__, #cond);              \
            ++g_failures;                                                      \
        }                                                                      \
    } while (0)

// Two template parameters: a 2-bit mode then an 8-bit data type; the first sits in the low bits.
ASCENDC_TPL_ARGS_DECL(SelfTest, ASCENDC_TPL_UINT_DECL(mode, 2, ASCENDC_TPL_UI_LIST, 0, 1, 2),
                      ASCENDC_TPL_DATATYPE_DECL(DT_X, C_DT_FLOAT, C_DT_FLOAT16, ASCENDC_TPL_INPUT(0)), );
ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(mode, ASCENDC_TPL_UI_LIST, 0, 1),
                                     ASCENDC_TPL_DATATYPE_SEL(DT_X, C_DT_FLOAT)));

namespace optiling {
BEGIN_TILING_DATA_DEF(InnerTiling)
TILING_DATA_FIELD_DEF(uint16_t, a);
TILING_DATA_FIELD_DEF(uint64_t, b);
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(SelfTestTiling)
TILING_DATA_FIELD_DEF(uint32_t, total);
TILING_DATA_FIELD_DEF(float, alpha);
TILING_DATA_FIELD_DEF(int64_t, axisCount);
TILING_DATA_FIELD_DEF(uint32_t, dynCount);
TILING_DATA_FIELD_DEF(uint32_t, hasBias);
TILING_DATA_FIELD_DEF_ARR(int64_t, 4, axes);
TILING_DATA_FIELD_DEF_STRUCT(InnerTiling, inner);
END_TILING_DATA_DEF;

// Followed by nothing, as public operators sometimes write it.
REGISTER_TILING_DATA_CLASS(SelfTest, SelfTestTiling)

static ge::graphStatus SelfTestTilingFunc(gert::TilingContext* ctx) {
    SelfTestTiling t;
    t.set_total(static_cast<uint32_t>(ctx->GetInputShape(0)->GetStorageShape().GetShapeSize()));
    OP_CHECK_NULL_WITH_CONTEXT(ctx, ctx->GetAttrs()->GetFloat(0));
    t.set_alpha(*ctx->GetAttrs()->GetFloat(0));
    const auto* axes = ctx->GetAttrs()->GetListInt(1);
    OP_CHECK_IF(axes == nullptr, OP_LOGE(ctx, "no axes"), return ge::GRAPH_FAILED);
    t.set_axisCount(static_cast<int64_t>(axes->GetSize()));
    int64_t buf[4] = {};
    for (size_t i = 0; i < axes->GetSize() && i < 4; ++i) {
        buf[i] = axes->GetData()[i];
    }
    t.set_axes(buf);
    t.set_hasBias(ctx->GetOptionalInputShape(1) != nullptr ? 1 : 0);
    t.set_dynCount(static_cast<uint32_t>(ctx->GetIrInputInstanceInfo(2)->GetInstanceNum()));
    t.get_inner().set_a(7);
    t.get_inner().set_b(Ops::Base::CeilDiv(10, 4));
    ctx->SetBlockDim(3);
    ctx->SetTilingKey(GET_TPL_TILING_KEY(1, 5));
    t.SaveToBuffer(ctx->GetRawTilingData()->GetData(), ctx->GetRawTilingData()->GetCapacity());
    ctx->GetRawTilingData()->SetDataSize(t.GetDataSize());
    ctx->GetWorkspaceSizes(2)[1] = 64;
    return ge::GRAPH_SUCCESS;
}

struct ParsedInfo {
    uint32_t cores = 0;
};
struct PlainTiling {
    int64_t n = 0;
    uint32_t cores = 0;
};
static ge::graphStatus ImplParse(gert::TilingParseContext* ctx) {
    ctx->GetCompiledInfo<ParsedInfo>()->cores =
        platform_ascendc::PlatformAscendC(ctx->GetPlatformInfo()).GetCoreNumAiv();
    return ge::GRAPH_SUCCESS;
}
static ge::graphStatus ImplTiling(gert::TilingContext* ctx) {
    const auto* info = static_cast<const ParsedInfo*>(ctx->GetCompileInfo());
    OP_CHECK_NULL_WITH_CONTEXT(ctx, info);
    PlainTiling* t = ctx->GetTilingData<PlainTiling>();
    t->n = ctx->GetRequiredInputTensor(0)->GetShapeSize();
    t->cores = info->cores;
    ctx->SetBlockDim(info->cores);
    return ge::GRAPH_SUCCESS;
}
IMPL_OP_OPTILING(ImplOnly).Tiling(ImplTiling).TilingParse<ParsedInfo>(ImplParse);
}  // namespace optiling

namespace ops {
class SelfTest : public OpDef {
public:
    explicit SelfTest(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("bias").ParamType(OPTIONAL).DataType({ge::DT_FLOAT16, ge::DT_FLOAT});
        this->Input("rest").ParamType(DYNAMIC).DataType({ge::DT_FLOAT16, ge::DT_FLOAT});
        this->Output("mask").ParamType(REQUIRED).DataType({ge::DT_BOOL, ge::DT_INT8});
        this->Attr("alpha").AttrType(OPTIONAL).Float(0.5);
        this->Attr("axes").AttrType(OPTIONAL).ListInt({0, 1});
        this->Attr("num").Int();
        this->AICore().SetTiling(optiling::SelfTestTilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(SelfTest);
}  // namespace ops

static tw_host::TensorDesc desc(std::vector<int64_t> shape, ge::DataType dt, bool absent = false) {
    tw_host::TensorDesc d;
    d.shape = std::move(shape);
    d.dtype = dt;
    d.absent = absent;
    return d;
}

int main() {
    using tw_host::AttrValue;
    using tw_host::TensorDesc;

    // Tiling struct: plain standard-layout data whose bytes are the object.
    static_assert(std::is_standard_layout_v<optiling::SelfTestTiling>);
    static_assert(std::is_trivially_copyable_v<optiling::SelfTestTiling>);
    optiling::SelfTestTiling t;
    CHECK(t.GetDataSize() == sizeof(t));
    char small[4];
    bool threw = false;
    try {
        t.SaveToBuffer(small, sizeof(small));
    } catch (const std::runtime_error&) {
        threw = true;
    }
    CHECK(threw);
    const tw_host::TilingClassInfo* tc = tw_host::find_tiling_class("SelfTest");
    CHECK(tc != nullptr && tc->size == sizeof(optiling::SelfTestTiling) && tc->class_name == "SelfTestTiling");

    // Shapes.
    static const gert::Shape scalar_like = {1};
    CHECK(scalar_like.GetDimNum() == 1 && gert::Shape().GetShapeSize() == 1);
    gert::Shape s({2, 3});
    s.AppendDim(4);
    CHECK(s.GetShapeSize() == 24 && s != scalar_like && s.GetDim(7) == gert::Shape::kInvalidDimValue);

    // Registration and OpInfo.
    const auto ops = tw_host::registered_ops();
    CHECK(ops.size() == 2);
    const tw_host::OpInfo* info = tw_host::find_op("SelfTest");
    CHECK(info != nullptr && info->inputs.size() == 3 && info->attrs.size() == 3);
    CHECK(tw_host::find_op("Nope") == nullptr);

    // x present, bias absent, three dynamic tensors; alpha given as an int, num never given.
    const std::vector<TensorDesc> inputs = {
        desc({4, 8}, ge::DT_FLOAT), desc({}, ge::DT_FLOAT, true),
        desc({8}, ge::DT_FLOAT), desc({8}, ge::DT_FLOAT), desc({8}, ge::DT_FLOAT),
    };
    const std::vector<std::pair<std::string, AttrValue>> attrs = {{"alpha", AttrValue::Int(2)}};
    const auto outs = tw_host::infer_outputs(*info, inputs, attrs);
    CHECK(outs.size() == 1 && outs[0].shape == std::vector<int64_t>({4, 8}));
    CHECK(outs[0].dtype == ge::DT_INT8);  // column of DT_FLOAT in x's list
    const auto r = tw_host::run_tiling(*info, inputs, outs, attrs, tw_host::PlatformDesc{});
    CHECK(r.status == ge::GRAPH_SUCCESS && r.error.empty());
    CHECK(r.block_dim == 3 && r.tiling_key == (1u | (5u << 2)));
    CHECK(r.workspace_sizes == std::vector<size_t>({0, 64}));
    CHECK(r.tiling_data.size() == sizeof(optiling::SelfTestTiling));
    optiling::SelfTestTiling back;
    std::memcpy(&back, r.tiling_data.data(), sizeof(back));
    CHECK(back.total == 32 && back.alpha == 2.0f && back.axisCount == 2 && back.axes[1] == 1);
    CHECK(back.hasBias == 0 && back.dynCount == 3 && back.inner.a == 7 && back.inner.b == 3);

    // A missing required input is an error, not a crash.
    const auto bad = tw_host::run_tiling(*info, {}, outs, attrs, tw_host::PlatformDesc{});
    CHECK(bad.status != ge::GRAPH_SUCCESS && !bad.error.empty());

    // IMPL_OP_OPTILING-only operator with a compile-info struct and a plain-struct tiling.
    const tw_host::OpInfo* impl = tw_host::find_op("ImplOnly");
    CHECK(impl != nullptr && impl->tiling != nullptr && impl->tiling_parse != nullptr);
    tw_host::PlatformDesc chip;
    chip.vector_cores = 40;
    const auto ri = tw_host::run_tiling(*impl, {desc({5, 6}, ge::DT_FLOAT16)}, {desc({5, 6}, ge::DT_FLOAT16)}, {}, chip);
    CHECK(ri.status == ge::GRAPH_SUCCESS && ri.block_dim == 40 && ri.tiling_data.size() == sizeof(optiling::PlainTiling));

    // Template tiling keys round-trip.
    const auto decoded = tw_tpl::DecodeTilingKey(g_tilingDeclareParams, GET_TPL_TILING_KEY(2, C_DT_FLOAT16));
    CHECK(decoded == std::vector<uint64_t>({2, 1}));
    CHECK(g_tilingSelectParams.size() == 1);

    if (g_failures == 0) {
        std::printf("all checks passed\n");
    }
    return g_failures == 0 ? 0 : 1;
}
