// Self-test of the host tiling infrastructure that CANN-style operators build on: a tiling header that includes only
// register/tilingdata_base.h yet uses ge:: and gert:: types, tiling/tiling_base.h's TilingBaseClass driving its
// steps, platform/platform_info.h's manager and string-keyed platform queries, and the check macros returning the
// given value. Prints "all checks passed".

// ---- what a tiling header of this shape contains (nothing else included before it) ----
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(InfraTiling)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, cores);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(Infra, InfraTiling)

struct InfraCompileInfo {
    ge::DataType dtype = ge::DT_FLOAT;
    gert::Shape maxShape;
};
inline int64_t RowsOf(const gert::TilingContext* ctx) { return ctx->GetInputShape(0)->GetStorageShape().GetDim(0); }
inline ge::Shape AsGeShape(const gert::Shape& s) {
    std::vector<int64_t> dims;
    for (size_t i = 0; i < s.GetDimNum(); ++i) {
        dims.push_back(s.GetDim(i));
    }
    return ge::Shape(dims);
}
}  // namespace optiling

// ---- the tiling implementation ----
#include <cstdio>
#include <string>
#include <vector>

#include "log/ops_log.h"
#include "platform/platform_info.h"
#include "register/op_def_registry.h"
#include "tiling/tiling_base.h"
#include "tw_host/host_api.h"

static int g_failures = 0;
#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            std::printf("FAILED line %d: %s\n", __LINE__, #cond);              \
            ++g_failures;                                                      \
        }                                                                      \
    } while (0)

static std::vector<std::string> g_steps;  // the steps DoTiling ran, in order
static std::string g_fail_at;             // the step that reports failure ("" for none)
static bool g_capable = true;

namespace optiling {

class InfraTilingClass : public TilingBaseClass {
public:
    explicit InfraTilingClass(gert::TilingContext* ctx) : TilingBaseClass(ctx) {}

protected:
    ge::graphStatus step(const char* name) {
        g_steps.push_back(name);
        return g_fail_at == name ? ge::GRAPH_FAILED : ge::GRAPH_SUCCESS;
    }
    bool IsCapable() override {
        g_steps.push_back("IsCapable");
        return g_capable;
    }
    ge::graphStatus GetShapeAttrsInfo() override {
        rows_ = static_cast<uint32_t>(RowsOf(context_));
        cols_ = static_cast<uint32_t>(context_->GetInputShape(0)->GetStorageShape().GetDim(1));
        OP_TILING_CHECK(cols_ == 0, OP_LOGE(context_, "cols is 0"), return ge::GRAPH_PARAM_INVALID);
        return step("GetShapeAttrsInfo");
    }
    ge::graphStatus GetPlatformInfo() override {
        ascendcPlatform_.reset(new platform_ascendc::PlatformAscendC(context_->GetPlatformInfo()));
        aicoreParams_.blockDim = ascendcPlatform_->GetCoreNumAiv();
        return step("GetPlatformInfo");
    }
    ge::graphStatus DoOpTiling() override {
        blockDim_ = static_cast<uint32_t>(aicoreParams_.blockDim < rows_ ? aicoreParams_.blockDim : rows_);
        return step("DoOpTiling");
    }
    ge::graphStatus DoLibApiTiling() override { return step("DoLibApiTiling"); }
    uint64_t GetTilingKey() const override { return 100 + cols_ % 7; }
    ge::graphStatus GetWorkspaceSize() override {
        workspaceSize_ = 1024;
        return step("GetWorkspaceSize");
    }
    ge::graphStatus PostTiling() override {
        InfraTiling t;
        t.set_rows(rows_);
        t.set_cols(cols_);
        t.set_cores(blockDim_);
        t.SaveToBuffer(context_->GetRawTilingData()->GetData(), context_->GetRawTilingData()->GetCapacity());
        context_->GetRawTilingData()->SetDataSize(t.GetDataSize());
        context_->SetBlockDim(blockDim_);
        context_->GetWorkspaceSizes(1)[0] = workspaceSize_;
        return step("PostTiling");
    }

private:
    uint32_t rows_ = 0;
    uint32_t cols_ = 0;
};

static ge::graphStatus InfraTilingFunc(gert::TilingContext* ctx) {
    InfraTilingClass tiling(ctx);
    return tiling.DoTiling();
}

// Asks the process-wide platform manager rather than the context, as some tiling code does.
static ge::graphStatus PlatformQueryTiling(gert::TilingContext* ctx) {
    fe::PlatFormInfos info;
    fe::OptionalInfos opt;
    OPS_CHECK(fe::PlatformInfoManager::Instance().GetPlatformInfoWithOutSocVersion(info, opt) != 0,
              OPS_LOG_E(ctx, "no platform"), return ge::GRAPH_FAILED);
    std::string vec, ub, arch, nope = "unchanged";
    CHECK(info.GetPlatformResWithLock("SoCInfo", "vector_core_cnt", vec));
    CHECK(info.GetPlatformResWithLock("AICoreSpec", "ub_size", ub));
    CHECK(info.GetPlatformResWithLock("version", "NpuArch", arch) && arch == "2201");
    CHECK(!info.GetPlatformResWithLock("AICoreSpec", "no_such_key", nope) && nope == "unchanged");
    uint64_t ub_bytes = 0;
    info.GetLocalMemSize(static_cast<fe::LocalMemType>(platform_ascendc::CoreMemType::UB), ub_bytes);
    CHECK(ub == std::to_string(ub_bytes));
    CHECK(opt.GetSocVersion() == info.soc_version);
    ctx->SetBlockDim(static_cast<uint32_t>(std::stoul(vec)));
    ctx->SetTilingKey(ub_bytes);
    return ge::GRAPH_SUCCESS;
}

}  // namespace optiling

