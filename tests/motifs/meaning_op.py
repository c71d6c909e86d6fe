"""A small two-input elementwise operator written for the tests of the detectors by meaning (issue 32 item 5), with
the places a slow spelling goes left as holes: the vector compute, how the host fixes the core count and the tile,
and how the kernel writes a queue's depth.

`write_mix(root, ...)` writes the operator (host, tiling header, kernel, golden, manifest); every hole has a fast
default, and a test passes the slow spelling it is about. The golden is numpy's, from `GOLDENS`.
"""

from __future__ import annotations

from pathlib import Path

TILING_H = """\
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(MixTilingData)
    TILING_DATA_FIELD_DEF(uint32_t, blockLength);
    TILING_DATA_FIELD_DEF(uint32_t, lastLength);
    TILING_DATA_FIELD_DEF(uint32_t, tileLength);
    TILING_DATA_FIELD_DEF(float, lo);
    TILING_DATA_FIELD_DEF(float, hi);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(Mix, MixTilingData)
}
"""

# Holes: @PRELUDE@ (file-scope lines), @CORES@ (statements that leave the core count in `cores`), @TILE@ (statements
# that leave the tile length in `tile`, from `perCore`, the elements of one core).
HOST = """\
#include "mix_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include <algorithm>

@PRELUDE@

namespace optiling {
static ge::graphStatus MixTiling(gert::TilingContext* context)
{
    MixTilingData tiling;
    uint32_t total = static_cast<uint32_t>(context->GetInputShape(0)->GetOriginShape().GetShapeSize());
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = platform.GetCoreNumAiv();
@CORES@
    if (cores < 1) {
        cores = 1;
    }
    // Every core but the last takes whole 64-element groups (aligned for any dtype); the last takes the rest.
    uint32_t perCore = (total + cores - 1) / cores;
    perCore = (perCore + 63) / 64 * 64;
    uint32_t used = (total + perCore - 1) / perCore;
@TILE@
    tile = tile / 64 * 64;
    if (tile == 0) {
        tile = 64;
    }
    tiling.set_blockLength(perCore);
    tiling.set_lastLength(total - (used - 1) * perCore);
    tiling.set_tileLength(tile);
    tiling.set_lo(-0.5f);
    tiling.set_hi(0.75f);
    context->SetBlockDim(used);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}

namespace ops {
class Mix : public OpDef {
public:
    explicit Mix(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("z")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::MixTiling);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(Mix);
}
"""

FAST_CORES = "    uint32_t cores = coreNum;"
FAST_TILE = "    uint32_t tile = std::min<uint32_t>(perCore, 8192);"

# Holes: @KPRELUDE@ (file-scope lines), @TEMPLATE@ (the class's template head), @DEPTH@ (the queues' depth
# template argument), @COUNT@ (each InitBuffer's buffer count), @MEMBERS@ (more members), @COMPUTE@ (the vector
# work on xLocal, yLocal -> zLocal over `len` elements), @KERNEL_T@ (the class as the entry instantiates it).
KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;

@KPRELUDE@

