"""The mki (Ascend Transformer Boost) layout, on a small ATB-style operator written for this test: a parameter
struct in a repository-level include folder, a `<name>_kernel.cpp` registering a KernelBase whose CanSupport checks
the parameter and whose InitImpl runs a LaunchParam -> KernelInfo tiling (with a scratch buffer, so the kernel takes
the framework's workspace argument), and an AscendC kernel. It is located and modelled as an operator, and runs on
the emulator with the case's attributes set on the parameter struct by field name, snake_case name and enumerator."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tilewise.analysis.manifest import Case, InputSpec
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import RunRequest

PARAMS = """\
#pragma once
#include <cstdint>
#include <mki/utils/SVector/SVector.h>
namespace TwOps {
namespace OpParam {
struct Scale {
    enum ScaleMode {
        MODE_UNDEFINED = 0,
        MODE_SCALE,
        MODE_SCALE_ADD = 5,
    };
    ScaleMode mode;
    float alpha = 1.0f;  // a default the case may leave alone
    int32_t addOne = 0;
};
}  // namespace OpParam
}  // namespace TwOps
"""

TILING_DATA = """\
#pragma once
#include <cstdint>
struct ScaleTilingData {
    uint32_t rows;
    uint32_t cols;
    uint32_t blockDim;
    float alpha;
    float bias;
};
"""

TILING_H = """\
#pragma once
#include <mki/launch_param.h>
#include <mki/kernel_info.h>
#include <mki/utils/status/status.h>
namespace TwOps {
using namespace Mki;
Status ScaleTiling(const LaunchParam &launchParam, KernelInfo &kernelInfo);
}
"""

TILING_CPP = """\
#include "scale_tiling.h"
#include <algorithm>
#include <mki/utils/assert/assert.h>
#include <mki/utils/platform/platform_info.h>
#include "twops/params/scale.h"
#include "scale_tiling_data.h"
namespace TwOps {
Status ScaleTiling(const LaunchParam &launchParam, KernelInfo &kernelInfo)
{
    auto *t = reinterpret_cast<ScaleTilingData *>(kernelInfo.GetTilingHostAddr());
    MKI_CHECK(t != nullptr, "no tiling buffer", return Status::FailStatus(ERROR_INVALID_VALUE, "no buffer"));
    const auto &dims = launchParam.GetInTensor(0).desc.dims;
    auto param = AnyCast<OpParam::Scale>(launchParam.GetParam());
    t->cols = static_cast<uint32_t>(dims[dims.size() - 1]);
    t->rows = static_cast<uint32_t>(launchParam.GetInTensor(0).Numel() / t->cols);
    uint32_t cores = PlatformInfo::Instance().GetCoreNum(CoreType::CORE_TYPE_VECTOR);
    t->blockDim = std::min(cores, t->rows);
    t->alpha = param.alpha;
    t->bias = param.mode == OpParam::Scale::MODE_SCALE_ADD ? static_cast<float>(param.addOne) : 0.0f;
    kernelInfo.SetBlockDim(t->blockDim);
    kernelInfo.SetTilingId(param.mode == OpParam::Scale::MODE_SCALE_ADD ? 20 : 10);
    kernelInfo.GetScratchSizes() = {t->blockDim * 32u};
    kernelInfo.SetMemsetInfo(2, t->blockDim * 32u);
    return Status::OkStatus();
}
}  // namespace TwOps
"""

KERNEL_REG = """\
#include <mki/base/kernel_base.h>
#include <mki_loader/op_register.h>
#include "twops/params/scale.h"
#include "tiling/scale_tiling.h"
#include "tiling/scale_tiling_data.h"
namespace TwOps {
class ScaleKernel : public KernelBase {
public:
    explicit ScaleKernel(const std::string &name, const BinHandle *handle) noexcept : KernelBase(name, handle) {}
    bool CanSupport(const LaunchParam &launchParam) const override
    {
        MKI_CHECK(launchParam.GetParam().Type() == typeid(OpParam::Scale), "param type invalid", return false);
        auto param = AnyCast<OpParam::Scale>(launchParam.GetParam());
        MKI_CHECK(param.mode != OpParam::Scale::MODE_UNDEFINED, "scale: mode not set", return false);
        MKI_CHECK(launchParam.GetInTensor(0).desc.dtype == TENSOR_DTYPE_FLOAT, "float only", return false);
        return true;
    }
    uint64_t GetTilingSize(const LaunchParam &launchParam) const override
    {
        (void)launchParam;
        return sizeof(ScaleTilingData);
    }
    Status InitImpl(const LaunchParam &launchParam) override { return ScaleTiling(launchParam, kernelInfo_); }
};
REG_KERNEL_BASE(ScaleKernel);
}  // namespace TwOps
"""

KERNEL = """\
#include "kernel_operator.h"
#include "../tiling/scale_tiling_data.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    ScaleTilingData t;
    auto *words = reinterpret_cast<__gm__ uint32_t *>(tiling);
    t.rows = words[0];
    t.cols = words[1];
    t.blockDim = words[2];
    t.alpha = *reinterpret_cast<__gm__ float *>(words + 3);
    t.bias = *reinterpret_cast<__gm__ float *>(words + 4);
    // The framework zeroed the scratch buffer (SetMemsetInfo): a block that finds it dirty writes nothing.
    if (*reinterpret_cast<__gm__ uint32_t *>(workspace + GetBlockIdx() * 32) != 0) {
        return;
    }
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x);
    yGm.SetGlobalBuffer((__gm__ float *)y);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> qIn;
    TQue<QuePosition::VECOUT, 1> qOut;
    pipe.InitBuffer(qIn, 1, t.cols * sizeof(float));
    pipe.InitBuffer(qOut, 1, t.cols * sizeof(float));
    for (uint32_t r = GetBlockIdx(); r < t.rows; r += t.blockDim) {
        LocalTensor<float> a = qIn.AllocTensor<float>();
        DataCopy(a, xGm[r * t.cols], t.cols);
        qIn.EnQue(a);
        a = qIn.DeQue<float>();
        LocalTensor<float> b = qOut.AllocTensor<float>();
        Muls(b, a, t.alpha, t.cols);
        if (TILING_KEY_IS(20)) {
            Adds(b, b, t.bias, t.cols);
        } else if (TILING_KEY_IS(10)) {
            Adds(b, b, 0.0f, t.cols);
        }
        qOut.EnQue(b);
        qIn.FreeTensor(a);
        b = qOut.DeQue<float>();
        DataCopy(yGm[r * t.cols], b, t.cols);
        qOut.FreeTensor(b);
    }
}
"""

GOLDEN = """\
import numpy as np


