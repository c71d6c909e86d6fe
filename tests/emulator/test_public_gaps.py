"""Emulator gaps that real public AscendC operators exposed, each pinned on a small operator written for this test:
kernel entries named after C library functions, the device compiler's macros and builtins, tiling structs declared
beside the kernel, tiling-template (ASCENDC_TPL_*) kernel entries, TILING_KEY_IS without a matching branch, OPTIONAL
and DYNAMIC inputs and outputs (tensor lists), ValueDepend inputs, outputs whose shape only the golden knows,
static-tensor programming, TransDataTo5HD and the high-level Sigmoid / Sum / ArithProgression, kernel-invocation
programs that use the samples' data_utils.h."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tilewise.analysis.manifest import Case, InputSpec
from tilewise.analysis.operator import load_operator
from tilewise.device.binding import bind_dtypes, output_names
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.emulator.build import entry_template_params
from tilewise.device.golden import check_outputs
from tilewise.device.inputs import make_inputs
from tilewise.device.protocol import OutputCheck, RunRequest


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def run(root: Path, emu_cache: Path, case: Case, golden: str | None = None, **kw):
    if golden is not None:
        (root / "golden.py").write_text("import numpy as np\n" + golden)
    device = EmulatorDevice(cache_dir=emu_cache, timeout_s=60)
    request = RunRequest(case, golden=str(root / "golden.py:golden") if golden else None, **kw)
    return device.run(load_operator(root), request)


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


# ---------------------------------------------------------------------------------------------------------------
# An entry named `fmax` (libm declares one), with the macros and builtins the device compiler gives every kernel,
# a tiling header in op_kernel/ whose host constant the kernel declares again, a 32-byte read of a 4-byte input, an
# `<<<>>>` launcher in the kernel file, and no InferShape although the output's shape is not the input's.

FMAX_TILING = """\
#include "register/tilingdata_base.h"
namespace optiling {
constexpr uint32_t LANES = 8;
BEGIN_TILING_DATA_DEF(FmaxTilingData)
    TILING_DATA_FIELD_DEF(uint32_t, rows);
    TILING_DATA_FIELD_DEF(uint32_t, cols);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(Fmax, FmaxTilingData)
}
"""

FMAX_HOST = """\
#include "../op_kernel/fmax_tiling.h"
#include "register/op_def_registry.h"
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const auto& shape = context->GetInputShape(0)->GetStorageShape();
    FmaxTilingData tiling;
    tiling.set_rows(shape.GetDim(0));
    tiling.set_cols(shape.GetDim(1));
    context->SetBlockDim(shape.GetDim(0));
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}
namespace ops {
class Fmax : public OpDef {
public:
    explicit Fmax(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("scale").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(Fmax);
}
"""

FMAX_KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;
namespace {
constexpr uint32_t LANES = 8;
}
union HalfBits {
    half value;
    uint16_t bits;
};

extern "C" __global__ __aicore__ void fmax(GM_ADDR x, GM_ADDR scale, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    InitSocState();
    GET_TILING_DATA(t, tiling);
    if (!ASCEND_IS_AIV) {
        return;
    }
#if __CCE_AICORE__ == 220
    HalfBits one;
    one.value = half(1.0f);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, (t.cols + LANES) * sizeof(float));
    LocalTensor<float> row = buf.Get<float>();
    LocalTensor<float> s = row[t.cols];
    GlobalTensor<float> xGm, sGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * t.cols, t.cols);
    sGm.SetGlobalBuffer((__gm__ float*)scale, 1);
    yGm.SetGlobalBuffer((__gm__ float*)y, t.rows);
    DataCopy(s, sGm, LANES);
    DataCopy(row, xGm, t.cols);
    SetFlag<HardEvent::MTE2_S>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_S>(EVENT_ID0);
    PipeBarrier<PIPE_V>();
    float m = row.GetValue(0);
    for (uint32_t i = 1; i < min(t.cols, 4096); ++i) {
        m = max(m, row.GetValue(i));
    }
    yGm.SetValue(GetBlockIdx(), m * s.GetValue(0) * float(one.value));
    DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(yGm);
#endif
}

#ifndef __CCE_KT_TEST__
void fmax_do(uint32_t blockDim, void* l2ctrl, void* stream, uint8_t* x, uint8_t* scale, uint8_t* y, uint8_t* ws,
             uint8_t* tiling)
{
    fmax<<<blockDim, l2ctrl, stream>>>(x, scale, y, ws, tiling);
}
#endif
"""


def test_entry_named_like_libm_with_device_macros_and_builtins(tmp_path, emu_cache, needs_gxx):
    root = write(
        tmp_path / "fmax",
        {"op_kernel/fmax_tiling.h": FMAX_TILING, "op_host/fmax.cpp": FMAX_HOST, "op_kernel/fmax.cpp": FMAX_KERNEL},
    )
    case = Case(
        name="c",
        inputs={"x": InputSpec(shape=[6, 64], dtype="float32"), "scale": InputSpec(shape=[1], dtype="float32")},
    )
    m = run(root, emu_cache, case, "def golden(x, scale):\n    return x.max(axis=1) * scale[0]\n")
    assert m.ok and m.correct, m.error
    assert m.block_dim == 6 and m.outputs[0].shape == [6]  # the golden's shape: the OpDef has no InferShape


# ---------------------------------------------------------------------------------------------------------------
# A tiling-template kernel entry: template <typename DT_X, uint32_t MODE>, declared with ASCENDC_TPL_* in a header
# inside a namespace, selected by the host with ASCENDC_TPL_SEL_PARAM; the kernel declares its own tiling struct of
# the name the host's BEGIN_TILING_DATA_DEF also uses.

TPL_KEY = """\
#pragma once
#include "ascendc/host_api/tiling/template_argument.h"
#define MODE_COPY 0
#define MODE_DOUBLE 1
namespace TplNs {
ASCENDC_TPL_ARGS_DECL(Tpl,
    ASCENDC_TPL_DATATYPE_DECL(DT_X, C_DT_FLOAT, C_DT_FLOAT16, ASCENDC_TPL_INPUT(0)),
    ASCENDC_TPL_UINT_DECL(MODE, 2, ASCENDC_TPL_UI_LIST, MODE_COPY, MODE_DOUBLE),
);
ASCENDC_TPL_SEL(
    ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_DATATYPE_SEL(DT_X, C_DT_FLOAT),
                         ASCENDC_TPL_UINT_SEL(MODE, ASCENDC_TPL_UI_LIST, MODE_COPY, MODE_DOUBLE)),
    ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_DATATYPE_SEL(DT_X, C_DT_FLOAT16),
                         ASCENDC_TPL_UINT_SEL(MODE, ASCENDC_TPL_UI_RANGE, 1, 0, 1)),
);
}
"""

TPL_TILING = """\
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(TplTilingData)
    TILING_DATA_FIELD_DEF(uint32_t, n);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(Tpl, TplTilingData)
}
"""

TPL_HOST = """\
#include "tpl_tiling.h"
#include "../op_kernel/tpl_key.h"
#include "register/op_def_registry.h"
using namespace TplNs;
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    TplTilingData tiling;
    tiling.set_n(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    const uint32_t mode = static_cast<uint32_t>(*context->GetAttrs()->GetInt(0));
    ASCENDC_TPL_SEL_PARAM(context, static_cast<uint32_t>(context->GetInputDesc(0)->GetDataType()), mode);
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}
namespace ops {
class Tpl : public OpDef {
public:
    explicit Tpl(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Attr("mode").AttrType(OPTIONAL).Int(0);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(Tpl);
}
"""

TPL_KERNEL = """\
#include "kernel_operator.h"
#include "tpl_key.h"
namespace TplNs {
struct TplTilingData {
    uint32_t n;
};
}
using namespace TplNs;
using namespace AscendC;

template <typename DT_X, uint32_t MODE>
__global__ __aicore__ void tpl(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(TplTilingData);
    GET_TILING_DATA_WITH_STRUCT(TplTilingData, t, tiling);
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, t.n * sizeof(DT_X));
    LocalTensor<DT_X> v = buf.Get<DT_X>();
    GlobalTensor<DT_X> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ DT_X*)x, t.n);
    yGm.SetGlobalBuffer((__gm__ DT_X*)y, t.n);
    DataCopy(v, xGm, t.n);
    PipeBarrier<PIPE_ALL>();
    if constexpr (MODE == MODE_DOUBLE) {
        Muls(v, v, static_cast<DT_X>(2.0f), t.n);
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(yGm, v, t.n);
}
"""


def test_tiling_template_entry_runs_the_instantiation_the_key_selects(tmp_path, emu_cache, needs_gxx):
    root = write(
        tmp_path / "tpl",
        {
            "op_kernel/tpl_key.h": TPL_KEY,
            "op_host/tpl_tiling.h": TPL_TILING,
            "op_host/tpl.cpp": TPL_HOST,
            "op_kernel/tpl.cpp": TPL_KERNEL,
        },
    )
    golden = "def golden(x, mode=0):\n    return x * (2 if mode == 1 else 1)\n"
    for mode in (0, 1):
        case = Case(name="c", inputs={"x": InputSpec(shape=[256], dtype="float32")}, attrs={"mode": mode})
        m = run(root, emu_cache, case, golden)
        assert m.ok and m.correct, (mode, m.error)
        assert m.tiling_key == 0 | (mode << 8)  # DT_X (float = 0) in the low 8 bits, MODE above it
    bad = Case(name="c", inputs={"x": InputSpec(shape=[256], dtype="float32")}, attrs={"mode": 3})
    m = run(root, emu_cache, bad, golden)
    assert not m.ok and m.error.kind == "bad_tiling_key" and "(0, 3)" in m.error.message
    assert m.error.file == str(root / "op_kernel" / "tpl.cpp") and m.error.line == line_of(TPL_KERNEL, "void tpl(")


def test_entry_template_parameters_are_read_from_the_source():
    text = "template <typename DT_X, uint32_t MODE = 0>\n__global__ __aicore__ void tpl(GM_ADDR x)"
    assert entry_template_params(text, text.index("tpl(")) == [("typename", "DT_X"), ("uint32_t", "MODE")]
    text = 'template <int A> void helper();\nextern "C" __global__ __aicore__ void op(GM_ADDR x)'
    assert entry_template_params(text, text.index("op(")) is None


# ---------------------------------------------------------------------------------------------------------------
# TILING_KEY_IS: a key no branch names is an error on hardware (no kernel binary for it); TILING_KEY_LIST too.

KEYED_KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    GlobalTensor<half> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ half*)x + t.blockLength * GetBlockIdx(), t.blockLength);
    yGm.SetGlobalBuffer((__gm__ half*)y + t.blockLength * GetBlockIdx(), t.blockLength);
    if (TILING_KEY_IS(1)) {
        yGm.SetValue(0, xGm.GetValue(0));
    } else if (TILING_KEY_LIST(2, 3)) {
        TPipe pipe;
        TBuf<> buf;
        pipe.InitBuffer(buf, t.blockLength * sizeof(half));
        LocalTensor<half> v = buf.Get<half>();
        DataCopy(v, xGm, t.blockLength);
        PipeBarrier<PIPE_ALL>();
        Muls(v, v, (half)2.0, t.blockLength);
        PipeBarrier<PIPE_ALL>();
        DataCopy(yGm, v, t.blockLength);
    }
}
"""


def test_tiling_key_that_no_branch_names(tmp_path, emu_cache, needs_gxx):
    from opgen import HOST, replace_once, write_operator

    case = Case(name="c", inputs={"x": InputSpec(shape=[48 * 1024], dtype="float16")})
    golden = "def golden(x, scale=2.0):\n    return (x.astype('float32') * 2).astype('float16')\n"
    root = write_operator(tmp_path / "keyed" / "scale", kernel=KEYED_KERNEL)
    m = run(root, emu_cache, case, golden)
    assert not m.ok and m.error.kind == "bad_tiling_key" and "tiling key is 0" in m.error.message
    assert m.error.line == line_of(KEYED_KERNEL, "TILING_KEY_IS(1)")
    host = replace_once(
        HOST, "context->SetBlockDim(blockDim);", "context->SetBlockDim(blockDim);\n    context->SetTilingKey(3);"
    )
    root = write_operator(tmp_path / "keyed3" / "scale", kernel=KEYED_KERNEL, host=host)
    m = run(root, emu_cache, case, golden)
    assert m.ok and m.correct and m.tiling_key == 3, m.error


# ---------------------------------------------------------------------------------------------------------------
# OPTIONAL and DYNAMIC: an optional input left out reaches the kernel as nullptr (later inputs keep their places), a
# DYNAMIC input and a DYNAMIC output are tensor lists the kernel reads with ListTensorDesc, a ValueDepend input's
# values reach the tiling, and an OpDef dtype the analysis cannot resolve does not stop the run.

LIST_HOST = """\
#include "register/op_def_registry.h"
namespace optiling {
struct ListScaleTiling {
    int32_t k;
    uint32_t hasBias;
};
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto* t = context->GetTilingData<ListScaleTiling>();
    t->k = *context->GetInputTensor(0)->GetData<int32_t>();
    t->hasBias = context->GetOptionalInputShape(1) != nullptr;
    context->SetBlockDim(1);
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}
namespace ops {
constexpr ge::DataType kFloat[] = {ge::DT_FLOAT};
class ListScale : public OpDef {
public:
    explicit ListScale(const char* name) : OpDef(name)
    {
        this->Input("k").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND}).ValueDepend(REQUIRED);
        this->Input("bias").ParamType(OPTIONAL).DataType({kFloat[0]}).Format({ge::FORMAT_ND});
        this->Input("xs").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("ys").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(ListScale);
}
"""

LIST_KERNEL = """\
#include "kernel_operator.h"
#include "kernel_operator_list_tensor_intf.h"
using namespace AscendC;
struct ListScaleTiling {
    int32_t k;
    uint32_t hasBias;
};
extern "C" __global__ __aicore__ void list_scale(GM_ADDR k, GM_ADDR bias, GM_ADDR xs, GM_ADDR ys, GM_ADDR workspace,
                                                GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(ListScaleTiling, t, tiling);
    if ((bias != nullptr) != (t.hasBias != 0)) {
        return;  // the optional input's pointer disagrees with the tiling: the outputs stay zero
    }
    ListTensorDesc in(reinterpret_cast<__gm__ void*>(xs));
    ListTensorDesc out(reinterpret_cast<__gm__ void*>(ys));
    TPipe pipe;
    TBuf<> buf, bbuf;
    pipe.InitBuffer(buf, 4096);
    pipe.InitBuffer(bbuf, 4096);
    for (uint32_t i = 0; i < in.GetSize(); ++i) {
        uint64_t shape[8];
        TensorDesc<float> desc;
        desc.SetShapeAddr(shape);
        in.GetDesc(desc, i);
        uint32_t n = 1;
        for (uint64_t d = 0; d < desc.GetDim(); ++d) {
            n *= desc.GetShape(d);
        }
        GlobalTensor<float> x = desc.GetDataObj();
        GlobalTensor<float> y;
        y.SetGlobalBuffer(out.GetDataPtr<float>(i), n);
        LocalTensor<float> v = buf.Get<float>();
        DataCopy(v, x, n);
        PipeBarrier<PIPE_ALL>();
        Muls(v, v, static_cast<float>(t.k), n);
        if (bias != nullptr) {
            GlobalTensor<float> b;
            b.SetGlobalBuffer((__gm__ float*)bias, n);
            LocalTensor<float> bv = bbuf.Get<float>();
            DataCopy(bv, b, n);
            PipeBarrier<PIPE_ALL>();
            Add(v, v, bv, n);
        }
        PipeBarrier<PIPE_ALL>();
        DataCopy(y, v, n);
        PipeBarrier<PIPE_ALL>();
    }
}
"""


LIST_FILES = {"op_host/list_scale.cpp": LIST_HOST, "op_kernel/list_scale.cpp": LIST_KERNEL}


def test_optional_dynamic_and_value_depend_inputs(tmp_path, emu_cache, needs_gxx):
    root = write(tmp_path / "list_scale", LIST_FILES)
    k = np.array([3], dtype=np.int32)
    with_bias = Case(
        name="b",
        inputs={
            "k": InputSpec(shape=[1], dtype="int32"),
            "bias": InputSpec(shape=[64], dtype="float32"),
            "xs[0]": InputSpec(shape=[64], dtype="float32"),
            "xs[1]": InputSpec(shape=[8, 8], dtype="float32"),
        },
    )
    # the golden takes the DYNAMIC input as a list in its OpDef place, and answers the DYNAMIC output with a list
    m = run(
        root,
        emu_cache,
        with_bias,
        "def golden(k, bias, xs):\n    return [xs[0] * k[0] + bias, xs[1] * k[0] + bias.reshape(8, 8)]\n",
        inputs={"k": k},
    )
    assert m.ok and m.correct, m.error
    assert [o.name for o in m.outputs] == ["ys[0]", "ys[1]"] and m.outputs[1].shape == [8, 8]
    without = Case(
        name="n",
        inputs={
            "k": InputSpec(shape=[1], dtype="int32"),
            **{f"xs[{i}]": InputSpec(shape=[32], dtype="float32") for i in range(3)},
        },
    )
    m = run(
        root,
        emu_cache,
        without,
        "def golden(k, bias, xs):\n    assert bias is None\n    return ([x * k[0] for x in xs],)\n",
        inputs={"k": k},
    )
    assert m.ok and m.correct and len(m.outputs) == 3, m.error
    # Without ValueDepend the tiling reads no values (nullptr, as on a device): the host crash is a typed error.
    root = write(
        tmp_path / "no_depend" / "list_scale",
        {
            "op_host/list_scale.cpp": LIST_HOST.replace(".ValueDepend(REQUIRED)", ""),
            "op_kernel/list_scale.cpp": LIST_KERNEL,
        },
    )
    m = run(root, emu_cache, without, inputs={"k": k})
    assert not m.ok and m.error.kind == "host_crash" and "ValueDepend" in m.error.message


def test_dynamic_names_bind_to_their_opdef_input(tmp_path):
    root = write(tmp_path / "list_scale", LIST_FILES)
    op = load_operator(root)
    case = Case(
        name="c",
        inputs={
            "k": InputSpec(shape=[1], dtype="int32"),
            "xs[0]": InputSpec(shape=[4], dtype="float32"),
            "xs[1]": InputSpec(shape=[4], dtype="float32"),
        },
    )
    macros, _ = bind_dtypes(op, case)
    assert macros["DTYPE_XS"] == "float" and "DTYPE_BIAS" not in macros
    assert output_names(op, 3) == ["ys[0]", "ys[1]", "ys[2]"] and output_names(op, 0) == ["ys[0]"]


# ---------------------------------------------------------------------------------------------------------------
# Static tensor programming (LocalTensor(pos, addr, size) without TPipe), TransDataTo5HD on address lists, and the
# high-level Sigmoid, Sum and ArithProgression.

STATIC_HOST = """\
#include "register/op_def_registry.h"
namespace optiling {
struct StaticTiling {
    uint32_t bad;
};
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    context->GetTilingData<StaticTiling>()->bad = static_cast<uint32_t>(*context->GetAttrs()->GetInt(0));
    context->SetBlockDim(1);
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}
namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext*)
{
    return ge::GRAPH_SUCCESS;  // sets no output: the caller allocates them (here the golden's shapes stand in)
}
}
namespace ops {
class Static : public OpDef {
public:
    explicit Static(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("xf").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("t").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("s").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("a").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
        this->Output("tf").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("rs").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Attr("bad").AttrType(OPTIONAL).Int(0);
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(Static);
}
"""

STATIC_KERNEL = """\
#include "kernel_operator.h"
#include "kernel_tiling/kernel_tiling.h"
#include "kernel_type.h"
using namespace AscendC;
struct StaticTiling {
    uint32_t bad;
};
extern "C" __global__ __aicore__ void static_op(GM_ADDR x, GM_ADDR xf, GM_ADDR t, GM_ADDR s, GM_ADDR a, GM_ADDR tf,
                                               GM_ADDR rs, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(StaticTiling, tl, tiling);
    if (tl.bad) {
        LocalTensor<half> wrong(TPosition::VECIN, 16, 16);
    }
    LocalTensor<half> in(TPosition::VECIN, 0, 256);
    LocalTensor<half> tr(TPosition::VECOUT, 512, 256);
    LocalTensor<half> sg(TPosition::VECOUT, 1024, 256);
    LocalTensor<int32_t> ar(TPosition::VECCALC, 1536, 64);
    LocalTensor<float> fin(TPosition::VECIN, 2048, 128);
    LocalTensor<float> fout(TPosition::VECOUT, 2560, 128);
    LocalTensor<half> sums(TPosition::VECOUT, 3072, 16);
    GlobalTensor<half> xGm, tGm, sGm;
    GlobalTensor<int32_t> aGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, 256);
    tGm.SetGlobalBuffer((__gm__ half*)t, 256);
    sGm.SetGlobalBuffer((__gm__ half*)s, 256);
    aGm.SetGlobalBuffer((__gm__ int32_t*)a, 64);
    GlobalTensor<float> xfGm, tfGm;
    xfGm.SetGlobalBuffer((__gm__ float*)xf, 128);
    tfGm.SetGlobalBuffer((__gm__ float*)tf, 128);
    DataCopy(in, xGm, 256);
    DataCopy(fin, xfGm, 128);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    uint64_t dst[NCHW_CONV_ADDR_LIST_SIZE], src[NCHW_CONV_ADDR_LIST_SIZE];
    for (int32_t i = 0; i < NCHW_CONV_ADDR_LIST_SIZE; ++i) {
        src[i] = in[i * 16].GetPhyAddr();
        dst[i] = tr[i * 16].GetPhyAddr();
    }
    TransDataTo5HDParams params;
    TransDataTo5HD<half>(dst, src, params);
    for (int32_t i = 0; i < NCHW_CONV_ADDR_LIST_SIZE; ++i) {  // 32-bit: a 16 x 8 matrix becomes 8 x 16
        src[i] = fin[i * 8].GetPhyAddr();
        dst[i] = fout[(i / 2) * 16 + (i % 2) * 8].GetPhyAddr();
    }
    TransDataTo5HD<float>(dst, src, params);
    Sigmoid(sg, in, 256);
    ArithProgression(ar, 5, 3, 64);
    SumParams sp;
    sp.outter = 16;
    sp.inner = 16;
    sp.n = 16;
    Sum(sums, in, sp);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(tGm, tr, 256);
    DataCopy(sGm, sg, 256);
    DataCopy(aGm, ar, 64);
    DataCopy(tfGm, fout, 128);
    GlobalTensor<half> rsGm;
    rsGm.SetGlobalBuffer((__gm__ half*)rs, 16);
    DataCopy(rsGm, sums, 16);
}
"""


def test_static_tensors_transdata_and_library_apis(tmp_path, emu_cache, needs_gxx):
    root = write(
        tmp_path / "static_op", {"op_host/static_op.cpp": STATIC_HOST, "op_kernel/static_op.cpp": STATIC_KERNEL}
    )
    case = Case(
        name="c",
        inputs={"x": InputSpec(shape=[16, 16], dtype="float16"), "xf": InputSpec(shape=[16, 8], dtype="float32")},
        attrs={"bad": 0},
    )
    golden = (
        "def golden(x, xf, bad=0):\n    sig = (1 / (1 + np.exp(-x.astype(np.float32)))).astype(np.float16)\n"
        "    rows = x.astype(np.float64).sum(axis=1).astype(np.float16)\n"
        "    return x.T, sig, (5 + 3 * np.arange(64)).astype(np.int32), xf.T, rows\n"
    )
    m = run(root, emu_cache, case, golden)
    assert m.ok and m.correct, m.error
    assert m.ub_peak_bytes == 3072 + 16 * 2  # the static tensors' extent counts as UB use
    assert [o.shape for o in m.outputs] == [[16, 16], [16, 16], [64], [8, 16], [16]]  # InferShape set none
    m = run(root, emu_cache, Case(name="c", inputs=case.inputs, attrs={"bad": 1}), golden)
    assert not m.ok and m.error.kind == "misaligned" and m.error.line == line_of(STATIC_KERNEL, "wrong(")


# ---------------------------------------------------------------------------------------------------------------
# A kernel-invocation program in the samples' style: data_utils.h's ReadFile / WriteFile, and outputs the sources
# name only through the files the program writes.

INVOCATION = """\
#include "data_utils.h"
#include "kernel_operator.h"

// No `using namespace AscendC`: PIPE_V and EVENT_ID0 are the device compiler's global enumerators.
extern "C" __global__ __aicore__ void plus_one(GM_ADDR x, GM_ADDR z)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<> buf;
    pipe.InitBuffer(buf, 512 * sizeof(float));
    AscendC::LocalTensor<float> v = buf.Get<float>();
    AscendC::GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + 512 * AscendC::GetBlockIdx(), 512);
    zGm.SetGlobalBuffer((__gm__ float*)z + 512 * AscendC::GetBlockIdx(), 512);
    AscendC::DataCopy(v, xGm, 512);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::Adds(v, v, 1.0f, 512);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID1);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID1);
    AscendC::DataCopy(zGm, v, 512);
}