@TEMPLATE@
class KernelMix {
public:
    __aicore__ inline KernelMix() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t blockLength, uint32_t lastLength,
                                uint32_t tileLength, float lo, float hi)
    {
        uint32_t start = blockLength * GetBlockIdx();
        this->length = GetBlockIdx() == GetBlockNum() - 1 ? lastLength : blockLength;
        this->tileLength = tileLength;
        this->lo = lo;
        this->hi = hi;
        xGm.SetGlobalBuffer((__gm__ T*)x + start, this->length);
        yGm.SetGlobalBuffer((__gm__ T*)y + start, this->length);
        zGm.SetGlobalBuffer((__gm__ T*)z + start, this->length);
        pipe.InitBuffer(inX, @COUNT@, tileLength * sizeof(T));
        pipe.InitBuffer(inY, @COUNT@, tileLength * sizeof(T));
        pipe.InitBuffer(outZ, @COUNT@, tileLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        uint32_t tiles = (length + tileLength - 1) / tileLength;
        for (uint32_t t = 0; t < tiles; t++) {
            uint32_t len = t == tiles - 1 ? length - t * tileLength : tileLength;
            CopyIn(t, len);
            Compute(len);
            CopyOut(t, len);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t t, uint32_t len)
    {
        LocalTensor<T> xLocal = inX.AllocTensor<T>();
        LocalTensor<T> yLocal = inY.AllocTensor<T>();
        DataCopy(xLocal, xGm[t * tileLength], len);
        DataCopy(yLocal, yGm[t * tileLength], len);
        inX.EnQue(xLocal);
        inY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t len)
    {
        LocalTensor<T> xLocal = inX.DeQue<T>();
        LocalTensor<T> yLocal = inY.DeQue<T>();
        LocalTensor<T> zLocal = outZ.AllocTensor<T>();
@COMPUTE@
        outZ.EnQue<T>(zLocal);
        inX.FreeTensor(xLocal);
        inY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t t, uint32_t len)
    {
        LocalTensor<T> zLocal = outZ.DeQue<T>();
        DataCopy(zGm[t * tileLength], zLocal, len);
        outZ.FreeTensor(zLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, @DEPTH@> inX;
    TQue<QuePosition::VECIN, @DEPTH@> inY;
    TQue<QuePosition::VECOUT, @DEPTH@> outZ;
    GlobalTensor<T> xGm;
    GlobalTensor<T> yGm;
    GlobalTensor<T> zGm;
    uint32_t length = 0;
    uint32_t tileLength = 0;
    float lo = 0.0f;
    float hi = 0.0f;
@MEMBERS@
};

extern "C" __global__ __aicore__ void mix(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    @KERNEL_T@ op;
    op.Init(x, y, z, tilingData.blockLength, tilingData.lastLength, tilingData.tileLength, tilingData.lo,
            tilingData.hi);
    op.Process();
}
"""

FAST_KERNEL = {
    "@KPRELUDE@": "",
    "@TEMPLATE@": "template <typename T>",
    "@DEPTH@": "2",
    "@COUNT@": "2",
    "@MEMBERS@": "",
    "@COMPUTE@": "        Add(zLocal, xLocal, yLocal, len);",
    "@KERNEL_T@": "KernelMix<DTYPE_X>",
}

# numpy goldens of the computations the tests write, by name: each takes x and y and returns z in x's dtype.
GOLDENS = {
    "add": "(x.astype(np.float32) + y.astype(np.float32)).astype(x.dtype)",
    "clamp": "np.clip(x.astype(np.float32), -0.5, 0.75).astype(x.dtype)",
    "max": "np.maximum(x, y)",
    "blend": "((x.astype(np.float32) * 0.5 + y.astype(np.float32)) * 2.0).astype(x.dtype)",
    "relu_sub": "np.maximum(x.astype(np.float32) - y.astype(np.float32), 0).astype(x.dtype)",
}


def _fill(template: str, holes: dict[str, str]) -> str:
    text = template
    for hole, value in holes.items():
        text = text.replace(hole, value)
    assert "@" not in text.replace("@param", ""), "test fixture: a hole left unfilled"
    return text


def write_mix(
    root: Path,
    *,
    compute: str | None = None,
    golden: str = "add",
    cores: str = FAST_CORES,
    tile: str = FAST_TILE,
    prelude: str = "",
    kernel: dict[str, str] | None = None,
    elements: int = 48 * 8192,
    dtypes: tuple[str, ...] = ("float16", "float32"),
) -> Path:
    """The Mix operator at `root` with the holes filled (fast defaults for what is not given); one case per dtype of
    `elements` elements (a 1-d shape)."""
    holes = {**FAST_KERNEL, **(kernel or {})}
    if compute is not None:
        holes["@COMPUTE@"] = compute
    (root / "op_host").mkdir(parents=True, exist_ok=True)
    (root / "op_kernel").mkdir(parents=True, exist_ok=True)
    (root / "op_host" / "mix_tiling.h").write_text(TILING_H)
    host = _fill(HOST, {"@PRELUDE@": prelude, "@CORES@": cores, "@TILE@": tile})
    (root / "op_host" / "mix.cpp").write_text(host)
    (root / "op_kernel" / "mix.cpp").write_text(_fill(KERNEL, holes))
    (root / "golden.py").write_text(f"import numpy as np\n\n\ndef golden(x, y):\n    return {GOLDENS[golden]}\n")
    cases = "".join(
        f'[[cases]]\nname = "{dt}"\n[cases.inputs.x]\nshape = [{elements}]\ndtype = "{dt}"\n'
        f'[cases.inputs.y]\nshape = [{elements}]\ndtype = "{dt}"\n\n'
        for dt in dtypes
    )
    head = '[operator]\nname = "Mix"\n\n[golden]\nfunction = "golden.py:golden"\nrtol = 2e-3\natol = 2e-3\n\n'
    (root / "tilewise.toml").write_text(head + cases)
    return root
