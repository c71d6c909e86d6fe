"""The CANN opbase helpers ops-math operators include (op_host/tiling_base_util.h, op_host/util/shape_util.h and
const_util.h, op_kernel/math_util.h and platform_util.h, platform/platform_ascendc.h), found by the include paths
the build gives (the emulator's op_common/ folder, as opbase's package puts it on the path): a self-test program on
hand-worked values, and a small operator written for this test whose tiling reads its constant inputs with them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tilewise.analysis.manifest import Case, InputSpec
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.emulator.build import INCLUDE_DIR
from tilewise.device.protocol import RunRequest

HERE = Path(__file__).resolve().parents[1] / "emulator_host"


def test_opbase_helpers_selftest(tmp_path, needs_gxx):
    exe = tmp_path / "opbase"
    proc = subprocess.run(
        [
            shutil.which("g++"),
            "-std=c++17",
            "-O0",
            "-Wall",
            "-I",
            str(INCLUDE_DIR),
            "-I",
            str(INCLUDE_DIR / "op_common"),
            str(HERE / "opbase_util_selftest.cpp"),
            "-o",
            str(exe),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, "\n".join(proc.stderr.splitlines()[:40])
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "all checks passed" in run.stdout, run.stdout + run.stderr
    assert "[E] a message alone: " in run.stderr.splitlines() and "[E] node: with a format" in run.stderr.splitlines()


HOST = """\
#include "register/op_def_registry.h"
#include "op_host/tiling_base_util.h"
#include "op_host/util/const_util.h"
#include "op_host/util/shape_util.h"
#include "platform/platform_ascendc.h"
#include "util/math_util.h"
namespace optiling {
struct ConstScaleTiling {
    uint32_t total;
    uint32_t per;
    int64_t k;
};
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    if (Ops::Base::IsRegbaseSocVersion(context)) {
        return ge::GRAPH_FAILED;  // only the A2/A3 kernel exists
    }
    const gert::Shape& xs = Ops::Base::EnsureNotScalar(context->GetInputShape(0)->GetStorageShape());
    int64_t k = 0;
    gert::Shape view;
    if (!Ops::Base::GetConstInt(context, 1, k) || !Ops::Base::GetConstIntToShape(context, 2, view) ||
        view.GetShapeSize() != xs.GetShapeSize() || !Ops::Base::CheckAxisBounds(view.GetDimNum(), -2)) {
        return ge::GRAPH_FAILED;
    }
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    auto* t = context->GetTilingData<ConstScaleTiling>();
    t->total = static_cast<uint32_t>(xs.GetShapeSize());
    t->per = Ops::Base::CeilAlign(Ops::Base::CeilDiv(t->total, platform.GetCoreNum()), 8u);
    t->k = k;
    context->SetBlockDim(Ops::Base::CeilDiv(t->total, t->per));
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}
namespace ops {
class ConstScale : public OpDef {
public:
    explicit ConstScale(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("k").ParamType(REQUIRED).DataType({ge::DT_INT64}).Format({ge::FORMAT_ND}).ValueDepend(REQUIRED);
        this->Input("view").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND}).ValueDepend(REQUIRED);
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(ConstScale);
}
"""

KERNEL = """\
#include "kernel_operator.h"
#include "op_kernel/math_util.h"
#include "op_kernel/platform_util.h"
using namespace AscendC;
struct ConstScaleTiling {
    uint32_t total;
    uint32_t per;
    int64_t k;
};
extern "C" __global__ __aicore__ void const_scale(GM_ADDR x, GM_ADDR k, GM_ADDR view, GM_ADDR y, GM_ADDR workspace,
                                                 GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(ConstScaleTiling, t, tiling);
    const uint32_t start = GetBlockIdx() * t.per;
    if (start >= t.total) {
        return;
    }
    const uint32_t n = t.total - start < t.per ? t.total - start : t.per;
    constexpr uint32_t perBlock = Ops::Base::GetUbBlockSize() / sizeof(float);
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, Ops::Base::CeilAlign(n, perBlock) * sizeof(float));
    LocalTensor<float> v = buf.Get<float>();
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x + start, n);
    yg.SetGlobalBuffer((__gm__ float*)y + start, n);
    DataCopy(v, xg, n);
    PipeBarrier<PIPE_ALL>();
    Muls(v, v, static_cast<float>(t.k), n);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, v, n);
}
"""


@pytest.mark.parametrize("k", [3, -2])
def test_tiling_reads_constant_inputs_with_opbase_helpers(tmp_path, emu_cache, needs_gxx, k):
    root = tmp_path / "const_scale"
    for rel, text in {"op_host/const_scale.cpp": HOST, "op_kernel/const_scale.cpp": KERNEL}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "golden.py").write_text("def golden(x, k, view):\n    return x * k[0]\n")
    case = Case(
        name="c",
        inputs={
            "x": InputSpec(shape=[10, 100], dtype="float32"),
            "k": InputSpec(shape=[1], dtype="int64"),
            "view": InputSpec(shape=[2], dtype="int32"),
        },
    )
    device = EmulatorDevice(cache_dir=emu_cache, timeout_s=60)
    inputs = {"k": np.array([k], dtype=np.int64), "view": np.array([25, 40], dtype=np.int32)}
    m = device.run(load_operator(root), RunRequest(case, golden=str(root / "golden.py:golden"), inputs=inputs))
    assert m.ok and m.correct, m.error
    # 910B2's 48 vector cores: CeilAlign(CeilDiv(1000, 48), 8) = 24 elements a block, so 42 blocks
    assert m.chip == "910B2" and m.block_dim == 42
    # a view whose size is not x's makes GetConstIntToShape's shape fail the tiling's check
    inputs["view"] = np.array([25, 41], dtype=np.int32)
    m = device.run(load_operator(root), RunRequest(case, golden=str(root / "golden.py:golden"), inputs=inputs))
    assert not m.ok


CLASS_HOST = """\
#include "register/op_def_registry.h"
#include "op_host/tiling_base_class.h"
#include "op_host/util/const_util.h"
#include "util/math_util.h"
namespace optiling {
struct ConstScaleTiling {
    uint32_t total;
    uint32_t per;
    int64_t k;
};
class ConstScaleTilingClass : public Ops::Base::TilingBaseClass {
public:
    explicit ConstScaleTilingClass(gert::TilingContext* context) : Ops::Base::TilingBaseClass(context) {}
protected:
    bool IsCapable() override { return true; }
    ge::graphStatus GetShapeAttrsInfo() override
    {
        total_ = static_cast<uint32_t>(context_->GetInputShape(0)->GetStorageShape().GetShapeSize());
        const std::string x = GetTensorDebugStr(context_->GetInputShape(0), context_->GetInputDesc(0));
        if (x.find("(dtype: DT_FLOAT)") == std::string::npos || x.find("(shape:[10, 100])") == std::string::npos) {
            return ge::GRAPH_FAILED;
        }
        return Ops::Base::GetConstInt(context_, 1, k_) ? ge::GRAPH_SUCCESS : ge::GRAPH_FAILED;
    }
    ge::graphStatus GetPlatformInfo() override
    {
        auto platform = platform_ascendc::PlatformAscendC(context_->GetPlatformInfo());
        aicoreParams_.numBlocks = platform.GetCoreNumAiv();
        return ge::GRAPH_SUCCESS;
    }
    ge::graphStatus DoOpTiling() override
    {
        per_ = Ops::Base::CeilAlign(Ops::Base::CeilDiv<uint64_t>(total_, aicoreParams_.numBlocks), 8UL);
        blockDim_ = static_cast<uint32_t>(Ops::Base::CeilDiv<uint64_t>(total_, per_));
        return ge::GRAPH_SUCCESS;
    }
    ge::graphStatus DoLibApiTiling() override { return ge::GRAPH_SUCCESS; }
    uint64_t GetTilingKey() const override { return 7; }
    ge::graphStatus GetWorkspaceSize() override { return ge::GRAPH_SUCCESS; }
    ge::graphStatus PostTiling() override
    {
        auto* t = context_->GetTilingData<ConstScaleTiling>();
        t->total = total_;
        t->per = static_cast<uint32_t>(per_);
        t->k = k_;
        context_->SetBlockDim(blockDim_);
        context_->GetWorkspaceSizes(1)[0] = 0;
        return ge::GRAPH_SUCCESS;
    }
private:
    uint32_t total_ = 0;
    uint64_t per_ = 0;
    int64_t k_ = 0;
};
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    ConstScaleTilingClass tiling(context);
    return tiling.DoTiling();
}
}
""" + HOST[HOST.index("namespace ops {") :]


def test_opbase_tiling_base_class_drives_the_steps(tmp_path, emu_cache, needs_gxx):
    root = tmp_path / "const_scale"
    for rel, text in {"op_host/const_scale.cpp": CLASS_HOST, "op_kernel/const_scale.cpp": KERNEL}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "golden.py").write_text("def golden(x, k, view):\n    return x * k[0]\n")
    case = Case(
        name="c",
        inputs={
            "x": InputSpec(shape=[10, 100], dtype="float32"),
            "k": InputSpec(shape=[1], dtype="int64"),
            "view": InputSpec(shape=[2], dtype="int32"),
        },
    )
    device = EmulatorDevice(cache_dir=emu_cache, timeout_s=60)
    inputs = {"k": np.array([5], dtype=np.int64), "view": np.array([25, 40], dtype=np.int32)}
    m = device.run(load_operator(root), RunRequest(case, golden=str(root / "golden.py:golden"), inputs=inputs))
    assert m.ok and m.correct, m.error
    assert m.chip == "910B2" and m.block_dim == 42 and m.tiling_key == 7


BCAST_HOST = """\
#include "register/op_def_registry.h"
#include "op_host/infershape_broadcast_util.h"
namespace optiling {
struct OuterAddTiling {
    uint32_t a;
    uint32_t b;
    uint32_t c;
};
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const auto& x = context->GetInputShape(0)->GetStorageShape();
    const auto& y = context->GetInputShape(1)->GetStorageShape();
    auto* t = context->GetTilingData<OuterAddTiling>();
    t->a = x.GetDim(0);
    t->b = y.GetDim(1);
    t->c = x.GetDim(2);
    context->SetBlockDim(1);
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}
namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context) { return Ops::Base::InferShape4Broadcast(context); }
}
namespace ops {
class OuterAdd : public OpDef {
public:
    explicit OuterAdd(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(OuterAdd);
}
"""

BCAST_KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;
struct OuterAddTiling {
    uint32_t a;
    uint32_t b;
    uint32_t c;
};
extern "C" __global__ __aicore__ void outer_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(OuterAddTiling, t, tiling);
    GlobalTensor<float> xg, yg, zg;
    xg.SetGlobalBuffer((__gm__ float*)x, t.a * t.c);
    yg.SetGlobalBuffer((__gm__ float*)y, t.b * t.c);
    zg.SetGlobalBuffer((__gm__ float*)z, t.a * t.b * t.c);
    for (uint32_t i = 0; i < t.a; ++i) {
        for (uint32_t j = 0; j < t.b; ++j) {
            for (uint32_t k = 0; k < t.c; ++k) {
                zg.SetValue((i * t.b + j) * t.c + k, xg.GetValue(i * t.c + k) + yg.GetValue(j * t.c + k));
            }
        }
    }
}
"""


def test_infer_shape_4_broadcast_gives_the_callers_shape(tmp_path, emu_cache, needs_gxx):
    root = tmp_path / "outer_add"
    for rel, text in {"op_host/outer_add.cpp": BCAST_HOST, "op_kernel/outer_add.cpp": BCAST_KERNEL}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "golden.py").write_text("def golden(x, y):\n    return x + y\n")
    case = Case(
        name="c",
        inputs={"x": InputSpec(shape=[4, 1, 8], dtype="float32"), "y": InputSpec(shape=[1, 5, 8], dtype="float32")},
    )
    m = EmulatorDevice(cache_dir=emu_cache, timeout_s=60).run(
        load_operator(root), RunRequest(case, golden=str(root / "golden.py:golden"))
    )
    assert m.ok and m.correct, m.error
    assert m.outputs[0].shape == [4, 5, 8]
    assert not [w for w in m.warnings if w.kind == "infer_shape"]  # InferShape agreed with the golden's shape


ADV_API_USER = """\
#include "adv_api/math/sign.h"
#include "adv_api/pad/broadcast.h"
using namespace AscendC;
void UseAdvancedApi(LocalTensor<float>& dst, LocalTensor<float>& src)
{
    Sign(dst, src, 8);
    const uint32_t dstShape[2] = {4, 8};
    const uint32_t srcShape[2] = {1, 8};
    Broadcast<float, 2, 0>(dst, src, dstShape, srcShape);
}
"""


TRANSITIVE_USER = """\
#include "util/math_util.h"
double Ceiling(double x) { return std::ceil(x); }
"""


@pytest.mark.parametrize("text", [ADV_API_USER, TRANSITIVE_USER], ids=["adv_api", "math_util_brings_cmath"])
def test_headers_by_their_paths_bring_what_operators_use(tmp_path, needs_gxx, text):
    src = tmp_path / "adv.cpp"
    src.write_text(text)
    proc = subprocess.run(
        [shutil.which("g++"), "-std=c++17", "-fsyntax-only", "-D__CCE_AICORE__=220", "-I", str(INCLUDE_DIR), str(src)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, "\n".join(proc.stderr.splitlines()[:20])
