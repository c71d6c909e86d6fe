"""The blind recipes (benchmarks/blind_recipes.py) on two small operators written here: one with every pattern
they look for (a tiling that asks the platform for the cores and the UB, a tile constant, double-buffered queues,
an Add and a clamp in the tile loop, a float tile narrowed for output, a copy out), on which each recipe changes the
text as intended; and one with none of them (no tile loop, no queue, one core), on which each returns None. A slow
test runs every slowed variant on the emulator: each must stay correct."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tilewise.analysis.operator import Operator, load_operator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.blind_recipes import RECIPES

TILING_H = """\
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(ClipAddTilingData)
    TILING_DATA_FIELD_DEF(uint32_t, blockLength);
    TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ClipAdd, ClipAddTilingData)
}
"""

HOST = """\
#include "clip_add_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

constexpr uint32_t MAX_TILE = 2048;

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    ClipAddTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t cores = platform.GetCoreNumAiv();
    uint64_t ubBytes = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubBytes);
    uint32_t total = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    // three half queues of two buffers and one float buffer: 16 bytes an element, in 1024-element steps (the
    // case's 4096 elements a core divide into whole tiles)
    uint32_t fit = static_cast<uint32_t>(ubBytes / 16) / 1024 * 1024;
    uint32_t tile = fit < MAX_TILE ? fit : MAX_TILE;
    uint32_t perCore = total / cores;
    tiling.set_blockLength(perCore);
    tiling.set_tileLength(tile);
    context->SetBlockDim(cores);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}