int32_t main(int32_t argc, char* argv[])
{
    size_t bytes = 4 * 512 * sizeof(float);
    uint8_t *xHost, *zHost, *xDevice, *zDevice;
    CHECK_ACL(aclrtMallocHost((void**)(&xHost), bytes));
    CHECK_ACL(aclrtMallocHost((void**)(&zHost), bytes));
    CHECK_ACL(aclrtMalloc((void**)&xDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc((void**)&zDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ReadFile("./input/input_x.bin", bytes, xHost, bytes);
    CHECK_ACL(aclrtMemcpy(xDevice, bytes, xHost, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    plus_one<<<4, nullptr, nullptr>>>(xDevice, zDevice);
    CHECK_ACL(aclrtMemcpy(zHost, bytes, zDevice, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    WriteFile("./output/output_z.bin", zHost, bytes);
    return 0;
}
"""


def test_invocation_with_data_utils_and_unnamed_outputs(tmp_path, emu_cache, needs_gxx):
    root = write(tmp_path / "plus_one", {"plus_one.cpp": INVOCATION})
    case = Case(name="c", inputs={"x": InputSpec(shape=[4, 512], dtype="float32")})
    m = run(root, emu_cache, case, "def golden(x):\n    return x + 1\n")
    assert m.ok and m.correct and m.block_dim == 4, m.error
    assert [o.name for o in m.outputs] == ["z"]


# ---------------------------------------------------------------------------------------------------------------
# The Python half: 16-bit outputs get one unit in the last place of slack; user arrays that do not fit the case.


def test_sixteen_bit_outputs_are_judged_at_their_own_precision():
    want = np.array([300.0, 2.5, -7.0])
    for dtype, ulp in (
        ("bfloat16", np.array([2.0, 2.0**-6, 2.0**-5])),
        ("float16", np.spacing(want.astype(np.float16)).astype(np.float64)),
    ):
        out = [OutputCheck(name="y", shape=[3], dtype=dtype)]
        got = want + ulp
        raw = (
            got.astype(np.float16)
            if dtype == "float16"
            else (got.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
        )
        (ok,) = check_outputs(out, [raw], [want], rtol=1e-4, atol=0)
        assert ok.ok, dtype
        raw = (
            (want + 3 * ulp).astype(np.float16)
            if dtype == "float16"
            else ((want + 3 * ulp).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
        )
        (bad,) = check_outputs(out, [raw], [want], rtol=1e-4, atol=0)
        assert not bad.ok and bad.mismatches == 3, dtype


def test_a_given_array_of_the_wrong_size_is_a_case_error():
    case = Case(name="c", inputs={"x": InputSpec(shape=[4, 4], dtype="float32")})
    with pytest.raises(ValueError, match="input x: an array of shape \\[10\\]"):
        make_inputs(case, 0, overrides={"x": np.zeros(10)})
