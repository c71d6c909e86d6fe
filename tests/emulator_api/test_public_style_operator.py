"""End to end through `tilewise run`'s build: an operator written for this test in the style of public CANN
operators, combining the API surface added for them. The host tiling derives from TilingBaseClass, checks its
input with OP_TILING_CHECK, asks the platform manager for the core count, and its tiling header includes only
register/tilingdata_base.h yet declares a compile-info struct of ge / gert types (the header reaches the kernel
translation unit too). The kernel uses float32_t, a constexpr half constant, get_block_idx(), the legacy burst
copies and vadd / vmuls on UB addresses with set_flag / wait_flag, and a high-level Tanh."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tilewise.analysis.manifest import Case, InputSpec
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import RunRequest

TILING_H = """\
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(TanhAddTilingData)
    TILING_DATA_FIELD_DEF(uint32_t, perBlock);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(TanhAdd, TanhAddTilingData)
struct TanhAddCompileInfo {
    ge::DataType dtype;
    gert::Shape shape;
};
}
"""

HOST = """\
#include "tanh_add_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/tiling_base.h"
#include "platform/platform_info.h"
#include "log/ops_log.h"
namespace optiling {
class TanhAddTiling : public TilingBaseClass {
public:
    explicit TanhAddTiling(gert::TilingContext* context) : TilingBaseClass(context) {}
protected:
    bool IsCapable() override { return true; }
    ge::graphStatus GetShapeAttrsInfo() override {
        total_ = context_->GetInputShape(0)->GetStorageShape().GetShapeSize();
        OP_TILING_CHECK(total_ % 64 != 0, OP_LOGE(context_, "length %ld is not a multiple of 64", total_),
                        return ge::GRAPH_FAILED);
        return ge::GRAPH_SUCCESS;
    }
    ge::graphStatus GetPlatformInfo() override {
        fe::PlatFormInfos info;
        fe::OptionalInfos opt;
        fe::PlatformInfoManager::Instance().GetPlatformInfoWithOutSocVersion(info, opt);
        std::string cores;
        OP_CHECK_IF(!info.GetPlatformResWithLock("SoCInfo", "vector_core_cnt", cores),
                    OP_LOGE(context_, "no core count"), return ge::GRAPH_FAILED);
        cores_ = std::stoul(cores);
        return ge::GRAPH_SUCCESS;
    }
    ge::graphStatus DoOpTiling() override {
        blockDim_ = 1;
        while (blockDim_ * 2 <= cores_ && total_ % (blockDim_ * 2 * 64) == 0 && blockDim_ < 4) blockDim_ *= 2;
        return ge::GRAPH_SUCCESS;
    }
    ge::graphStatus DoLibApiTiling() override { return ge::GRAPH_SUCCESS; }
    uint64_t GetTilingKey() const override { return 0; }
    ge::graphStatus GetWorkspaceSize() override { return ge::GRAPH_SUCCESS; }
    ge::graphStatus PostTiling() override {
        TanhAddTilingData tiling;
        tiling.set_perBlock(static_cast<uint32_t>(total_ / blockDim_));
        tiling.SaveToBuffer(context_->GetRawTilingData()->GetData(), context_->GetRawTilingData()->GetCapacity());
        context_->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
        context_->SetBlockDim(blockDim_);
        context_->GetWorkspaceSizes(1)[0] = 0;
        return ge::GRAPH_SUCCESS;
    }
private:
    int64_t total_ = 0;
    uint64_t cores_ = 0;
};
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    TanhAddTiling tiling(context);
    return tiling.DoTiling();
}
}
namespace ops {
class TanhAdd : public OpDef {
public:
    explicit TanhAdd(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(TanhAdd);
}
"""

KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;
constexpr half MIN_VALUE = static_cast<half>(-65504.0f);
constexpr uint32_t TILE = 64;

// z = tanh(x) + 2 * y, one 64-float tile at a time, with the legacy intrinsics for copies and the vector ops.
extern "C" __global__ __aicore__ void tanh_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 3 * TILE * sizeof(float32_t));
    LocalTensor<float32_t> xl = buf.Get<float32_t>(TILE);
    LocalTensor<float32_t> yl = buf.GetWithOffset<float32_t>(TILE, TILE * sizeof(float32_t));
    LocalTensor<float32_t> zl = buf.GetWithOffset<float32_t>(TILE, 2 * TILE * sizeof(float32_t));
    const uint64_t base = get_block_idx() * t.perBlock;
    __gm__ float32_t* xg = reinterpret_cast<__gm__ float32_t*>(x) + base;
    __gm__ float32_t* yg = reinterpret_cast<__gm__ float32_t*>(y) + base;
    __gm__ float32_t* zg = reinterpret_cast<__gm__ float32_t*>(z) + base;
    const uint16_t blocks = TILE * sizeof(float32_t) / 32;
    set_vector_mask(~0ull, ~0ull);
    for (uint32_t off = 0; off < t.perBlock; off += TILE) {
        copy_gm_to_ubuf((__ubuf__ float32_t*)xl.GetPhyAddr(), xg + off, 0, 1, blocks, 0, 0);
        copy_gm_to_ubuf((__ubuf__ float32_t*)yl.GetPhyAddr(), yg + off, 0, 1, blocks, 0, 0);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        Tanh(zl, xl, TILE);
        pipe_barrier(PIPE_V);
        vmuls((__ubuf__ float32_t*)yl.GetPhyAddr(), (__ubuf__ float32_t*)yl.GetPhyAddr(), 2.0f, 1, 1, 1, 8, 8);
        pipe_barrier(PIPE_V);
        vadd((__ubuf__ float32_t*)zl.GetPhyAddr(), (__ubuf__ float32_t*)zl.GetPhyAddr(),
             (__ubuf__ float32_t*)yl.GetPhyAddr(), 1, 1, 1, 1, 8, 8, 8);
        Maxs(zl, zl, static_cast<float32_t>(MIN_VALUE), TILE);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        copy_ubuf_to_gm(zg + off, (__ubuf__ float32_t*)zl.GetPhyAddr(), 0, 1, blocks, 0, 0);
        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    }
}
"""

GOLDEN = "import numpy as np\ndef golden(x, y):\n    return np.tanh(x) + 2 * y\n"


def test_public_style_operator_runs_and_matches(tmp_path: Path, emu_cache, needs_gxx):
    root = tmp_path / "tanh_add"
    for rel, text in {
        "op_kernel/tanh_add_tiling.h": TILING_H,
        "op_host/tanh_add.cpp": HOST,
        "op_kernel/tanh_add.cpp": KERNEL,
        "golden.py": GOLDEN,
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    case = Case(
        name="c",
        inputs={"x": InputSpec(shape=[4, 128], dtype="float32"), "y": InputSpec(shape=[4, 128], dtype="float32")},
    )
    device = EmulatorDevice(cache_dir=emu_cache, timeout_s=120)
    m = device.run(load_operator(root), RunRequest(case, golden=str(root / "golden.py:golden")))
    assert m.ok and m.correct, m.error
    assert m.block_dim == 4  # 512 elements in 64-element tiles over the platform's cores, capped at 4
    assert np.isfinite(m.time_us) and m.pipes["vector"].busy_us > 0 and m.pipes["mte2"].busy_us > 0