def golden(x, alpha=1.0, add_one=0, mode="MODE_SCALE", addOne=None):
    add = (addOne if addOne is not None else add_one) if mode == "MODE_SCALE_ADD" else 0
    return (x * np.float32(alpha) + np.float32(add)).astype(np.float32)
"""


def write_repo(tmp: Path) -> Path:
    files = {
        "include/twops/params/scale.h": PARAMS,
        "kernels/scale/scale_kernel.cpp": KERNEL_REG,
        "kernels/scale/tiling/scale_tiling.h": TILING_H,
        "kernels/scale/tiling/scale_tiling.cpp": TILING_CPP,
        "kernels/scale/tiling/scale_tiling_data.h": TILING_DATA,
        "kernels/scale/op_kernel/scale.cpp": KERNEL,
        "kernels/scale/golden.py": GOLDEN,
    }
    for rel, text in files.items():
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp / rel).write_text(text)
    return tmp / "kernels" / "scale"


def case(attrs: dict) -> Case:
    return Case(name="c", inputs={"x": InputSpec(shape=[6, 64], dtype="float32")}, attrs=attrs)


def test_atb_operator_is_located_and_modelled(tmp_path):
    root = write_repo(tmp_path)
    op = load_operator(root / "op_kernel" / "scale.cpp")
    model = op.model
    assert model.layout == "atb"
    assert Path(model.root) == root
    assert sorted(Path(p).name for p in model.host_files) == [
        "scale_kernel.cpp",
        "scale_tiling.cpp",
        "scale_tiling.h",
        "scale_tiling_data.h",
    ]
    assert [Path(p).name for p in model.kernel_files] == ["scale.cpp"]
    assert model.kernel.entry == "scale"
    assert model.tiling.function == "ScaleTiling"
    # No manifest: CanSupport says nothing about counts, so the entry's tensors are not split (no inputs claimed).
    assert [t.name for t in model.inputs] == []
    (root / "tilewise.toml").write_text(
        '[operator]\nname = "scale"\n[[cases]]\nname = "c"\n[cases.inputs.x]\nshape = [6, 64]\ndtype = "float32"\n'
    )
    model = load_operator(root).model
    assert [t.name for t in model.inputs] == ["x"] and [t.name for t in model.outputs] == ["y"]


def test_atb_operator_runs_with_attrs_on_the_param_struct(tmp_path, emu_cache):
    root = write_repo(tmp_path)
    (root / "tilewise.toml").write_text(
        '[operator]\nname = "scale"\n[[cases]]\nname = "c"\n[cases.inputs.x]\nshape = [6, 64]\ndtype = "float32"\n'
    )
    device = EmulatorDevice(cache_dir=emu_cache, timeout_s=60)
    op = load_operator(root)
    golden = str(root / "golden.py:golden")
    # By field name (alpha), snake_case (add_one -> addOne) and enumerator name (mode).
    m = device.run(op, RunRequest(case({"alpha": 2.5, "add_one": 1, "mode": "MODE_SCALE_ADD"}), golden=golden))
    assert m.ok and m.correct, m.error
    assert m.block_dim == 6 and m.tiling_key == 20 and m.workspace == [6 * 32]
    assert list(np.asarray(m.outputs[0].shape)) == [6, 64]
    # The struct's own default (alpha = 1) where the case says nothing; the other tiling key.
    m = device.run(op, RunRequest(case({"mode": "MODE_SCALE"}), golden=golden))
    assert m.ok and m.correct and m.tiling_key == 10, m.error
    # CanSupport refuses a parameter with no mode: the framework would not launch, nor does the emulator.
    m = device.run(op, RunRequest(case({"alpha": 2.0}), golden=golden))
    assert not m.ok and m.error.kind == "tiling_failed"
    # An enumerator the struct does not declare.
    m = device.run(op, RunRequest(case({"mode": "MODE_CUBE"}), golden=golden))
    assert not m.ok and m.error.kind in ("tiling_failed", "tiling_exception")


def test_atb_operator_whose_tiling_is_another_operators(tmp_path, emu_cache):
    # A second operator with no tiling of its own: its kernel class calls the first one's ScaleTiling through the
    # repository-rooted header, whose definition is the scale_tiling.cpp beside it (as ATB's prermsnorm calls
    # postrmsnorm's). The build compiles that companion source, or the link has no ScaleTiling.
    write_repo(tmp_path)
    root = tmp_path / "kernels" / "scale_again"
    (root / "op_kernel").mkdir(parents=True)
    (root / "scale_again_kernel.cpp").write_text(KERNEL_REG.replace('"tiling/scale_', '"kernels/scale/tiling/scale_'))
    (root / "op_kernel" / "scale.cpp").write_text(
        KERNEL.replace('"../tiling/scale_tiling_data.h"', '"kernels/scale/tiling/scale_tiling_data.h"')
    )
    (root / "tilewise.toml").write_text(
        '[operator]\nname = "scale"\n[[cases]]\nname = "c"\n[cases.inputs.x]\nshape = [6, 64]\ndtype = "float32"\n'
    )
    op = load_operator(root)
    assert op.model.layout == "atb"
    m = EmulatorDevice(cache_dir=emu_cache, timeout_s=60).run(
        op,
        RunRequest(
            case({"alpha": 3.0, "mode": "MODE_SCALE"}), golden=str(tmp_path / "kernels" / "scale" / "golden.py:golden")
        ),
    )
    assert m.ok and m.correct, m.error
    assert m.tiling_key == 10
