"""An output's dtype from the manifest (`[cases.outputs.<name>] dtype = ...`), where the sources cannot say it: an
ATB (mki) operator has no OpDef, so its outputs would take input 0's dtype. Pinned on a small ATB-style operator
written for this test, y = int32(round(x * 4)), whose CanSupport insists on an int32 output as the framework's
kernels check their LaunchParam (and names its parameter struct only in a typeid check, which is how the adapter
finds it); its tiling uses TensorDesc::Numel and OP_TILING_CHECK_STATUS_RETURN. Also the checks on the manifest's
names and on OpDef operators, and cases whose dtypes form no OpDef-style columns."""

from __future__ import annotations

from argparse import Namespace
from pathlib import Path

import pytest

from tilewise.analysis.errors import ManifestError
from tilewise.analysis.manifest import Case, InputSpec, OutputSpec, parse_manifest
from tilewise.analysis.operator import load_operator
from tilewise.device.binding import bind_dtypes
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import RunRequest
from tilewise.session.cases import build_case

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

PARAMS = """\
#pragma once
namespace TwOps {
namespace OpParam {
struct Quant {
    int mode = 0;
};
}  // namespace OpParam
}  // namespace TwOps
"""

KERNEL_REG = """\
#include <mki/base/kernel_base.h>
#include <mki/utils/assert/assert.h>
#include <mki_loader/op_register.h>
#include "twops/params/quant.h"
namespace TwOps {
using namespace Mki;
struct QuantTiling {
    uint32_t total;
};
Status CheckTotal(int64_t total)
{
    return total <= 4096 ? Status::OkStatus() : Status::FailStatus(ERROR_INVALID_VALUE, "more than 4096 elements");
}
Status QuantTilingFunc(const LaunchParam &launchParam, KernelInfo &kernelInfo)
{
    auto *t = reinterpret_cast<QuantTiling *>(kernelInfo.GetTilingHostAddr());
    OP_TILING_CHECK_STATUS_RETURN(CheckTotal(launchParam.GetInTensor(0).desc.Numel()));
    t->total = static_cast<uint32_t>(launchParam.GetInTensor(0).desc.Numel());
    kernelInfo.SetBlockDim(1);
    return Status::OkStatus();
}
class QuantKernel : public KernelBase {
public:
    explicit QuantKernel(const std::string &name, const BinHandle *handle) noexcept : KernelBase(name, handle) {}
    bool CanSupport(const LaunchParam &launchParam) const override
    {
        // The only mention of the parameter struct: the adapter finds it here.
        MKI_CHECK(launchParam.GetParam().Type() == typeid(OpParam::Quant), "quant: param type invalid",
                  return false);
        MKI_CHECK(launchParam.GetOutTensor(0).desc.dtype == TENSOR_DTYPE_INT32, "quant: y must be int32",
                  return false);
        return true;
    }
    uint64_t GetTilingSize(const LaunchParam &launchParam) const override
    {
        (void)launchParam;
        return sizeof(QuantTiling);
    }
    Status InitImpl(const LaunchParam &launchParam) override { return QuantTilingFunc(launchParam, kernelInfo_); }
};
REG_KERNEL_BASE(QuantKernel);
}  // namespace TwOps
"""

KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void quant(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    uint32_t total = *reinterpret_cast<__gm__ uint32_t *>(tiling);
    GlobalTensor<float> xGm;
    GlobalTensor<int32_t> yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x);
    yGm.SetGlobalBuffer((__gm__ int32_t *)y);
    TPipe pipe;
    TBuf<> bx, by;
    pipe.InitBuffer(bx, total * sizeof(float));
    pipe.InitBuffer(by, total * sizeof(int32_t));
    LocalTensor<float> a = bx.Get<float>();
    LocalTensor<int32_t> b = by.Get<int32_t>();
    DataCopy(a, xGm, total);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Muls(a, a, 4.0f, total);
    Cast(b, a, RoundMode::CAST_RINT, total);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(yGm, b, total);
}
"""

GOLDEN = """\
import numpy as np


def golden(x):
    return np.rint(x.astype(np.float32) * 4).astype(np.int32)
