"""A small operator with a 0-d input and a 0-d output, written for the 0-d tests: y = x * value + dims and
s = value + host, where `value` is a scalar input (Addcdiv's `value`, Arange's `start` are such inputs) that the
kernel reads with GetValue(0) from a one-element GM buffer, `dims` is the dim count the host tiling read from
value's shape (0 for a 0-d tensor), `host` is value's element as the tiling read it (value is ValueDepend), and `s`
is an output InferShape gives value's shape. A run on a 0-d value and one on a
1-element 1-d value differ only in `dims`, so a golden that adds its own `value.ndim` agrees with the kernel only
when the tiling and the golden saw the same rank."""

from __future__ import annotations

from pathlib import Path

TILING_H = """\
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(MulValueTilingData)
    TILING_DATA_FIELD_DEF(uint32_t, n);
    TILING_DATA_FIELD_DEF(uint32_t, valueDims);
    TILING_DATA_FIELD_DEF(float, hostValue);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(MulValue, MulValueTilingData)
}
"""

HOST = """\
#include "mul_value_tiling.h"
#include "register/op_def_registry.h"
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    MulValueTilingData tiling;
    const gert::StorageShape* value = context->GetInputShape(1);
    // the storage and origin shapes of one tensor agree on its rank; a scalar input has none
    if (value->GetStorageShape().GetDimNum() != value->GetOriginShape().GetDimNum()) {
        return ge::GRAPH_FAILED;
    }
    tiling.set_n(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    tiling.set_valueDims(value->GetStorageShape().GetDimNum());
    // value is ValueDepend: the host reads its one element, as an Arange tiling reads its scalar `start`
    const float* host = context->GetInputTensor(1)->GetData<float>();
    if (host == nullptr || context->GetInputTensor(1)->GetShapeSize() != 1) {
        return ge::GRAPH_FAILED;
    }
    tiling.set_hostValue(host[0]);
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}
namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    *context->GetOutputShape(1) = *context->GetInputShape(1);
    return GRAPH_SUCCESS;
}
}
namespace ops {
class MulValue : public OpDef {
public:
    explicit MulValue(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("value").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND})
            .ValueDepend(REQUIRED);
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("s").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(MulValue);
}
"""

KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void mul_value(GM_ADDR x, GM_ADDR value, GM_ADDR y, GM_ADDR s, GM_ADDR workspace,
                                               GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    GlobalTensor<float> xGm, valueGm, yGm, sGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, t.n);
    valueGm.SetGlobalBuffer((__gm__ float*)value, 1);
    yGm.SetGlobalBuffer((__gm__ float*)y, t.n);
    sGm.SetGlobalBuffer((__gm__ float*)s, 1);
    const float v = valueGm.GetValue(0);
    TPipe pipe;
    TBuf<QuePosition::VECCALC> buf;
    pipe.InitBuffer(buf, t.n * sizeof(float));
    LocalTensor<float> tile = buf.Get<float>();
    DataCopy(tile, xGm, t.n);
    PipeBarrier<PIPE_ALL>();
    Muls(tile, tile, v, t.n);
    PipeBarrier<PIPE_V>();
    Adds(tile, tile, static_cast<float>(t.valueDims), t.n);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yGm, tile, t.n);
    sGm.SetValue(0, v + t.hostValue);  // 2 * value when the host read the same element
    DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(sGm);
}
"""

# `golden` insists on a 0-d value; `golden_any_rank` answers for a value of any rank, adding the rank as the kernel
# adds the dim count its tiling saw.
GOLDEN = """\
import numpy as np


def golden(x, value):
    assert isinstance(value, np.ndarray) and value.shape == (), f"value is not 0-d: {type(value)} {np.shape(value)}"
    return x * value, np.asarray(value * 2, dtype=np.float32)


def golden_any_rank(x, value):
    return x * value.reshape(()) + np.float32(value.ndim), (value * 2).astype(np.float32)


def golden_of_three(x, value):
    # only right when the value was the --input file's 3.0: proves the file, not random data, was the input
    assert value == 3, f"value is {value}, not the --input data"
    return golden(x, value)
"""

# Two cases: x of 256 floats with value 0-d, and with value the same one element as a 1-d tensor of shape [1].
MANIFEST = """\
[golden]
function = "golden.py:golden"
rtol = 1e-5
atol = 1e-5

[[cases]]
name = "scalar_value"
[cases.inputs.x]
shape = [256]
dtype = "float32"
[cases.inputs.value]
shape = []
dtype = "float32"

[[cases]]
name = "vector_value"
[cases.inputs.x]
shape = [256]
dtype = "float32"
[cases.inputs.value]
shape = [1]
dtype = "float32"
"""


def write_mul_value(root: Path, manifest: str | None = MANIFEST) -> Path:
    """The operator (and, with `manifest`, its tilewise.toml and golden.py) under `root`."""
    files = {
        "op_host/mul_value_tiling.h": TILING_H,
        "op_host/mul_value.cpp": HOST,
        "op_kernel/mul_value.cpp": KERNEL,
        "golden.py": GOLDEN,
    }
    if manifest is not None:
        files["tilewise.toml"] = manifest
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root
