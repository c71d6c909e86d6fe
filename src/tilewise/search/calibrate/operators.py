"""The two calibration operators as files: host tiling, kernel, golden and a manifest listing every micro-kernel
case, written to a scratch folder so that any device (the emulator, an NPU) builds and runs them like a user's
operator. kernels.py says what each operator does and why; the texts here are written for this project.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from tilewise.analysis.manifest import Case
from tilewise.search.calibrate.kernels import COPY_OP, VECTOR_CLASSES, VECTOR_OP, MicroKernel

_TILING_H = """\
#include "register/tilingdata_base.h"
namespace optiling {{
BEGIN_TILING_DATA_DEF({cls}TilingData)
{fields}END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS({cls}, {cls}TilingData)
}}
"""

_HOST = """\
#include "{stem}_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {{
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{{
    {cls}TilingData tiling;
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
{sets}    context->SetBlockDim({block_dim});
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspaces = context->GetWorkspaceSizes(1);
    workspaces[0] = 0;
    return ge::GRAPH_SUCCESS;
}}
}}

namespace ops {{
class {cls} : public OpDef {{
public:
    explicit {cls}(const char* name) : OpDef(name)
    {{
{tensors}{attrs}        this->AICore().SetTiling(optiling::TilingFunc);
{config}    }}
}};
OP_ADD({cls});
}}
"""

_COPY_KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;

// Times copies: mode 0 a round trip per tile through `depth` buffers, mode 1 a chain of waited-for reads,
// mode 2 a chain of waited-for writes.
class CopyTimer {
public:
    __aicore__ inline CopyTimer() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t tile, uint32_t tiles, uint32_t depth, uint32_t mode)
    {
        this->tile = tile;
        this->tiles = tiles;
        this->mode = mode;
        uint32_t inLength = mode == 2 ? tile : tile * tiles;
        uint32_t outLength = mode == 1 ? tile : tile * tiles;
        xGm.SetGlobalBuffer((__gm__ half*)x + inLength * GetBlockIdx(), inLength);
        yGm.SetGlobalBuffer((__gm__ half*)y + outLength * GetBlockIdx(), outLength);
        pipe.InitBuffer(queue, depth, tile * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        if (mode == 1) {
            ReadChain();
        } else if (mode == 2) {
            WriteChain();
        } else {
            RoundTrip();
        }
    }

private:
    __aicore__ inline void RoundTrip()
    {
        for (uint32_t i = 0; i < tiles; i++) {
            LocalTensor<half> in = queue.AllocTensor<half>();
            DataCopy(in, xGm[i * tile], tile);
            queue.EnQue(in);
            LocalTensor<half> out = queue.DeQue<half>();
            DataCopy(yGm[i * tile], out, tile);
            queue.FreeTensor(out);
        }
    }
    __aicore__ inline void ReadChain()
    {
        LocalTensor<half> buffer = queue.AllocTensor<half>();
        for (uint32_t i = 0; i < tiles; i++) {
            DataCopy(buffer, xGm[i * tile], tile);
            PipeBarrier<PIPE_ALL>();
        }
        queue.EnQue(buffer);
        LocalTensor<half> out = queue.DeQue<half>();
        DataCopy(yGm, out, tile);
        queue.FreeTensor(out);
    }
    __aicore__ inline void WriteChain()
    {
        LocalTensor<half> buffer = queue.AllocTensor<half>();
        DataCopy(buffer, xGm, tile);
        queue.EnQue(buffer);
        LocalTensor<half> out = queue.DeQue<half>();
        for (uint32_t i = 0; i < tiles; i++) {
            DataCopy(yGm[i * tile], out, tile);
            PipeBarrier<PIPE_ALL>();
        }
        queue.FreeTensor(out);
    }

    TPipe pipe;
    TQueBind<QuePosition::VECIN, QuePosition::VECOUT, 2> queue;
    GlobalTensor<half> xGm;
    GlobalTensor<half> yGm;
    uint32_t tile;
    uint32_t tiles;
    uint32_t mode;
};

extern "C" __global__ __aicore__ void cal_copy(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    CopyTimer op;
    op.Init(x, y, tilingData.tile, tilingData.tiles, tilingData.depth, tilingData.mode);
    op.Process();
}
"""