namespace ops {
class ClipAdd : public OpDef {
public:
    explicit ClipAdd(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ClipAdd);
}
"""

# z = half(float(clamp(x + y, -1, 1)) * 0.5), tile by tile, two buffers per queue.
KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelClipAdd {
public:
    __aicore__ inline KernelClipAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t blockLength, uint32_t tileLength)
    {
        this->blockLength = blockLength;
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ half*)x + blockLength * GetBlockIdx(), blockLength);
        yGm.SetGlobalBuffer((__gm__ half*)y + blockLength * GetBlockIdx(), blockLength);
        zGm.SetGlobalBuffer((__gm__ half*)z + blockLength * GetBlockIdx(), blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(half));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(half));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(half));
        pipe.InitBuffer(wideBuf, tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        uint32_t loops = blockLength / tileLength;
        for (uint32_t i = 0; i < loops; i++) {
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress)
    {
        LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
        LocalTensor<half> yLocal = inQueueY.AllocTensor<half>();
        DataCopy(xLocal, xGm[progress * tileLength], tileLength);
        DataCopy(yLocal, yGm[progress * tileLength], tileLength);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        LocalTensor<half> yLocal = inQueueY.DeQue<half>();
        LocalTensor<half> zLocal = outQueueZ.AllocTensor<half>();
        Add(zLocal, xLocal, yLocal, tileLength);
        Maxs(zLocal, zLocal, (half)-1.0, tileLength);
        Mins(zLocal, zLocal, (half)1.0, tileLength);
        LocalTensor<float> wide = wideBuf.Get<float>();
        Cast(wide, zLocal, RoundMode::CAST_NONE, tileLength);
        Muls(wide, wide, 0.5f, tileLength);
        Cast(zLocal, wide, RoundMode::CAST_RINT, tileLength);
        outQueueZ.EnQue<half>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress)
    {
        LocalTensor<half> zLocal = outQueueZ.DeQue<half>();
        DataCopy(zGm[progress * tileLength], zLocal, tileLength);
        outQueueZ.FreeTensor(zLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    TBuf<TPosition::VECCALC> wideBuf;
    GlobalTensor<half> xGm;
    GlobalTensor<half> yGm;
    GlobalTensor<half> zGm;
    uint32_t blockLength;
    uint32_t tileLength;
};

extern "C" __global__ __aicore__ void clip_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelClipAdd op;
    op.Init(x, y, z, tilingData.blockLength, tilingData.tileLength);
    op.Process();
}
"""

GOLDEN = """\
import numpy as np

def golden(x, y):
    s = np.clip(x + y, -1.0, 1.0).astype(np.float16)
    return (s.astype(np.float32) * 0.5).astype(np.float16)
"""

MANIFEST = """\
[golden]
function = "golden.py:golden"
rtol = 1e-3
atol = 1e-3

[[cases]]
name = "even"
[cases.inputs.x]
shape = [48, 4096]
dtype = "float16"
[cases.inputs.y]
shape = [48, 4096]
dtype = "float16"
"""

# One core copies one block in and out: no tile loop, no queue, no platform query, no tile constant.
BARE_HOST = """\
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    context->SetBlockDim(1);
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}

namespace ops {
class Bare : public OpDef {
public:
    explicit Bare(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(Bare);
}
"""

BARE_KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void bare(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256);
    LocalTensor<half> v = buf.Get<half>();
    GlobalTensor<half> xGm;
    GlobalTensor<half> yGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, 128);
    yGm.SetGlobalBuffer((__gm__ half*)y, 128);
    DataCopy(v, xGm, 128);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yGm, v, 128);
}
"""


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.fixture
def clip_add(tmp_path: Path) -> Operator:
    root = _write(
        tmp_path / "clip_add",
        {
            "op_host/clip_add_tiling.h": TILING_H,
            "op_host/clip_add.cpp": HOST,
            "op_kernel/clip_add.cpp": KERNEL,
            "golden.py": GOLDEN,
            "tilewise.toml": MANIFEST,
        },
    )
    return load_operator(root)


@pytest.fixture
def bare(tmp_path: Path) -> Operator:
    root = _write(tmp_path / "bare", {"op_host/bare.cpp": BARE_HOST, "op_kernel/bare.cpp": BARE_KERNEL})
    return load_operator(root)


def _changed(op: Operator, recipe: str) -> tuple[str, str]:
    """(host, kernel) after the recipe, each the original text where it left the file alone."""
    out = RECIPES[recipe][1](op)
    assert out is not None, f"{recipe} does not fit the test operator"
    host = next(p for p in op.sources if p.endswith("op_host/clip_add.cpp"))
    kernel = next(p for p in op.sources if p.endswith("op_kernel/clip_add.cpp"))
    assert set(out) <= {host, kernel}
    return out.get(host, op.sources[host].text), out.get(kernel, op.sources[kernel].text)


# What each recipe must write (present) and take away (gone), in the host or the kernel.
EXPECTED: dict[str, tuple[list[str], list[str]]] = {
    "float-cast-scalar-loop": (
        ["zLocal.SetValue(k, (half)((float)xLocal.GetValue(k) + (float)yLocal.GetValue(k)));", "HardEvent::V_S"],
        ["Add(zLocal, xLocal, yLocal, tileLength);"],
    ),
    "clamp-if-chain": (
        ["if (v < (float)((half)-1.0)) {", "if (v > (float)((half)1.0)) {", "zLocal.SetValue(k, (half)v);"],
        ["Maxs(", "Mins("],
    ),
    "aiv-num-local": (["uint32_t cores = 2U;"], ["GetCoreNumAiv()"]),
    "ub-split-eightfold": (["ubBytes = ubBytes / 8;"], []),
    "tile-constant-divided": (["constexpr uint32_t MAX_TILE = (2048 / 8);"], []),
    "barrier-before-enque": (["AscendC::PipeBarrier<PIPE_ALL>();\n        outQueueZ.EnQue<half>(zLocal);"], []),
    "pipe-barrier-after-copy-out": (["zLocal, tileLength);\n        pipe_barrier(PIPE_ALL);"], []),
    "queue-slots-enum": (
        ["enum : int32_t { SINGLE_SLOT = 1 };", "InitBuffer(outQueueZ, SINGLE_SLOT,"],
        ["InitBuffer(inQueueX, BUFFER_NUM"],
    ),
    "queue-depth-member": (
        ["static constexpr int32_t queueDepth = 1;", "InitBuffer(inQueueY, queueDepth,"],
        ["InitBuffer(inQueueY, BUFFER_NUM"],
    ),
    "padded-copy-out": (
        ["AscendC::DataCopyPad(zGm[progress * tileLength], zLocal, AscendC::DataCopyExtParams{1,"],
        ["DataCopy(zGm[progress * tileLength], zLocal, tileLength);"],
    ),
    "output-reloaded": (["AscendC::DataCopy(zLocal, zGm[progress * tileLength], tileLength);", "MTE3_MTE2"], []),
    "chunked-copy-out": (
        ["AscendC::DataCopy(zGm[(progress * tileLength) + piece], zLocal[piece],"],
        ["DataCopy(zGm[progress * tileLength], zLocal, tileLength);"],
    ),
    "narrow-twice": (
        [
            "AscendC::Cast(zLocal, wide, RoundMode::CAST_RINT, tileLength);\n"
            "        AscendC::Cast(wide, zLocal, AscendC::RoundMode::CAST_NONE, tileLength);\n"
            "        Cast(zLocal, wide, RoundMode::CAST_RINT, tileLength);"
        ],
        [],
    ),
}


def test_every_recipe_has_an_expectation_and_names_a_motif() -> None:
    motifs = {
        "double-buffer",
        "pipe-sync",
        "large-tiles",
        "all-cores",
        "aligned-copy",
        "ub-resident",
        "vector-not-scalar",
        "cast-round-trip",
        "merged-copy",
    }
    assert set(RECIPES) - {"used-cores-local"} == set(EXPECTED)
    assert {motif for motif, _ in RECIPES.values()} <= motifs
    for motif, recipe in RECIPES.values():
        assert recipe.__doc__ and recipe.__doc__.startswith(f"{motif}:")


@pytest.mark.parametrize("recipe", sorted(EXPECTED))
def test_recipe_changes_the_text_as_intended(clip_add: Operator, recipe: str) -> None:
    host, kernel = _changed(clip_add, recipe)
    present, gone = EXPECTED[recipe]
    for text in present:
        assert text in host or text in kernel, f"{recipe}: {text!r} not written"
    for text in gone:
        assert text not in host and text not in kernel, f"{recipe}: {text!r} still there"


def test_clamp_pair_is_one_loop(clip_add: Operator) -> None:
    _, kernel = _changed(clip_add, "clamp-if-chain")
    assert kernel.count("for (uint32_t k = 0;") == 1


def test_used_cores_local_fixes_a_constant_launch_of_a_kernel_that_reads_the_block_count(tmp_path: Path) -> None:
    host = HOST.replace("context->SetBlockDim(cores);", "context->SetBlockDim(40);")
    kernel = KERNEL.replace("uint32_t loops = blockLength / tileLength;", "uint32_t loops = GetBlockNum() * 0 + 1;")
    files = {"op_host/clip_add_tiling.h": TILING_H, "op_host/clip_add.cpp": host, "op_kernel/clip_add.cpp": kernel}
    op = load_operator(_write(tmp_path / "fixed", files))
    out = RECIPES["used-cores-local"][1](op)
    assert out is not None
    (text,) = out.values()
    assert "uint32_t usedCores = 4;\n    context->SetBlockDim(usedCores);" in text
    # the same launch in a kernel that never asks for the block count keeps its cores
    files["op_kernel/clip_add.cpp"] = KERNEL
    assert RECIPES["used-cores-local"][1](load_operator(_write(tmp_path / "split", files))) is None


@pytest.mark.parametrize("recipe", sorted(RECIPES))
def test_recipe_returns_none_where_it_does_not_fit(bare: Operator, recipe: str) -> None:
    assert RECIPES[recipe][1](bare) is None


@pytest.mark.slow
def test_every_slowed_variant_stays_correct(clip_add: Operator) -> None:
    from tilewise.device.emulator import EmulatorDevice
    from tilewise.device.protocol import RunRequest

    device = EmulatorDevice()
    assert clip_add.manifest is not None
    case = clip_add.manifest.cases[0]
    fast = device.run(clip_add, RunRequest(case))
    assert fast.ok and fast.correct, fast.error
    for name, (_, recipe) in RECIPES.items():
        texts = recipe(clip_add)
        if texts is None:
            continue
        m = device.run(load_operator(clip_add.project.root, overlay=texts), RunRequest(case))
        assert m.ok and m.correct, f"{name}: {m.error}"
        assert {w.kind for w in m.warnings} <= {w.kind for w in fast.warnings}, f"{name}: {m.warnings}"