"""


def write_op(tmp: Path, output_dtype: str | None) -> Path:
    (tmp / "include" / "twops" / "params").mkdir(parents=True, exist_ok=True)
    (tmp / "include" / "twops" / "params" / "quant.h").write_text(PARAMS)
    root = tmp / "kernels" / "quant"
    files = {
        "quant_kernel.cpp": KERNEL_REG,
        "op_kernel/quant.cpp": KERNEL,
        "golden.py": GOLDEN,
        "tilewise.toml": '[operator]\nname = "quant"\n[golden]\nfunction = "golden.py:golden"\n'
        'rtol = 0\natol = 0\n[[cases]]\nname = "c"\n'
        '[cases.inputs.x]\nshape = [8, 64]\ndtype = "float32"\n'
        + (f'[cases.outputs.y]\ndtype = "{output_dtype}"\n' if output_dtype else ""),
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_the_manifest_gives_an_atb_output_its_dtype(tmp_path, emu_cache, needs_gxx):
    root = write_op(tmp_path, "int32")
    op = load_operator(root)
    device = EmulatorDevice(cache_dir=emu_cache, timeout_s=60)
    m = device.run(op, RunRequest(op.manifest.case("c"), golden=str(root / "golden.py:golden"), rtol=0, atol=0))
    assert m.ok and m.correct, m.error
    assert m.outputs[0].dtype == "int32"
    # Without it, y is input 0's float32: the kernel's CanSupport refuses, and says why.
    case = Case(name="c", inputs={"x": InputSpec(shape=[8, 64], dtype="float32")})
    m = device.run(op, RunRequest(case, golden=str(root / "golden.py:golden")))
    assert not m.ok and "quant: y must be int32" in m.error.message, m.error
    # A failed tiling step (OP_TILING_CHECK_STATUS_RETURN) returns its Status, and the run says why.
    case = Case(
        name="c", inputs={"x": InputSpec(shape=[80, 64], dtype="float32")}, outputs={"y": OutputSpec(dtype="int32")}
    )
    m = device.run(op, RunRequest(case))
    assert not m.ok and "more than 4096 elements" in m.error.message, m.error


def test_without_an_opdef_the_cases_dtypes_need_not_form_columns(tmp_path):
    # x changes dtype between cases while the second input keeps one: no OpDef combination to match.
    root = write_op(tmp_path, None)
    kernel = root / "op_kernel" / "quant.cpp"
    kernel.write_text(kernel.read_text().replace("GM_ADDR x, GM_ADDR y", "GM_ADDR x, GM_ADDR w, GM_ADDR y"))
    (root / "tilewise.toml").write_text(
        '[[cases]]\nname = "a"\n[cases.inputs.x]\nshape = [4]\ndtype = "float32"\n'
        '[cases.inputs.w]\nshape = [4]\ndtype = "int8"\n[cases.outputs.y]\ndtype = "int32"\n'
        '[[cases]]\nname = "b"\n[cases.inputs.x]\nshape = [4]\ndtype = "float16"\n'
        '[cases.inputs.w]\nshape = [4]\ndtype = "int8"\n'
    )
    op = load_operator(root)
    assert [t.name for t in op.model.outputs] == ["y"]
    assert bind_dtypes(op, op.manifest.case("a"))[1] == ["int32"]
    assert bind_dtypes(op, op.manifest.case("b"))[1] == ["float16"]  # input 0's


def test_a_dtype_for_an_output_the_operator_does_not_have_is_a_bad_case(tmp_path):
    root = write_op(tmp_path, None)
    op = load_operator(root)
    case = Case(
        name="c", inputs={"x": InputSpec(shape=[8, 64], dtype="float32")}, outputs={"z": OutputSpec(dtype="int32")}
    )
    m = EmulatorDevice(cache_dir=tmp_path / "cache").run(op, RunRequest(case))
    assert not m.ok and m.error.kind == "bad_case" and "outputs ['z']" in m.error.message


def test_an_opdef_output_dtype_cannot_be_contradicted(tmp_path):
    op = load_operator(EXAMPLES / "add_custom")
    spec = InputSpec(shape=[64], dtype="float16")
    case = Case(name="c", inputs={"x": spec, "y": spec}, outputs={"z": OutputSpec(dtype="int8")})
    m = EmulatorDevice(cache_dir=tmp_path / "cache").run(op, RunRequest(case))
    assert not m.ok and m.error.kind == "bad_case" and "makes it float16" in m.error.message
    # Agreeing with the OpDef is allowed.
    case = Case(name="c", inputs={"x": spec, "y": spec}, outputs={"z": OutputSpec(dtype="half")})
    assert case.outputs["z"].dtype == "float16"


def test_output_specs_are_validated():
    text = '[[cases]]\nname = "c"\n[cases.inputs.x]\nshape = [2]\ndtype = "float32"\n[cases.outputs.y]\n'
    with pytest.raises(ManifestError, match="unknown dtype 'int7'"):
        parse_manifest(text + 'dtype = "int7"\n', "t.toml")
    with pytest.raises(ManifestError, match="unknown field"):
        parse_manifest(text + 'dtype = "int8"\nshape = [2]\n', "t.toml")
    assert parse_manifest(text + 'dtype = "int8"\n', "t.toml").cases[0].outputs["y"].dtype == "int8"


def test_the_cli_case_keeps_the_manifests_output_dtypes(tmp_path):
    # `tilewise run --case c --shape x=...` builds its case on the manifest's: output dtypes and outputs_init stand.
    root = write_op(tmp_path, "int32")
    toml = root / "tilewise.toml"
    toml.write_text(toml.read_text().replace('name = "c"\n', 'name = "c"\noutputs_init = "zeros"\n'))
    op = load_operator(root)
    case = build_case(op, Namespace(case="c", shape=["x=4,64"], dtype=None, attr=None))
    assert case.inputs["x"].shape == [4, 64]
    assert case.outputs["y"].dtype == "int32" and case.outputs_init == "zeros"


def test_with_a_manifest_the_atb_split_of_the_entry_stands(tmp_path):
    # The manifest gives dtypes, but the entry's tensors stay as the ATB layout split them: inputs optional, the
    # workspace and sync scratch parameters before the tiling no outputs.
    root = write_op(tmp_path, None)
    kernel = root / "op_kernel" / "quant.cpp"
    kernel.write_text(
        kernel.read_text().replace(
            "GM_ADDR y, GM_ADDR tiling", "GM_ADDR y, GM_ADDR workspace, GM_ADDR sync, GM_ADDR tiling"
        )
    )
    model = load_operator(root).model
    assert [(t.name, t.param_type, t.dtypes) for t in model.inputs] == [("x", "OPTIONAL", ["float32"])]
    assert [(t.name, t.dtypes) for t in model.outputs] == [("y", ["float32"])]