_VECTOR_KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;

// Times one vector instruction class: `reps` instructions on `count` elements, each behind a PIPE_V barrier.
// Operands in one buffer: src1 half a 512-byte bank row after src0's row, dst bank for bank on src0.
template <typename T>
class VectorTimer {
public:
    __aicore__ inline VectorTimer() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR x2, GM_ADDR y, uint32_t count, uint32_t span, uint32_t reps,
                                uint32_t opcode)
    {
        this->count = count;
        this->span = span;
        this->reps = reps;
        this->opcode = opcode;
        xGm.SetGlobalBuffer((__gm__ T*)x, span);
        x2Gm.SetGlobalBuffer((__gm__ T*)x2, span);
        yGm.SetGlobalBuffer((__gm__ T*)y, span);
        uint32_t row = (span * sizeof(T) + 511) / 512 * 512;
        pipe.InitBuffer(operands, 4 * row + 512);
        src0 = operands.GetWithOffset<T>(span, 0);
        src1 = operands.GetWithOffset<T>(span, row + 256);
        dst = operands.GetWithOffset<T>(span, 2 * row + 512);
        work = operands.GetWithOffset<T>(span, 3 * row + 512);
    }
    __aicore__ inline void Process()
    {
        DataCopy(src0, xGm, span);
        DataCopy(src1, x2Gm, span);
        Duplicate(dst, static_cast<T>(0.0f), span);
        PipeBarrier<PIPE_ALL>();
        for (uint32_t i = 0; i < reps; i++) {
            Issue();
            PipeBarrier<PIPE_V>();
        }
        PipeBarrier<PIPE_ALL>();
        DataCopy(yGm, dst, span);
    }

private:
    __aicore__ inline void Issue()
    {
        switch (opcode) {
{cases}            default:
                break;
        }
    }

    TPipe pipe;
    TBuf<QuePosition::VECCALC> operands;
    LocalTensor<T> src0;
    LocalTensor<T> src1;
    LocalTensor<T> dst;
    LocalTensor<T> work;
    GlobalTensor<T> xGm;
    GlobalTensor<T> x2Gm;
    GlobalTensor<T> yGm;
    uint32_t count;
    uint32_t span;
    uint32_t reps;
    uint32_t opcode;
};

