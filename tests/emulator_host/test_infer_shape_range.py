"""gert::InferShapeRangeContext and gert::Range (exe_graph/runtime/infer_shape_range_context.h), on a program
written for this test: an operator source that defines an InferShapeRange function beside its InferShape and names
it with OpDef::SetInferShapeRange (and sets OpAICoreConfig's AsyncFlag / RangeLimitValue) compiles with only
register/op_def_registry.h; a tensor's range is [its shape, its
shape]; output ranges are writable; absent inputs have no range; Range compares its bounds' values."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "src" / "tilewise" / "device" / "emulator" / "include"
CXX = shutil.which("g++")

pytestmark = pytest.mark.skipif(CXX is None, reason="g++ is not installed")

PROGRAM = """\
#include "register/op_def_registry.h"
#include <cstdio>

static ge::graphStatus CopyRange(gert::InferShapeRangeContext* context)
{
    auto in = context->GetInputShapeRange(0);
    auto out = context->GetOutputShapeRange(0);
    if (in == nullptr || out == nullptr) return ge::GRAPH_FAILED;
    *out = *in;
    return ge::GRAPH_SUCCESS;
}

static ge::graphStatus Infer(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return ge::GRAPH_SUCCESS;
}

namespace ops {
class RangeProbe : public OpDef {
public:
    explicit RangeProbe(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(Infer).SetInferShapeRange(CopyRange);
        OpAICoreConfig config;  // graph-compilation hints a sample sets beside its range function
        config.AsyncFlag(true).RangeLimitValue("limited").DynamicShapeSupportFlag(true);
        this->AICore().AddConfig("ascend910b", config);
    }
};
OP_ADD(RangeProbe);
}  // namespace ops

int main()
{
    tw_host::NodeData node;
    node.inputs.resize(1);
    node.outputs.resize(1);
    node.inputs[0].set_shape(gert::Shape({4, 8}));
    gert::InferShapeRangeContext ctx(&node);
    const gert::Range<gert::Shape>* in = ctx.GetInputShapeRange(0);
    int fails = 0;
    fails += !(in != nullptr && *in->GetMin() == gert::Shape({4, 8}) && *in->GetMax() == gert::Shape({4, 8}));
    fails += !(ctx.GetInputShapeRange(1) == nullptr && ctx.GetOptionalInputShapeRange(0) == nullptr);
    fails += !(ctx.GetInputShapeRange(0) == in);  // the same range on every call
    fails += !(CopyRange(&ctx) == ge::GRAPH_SUCCESS);
    const gert::Range<gert::Shape>* out = ctx.GetOutputShapeRange(0);
    fails += !(*out->GetMin() == gert::Shape({4, 8}) && *out->GetMax() == gert::Shape({4, 8}) && *out == *in);
    gert::Shape lo({1, 8}), hi({16, 8});
    gert::Range<gert::Shape> wide(&lo, &hi);
    fails += !(!(wide == *in) && wide.GetMin()->GetDim(0) == 1 && wide.GetMax()->GetDim(0) == 16);
    wide.SetMax(&lo);
    fails += !(wide == gert::Range<gert::Shape>(&lo));
    std::printf("%d\\n", fails);
    return fails;
}
"""


def test_infer_shape_range_context(tmp_path: Path):
    src = tmp_path / "range_probe.cpp"
    src.write_text(PROGRAM)
    exe = tmp_path / "range_probe"
    proc = subprocess.run(
        [CXX, "-std=c++17", "-O0", "-Wall", "-Wextra", "-I", str(INCLUDE), str(src), "-o", str(exe)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, "\n".join(proc.stderr.splitlines()[:40])
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "0", run.stdout + run.stderr