namespace ops {
class Infra : public OpDef {
public:
    explicit Infra(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::InfraTilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(Infra);
class PlatformQuery : public OpDef {
public:
    explicit PlatformQuery(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::PlatformQueryTiling).AddConfig("ascend910b");
    }
};
OP_ADD(PlatformQuery);
}  // namespace ops

static tw_host::TensorDesc desc(std::vector<int64_t> shape) {
    tw_host::TensorDesc d;
    d.shape = std::move(shape);
    d.dtype = ge::DT_FLOAT;
    return d;
}

// The check macros: the condition is evaluated once; on failure the log runs and the given statement returns.
static int g_evaluated = 0;
static int checked(int v) {
    OP_CHECK_IF((++g_evaluated, v < 0), OP_LOGE("checked", "negative %d", v), return -1);
    OPS_CHECK(v == 0, OPS_LOG_E("checked", "zero"), return -2);
    OP_TILING_CHECK(v > 100, VECTOR_INNER_ERR_REPORT_TILIING("checked", "too big"), return -3);
    OP_CHECK_IF(v == 7, OP_LOGE_FOR_INVALID_VALUE_WITH_REASON("checked", "v", std::to_string(v).c_str(), "is 7"),
                return -4);
    OP_CHECK_IF(v == 8, OP_LOGE_WITHOUT_REPORT("checked", "eight: %d", v), return -5);
    return v;
}

int main() {
    tw_host::PlatformDesc chip;
    chip.vector_cores = 40;
    chip.ub_bytes = 192 * 1024;
    const tw_host::OpInfo* info = tw_host::find_op("Infra");
    CHECK(info != nullptr);

    // Every step in the documented order; the key, block dim, workspace and tiling data reach the context.
    auto r = tw_host::run_tiling(*info, {desc({12, 9})}, {desc({12, 9})}, {}, chip);
    CHECK(r.status == ge::GRAPH_SUCCESS);
    CHECK((g_steps == std::vector<std::string>{"GetShapeAttrsInfo", "GetPlatformInfo", "IsCapable", "DoOpTiling",
                                               "DoLibApiTiling", "GetWorkspaceSize", "PostTiling"}));
    CHECK(r.tiling_key == 102 && r.block_dim == 12 && r.workspace_sizes == std::vector<size_t>({1024}));
    optiling::InfraTiling back;
    CHECK(r.tiling_data.size() == sizeof(back));
    std::memcpy(&back, r.tiling_data.data(), sizeof(back));
    CHECK(back.rows == 12 && back.cols == 9 && back.cores == 12);

    // More rows than cores: the platform's 40 vector cores cap the block dim.
    r = tw_host::run_tiling(*info, {desc({100, 9})}, {desc({100, 9})}, {}, chip);
    CHECK(r.block_dim == 40);

    // A failing step ends the run with its status; later steps and the tiling key do not happen.
    g_steps.clear();
    g_fail_at = "DoOpTiling";
    r = tw_host::run_tiling(*info, {desc({12, 9})}, {desc({12, 9})}, {}, chip);
    CHECK(r.status == ge::GRAPH_FAILED && r.tiling_key == 0);
    CHECK((g_steps == std::vector<std::string>{"GetShapeAttrsInfo", "GetPlatformInfo", "IsCapable", "DoOpTiling"}));
    g_fail_at.clear();

    // Not capable: GRAPH_PARAM_INVALID before DoOpTiling.
    g_steps.clear();
    g_capable = false;
    r = tw_host::run_tiling(*info, {desc({12, 9})}, {desc({12, 9})}, {}, chip);
    CHECK(r.status == ge::GRAPH_PARAM_INVALID && g_steps.back() == "IsCapable");
    g_capable = true;

    // OP_TILING_CHECK inside a step returns its own value.
    g_steps.clear();
    r = tw_host::run_tiling(*info, {desc({12, 0})}, {desc({12, 0})}, {}, chip);
    CHECK(r.status == ge::GRAPH_PARAM_INVALID && g_steps.empty());

    // The platform manager answers with the platform of the operator being tiled.
    const tw_host::OpInfo* pq = tw_host::find_op("PlatformQuery");
    r = tw_host::run_tiling(*pq, {desc({4})}, {desc({4})}, {}, chip);
    CHECK(r.status == ge::GRAPH_SUCCESS && r.block_dim == 40 && r.tiling_key == 192 * 1024);

    // ge::Shape.
    ge::Shape s({2, 3, 4});
    CHECK(s.GetDimNum() == 3 && s.GetShapeSize() == 24 && s.GetDim(1) == 3 && s.GetDim(5) == 0);
    CHECK(s.SetDim(2, 5) == ge::GRAPH_SUCCESS && s.GetShapeSize() == 30 && s.SetDim(3, 1) == ge::GRAPH_FAILED);
    CHECK(ge::Shape({2, -1}).IsUnknownShape() && ge::Shape({2, -1}).GetShapeSize() == -1);
    CHECK(ge::Shape().IsScalar() && ge::Shape().GetShapeSize() == 1);
    CHECK(optiling::AsGeShape(gert::Shape({6, 7})).GetDims() == std::vector<int64_t>({6, 7}));

    // Check macros.
    CHECK(checked(-5) == -1 && checked(0) == -2 && checked(101) == -3 && checked(42) == 42);
    CHECK(checked(7) == -4 && checked(8) == -5);
    CHECK(g_evaluated == 6);

    if (g_failures == 0) {
        std::printf("all checks passed\n");
    }
    return g_failures == 0 ? 0 : 1;
}