extern "C" __global__ __aicore__ void cal_vector(GM_ADDR x, GM_ADDR x2, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    VectorTimer<DTYPE_X> op;
    op.Init(x, x2, y, tilingData.count, tilingData.span, tilingData.reps, tilingData.opcode);
    op.Process();
}
"""

_GOLDEN = '''\
"""Goldens of the calibration micro-kernels (written by tilewise calibrate)."""

import numpy as np

VECTOR = {vector}


def copy_golden(x, blocks=1, tile=16, tiles=1, depth=1, mode=0):
    per_block = x.reshape(blocks, -1)
    if mode == 1:  # the last tile each block read
        return per_block.reshape(blocks, tiles, tile)[:, -1, :].reshape(-1)
    if mode == 2:  # one tile written `tiles` times
        return np.tile(per_block, (1, tiles)).reshape(-1)
    return x.copy()


def vector_golden(x, x2, count=64, span=64, reps=1, opcode=0):
    a = x.astype(np.float32)[:count]
    b = x2.astype(np.float32)[:count]
    y = np.zeros(span, np.float32)
    if reps:
        value = VECTOR[opcode](a, b)
        if np.ndim(value) == 0:
            y[0] = value
        else:
            y[:count] = value
    return y.astype(x.dtype)
'''

_COPY_ATTRS = ("blocks", "tile", "tiles", "depth", "mode")
_VECTOR_ATTRS = ("count", "span", "reps", "opcode")


def write_operators(root: Path, kernels: list[MicroKernel], soc: str) -> dict[str, Path]:
    """Write both operators under `root` (their manifests list `kernels`' cases) and return their folders by name.
    Files are rewritten only when their text changed, so a device's build cache keeps serving them."""
    folders = {}
    for name, cls, attrs, inputs, dtypes, kernel in (
        (COPY_OP, "CalCopy", _COPY_ATTRS, ("x",), "ge::DT_FLOAT16", _COPY_KERNEL),
        (VECTOR_OP, "CalVector", _VECTOR_ATTRS, ("x", "x2"), "ge::DT_FLOAT16, ge::DT_FLOAT", _vector_kernel()),
    ):
        folder = root / name
        block_dim = "static_cast<uint32_t>(*attrs->GetAttrPointer<int64_t>(0))" if name == COPY_OP else "1"
        fields = "".join(f"    TILING_DATA_FIELD_DEF(uint32_t, {a});\n" for a in attrs if a != "blocks")
        sets = "".join(
            f"    tiling.set_{a}(static_cast<uint32_t>(*attrs->GetAttrPointer<int64_t>({i})));\n"
            for i, a in enumerate(attrs)
            if a != "blocks"
        )
        formats = ", ".join(["ge::FORMAT_ND"] * (dtypes.count(",") + 1))
        tensors = "".join(
            f'        this->{kind}("{t}").ParamType(REQUIRED).DataType({{{dtypes}}}).Format({{{formats}}});\n'
            for kind, names in (("Input", inputs), ("Output", ("y",)))
            for t in names
        )
        attr_lines = "".join(f'        this->Attr("{a}").AttrType(OPTIONAL).Int(1);\n' for a in attrs)
        config = f'        this->AICore().AddConfig("{soc}");\n' if soc else ""
        host = _HOST.format(
            stem=name, cls=cls, sets=sets, block_dim=block_dim, tensors=tensors, attrs=attr_lines, config=config
        )
        golden = "copy_golden" if name == COPY_OP else "vector_golden"
        cases = [k.case for k in kernels if k.operator == name]
        files = {
            f"op_host/{name}_tiling.h": _TILING_H.format(cls=cls, fields=fields),
            f"op_host/{name}.cpp": host,
            f"op_kernel/{name}.cpp": kernel,
            "golden.py": _GOLDEN.format(vector=_vector_table()),
            "tilewise.toml": _manifest(golden, cases),
        }
        for rel, text in files.items():
            _write_if_changed(folder / rel, text)
        folders[name] = folder
    return folders


def _vector_kernel() -> str:
    cases = "".join(
        f"            case {i}:\n                {call};\n                break;\n"
        for i, (call, _) in enumerate(VECTOR_CLASSES.values())
    )
    return _VECTOR_KERNEL.replace("{cases}", cases)


def _vector_table() -> str:
    return "[\n" + "".join(f"    lambda a, b: {expr},  # {name}\n" for name, (_, expr) in VECTOR_CLASSES.items()) + "]"


def _manifest(golden: str, cases: list[Case]) -> str:
    lines = [
        "# The calibration micro-kernels (written by tilewise calibrate; see search/calibrate/kernels.py).",
        "[golden]",
        f'function = "golden.py:{golden}"',
        "rtol = 0.02",
        "atol = 0.02",
    ]
    for case in cases:
        lines += ["", "[[cases]]", f'name = "{case.name}"']
        lines.append("attrs = { " + ", ".join(f"{k} = {v}" for k, v in case.attrs.items()) + " }")
        for name, spec in case.inputs.items():
            lines.append(f'inputs.{name} = {{ shape = {spec.shape}, dtype = "{spec.dtype}", init = "{spec.init}" }}')
        for name, out in case.outputs.items():
            lines.append(f"outputs.{name} = {{ rtol = {out.rtol}, atol = {out.atol} }}")
    return "\n".join(lines) + "\n"


def _write_if_changed(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary file renamed over it (two calibrations may share the folder)."""
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)
