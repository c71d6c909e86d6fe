"""A small, good AscendC operator written for the tests, and a helper to write variants of it to disk.

Tests make a bad variant with `str.replace` on one file and check that exactly the expected rule reacts.
"""

from __future__ import annotations

from pathlib import Path

TILING_H = """\
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleTilingData)
    TILING_DATA_FIELD_DEF(uint32_t, blockLength);
    TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(Scale, ScaleTilingData)
}
"""

HOST = """\
#include "scale_tiling.h"
#include "register/op_def_registry.h"

constexpr uint32_t BLOCK_DIM = 48;
constexpr uint32_t TILE_LENGTH = 8192;

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    ScaleTilingData tiling;
    uint32_t total = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    uint32_t blockDim = BLOCK_DIM;
    tiling.set_blockLength(total / blockDim);
    tiling.set_tileLength(TILE_LENGTH);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}

namespace ops {
class Scale : public OpDef {
public:
    explicit Scale(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Attr("scale").AttrType(OPTIONAL).Float(2.0);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(Scale);
}
"""

KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelScale {
public:
    __aicore__ inline KernelScale() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t blockLength, uint32_t tileLength)
    {
        this->blockLength = blockLength;
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ half*)x + blockLength * GetBlockIdx(), blockLength);
        yGm.SetGlobalBuffer((__gm__ half*)y + blockLength * GetBlockIdx(), blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(half));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(half));
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
        DataCopy(xLocal, xGm[progress * tileLength], tileLength);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
        Muls(yLocal, xLocal, (half)2.0, tileLength);
        outQueueY.EnQue<half>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress)
    {
        LocalTensor<half> yLocal = outQueueY.DeQue<half>();
        DataCopy(yGm[progress * tileLength], yLocal, tileLength);
        outQueueY.FreeTensor(yLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    GlobalTensor<half> xGm;
    GlobalTensor<half> yGm;
    uint32_t blockLength;
    uint32_t tileLength;
};

extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelScale op;
    op.Init(x, y, tilingData.blockLength, tilingData.tileLength);
    op.Process();
}
"""


# The scale operator's numpy golden (y = 2x in fp16), and a manifest with it and one 1-D fp16 case.
SCALE_GOLDEN = "def golden(x):\n    return (x.astype('float32') * 2.0).astype('float16')\n"


def scale_manifest(elements: int, golden: bool = True) -> str:
    """A manifest for the scale operator; with `golden`, the test writes SCALE_GOLDEN to its golden.py."""
    head = '[golden]\nfunction = "golden.py:golden"\nrtol = 1e-3\natol = 1e-3\n\n' if golden else ""
    return head + f'[[cases]]\nname = "small"\n[cases.inputs.x]\nshape = [{elements}]\ndtype = "float16"\n'


# The host with two knobs annotated for the tuner, set to their slow values (8 cores, small tiles); the kernel is
# unchanged. A 3145728-element case (scale_manifest) makes big tiles and HBM saturation show in the time.
TUNED_HOST = HOST.replace(
    "constexpr uint32_t BLOCK_DIM = 48;", "constexpr uint32_t BLOCK_DIM = 8;  // tilewise: tune BLOCK_DIM in [1, 8, 48]"
).replace(
    "constexpr uint32_t TILE_LENGTH = 8192;",
    "constexpr uint32_t TILE_LENGTH = 1024;  // tilewise: tune TILE_LENGTH in [1024, 8192]",
)
TUNED_ELEMENTS = 3145728


def tuned_operator(root: Path, host: str = TUNED_HOST, kernel: str = KERNEL) -> Path:
    """The scale operator with tunable knobs, a golden and one large case, written to `root`."""
    write_operator(root, kernel=kernel, host=host, manifest=scale_manifest(TUNED_ELEMENTS))
    (root / "golden.py").write_text(SCALE_GOLDEN)
    return root


def write_operator(
    root: Path, kernel: str = KERNEL, host: str = HOST, tiling_h: str = TILING_H, manifest: str | None = None
) -> Path:
    (root / "op_host").mkdir(parents=True, exist_ok=True)
    (root / "op_kernel").mkdir(parents=True, exist_ok=True)
    (root / "op_host" / "scale_tiling.h").write_text(tiling_h)
    (root / "op_host" / "scale.cpp").write_text(host)
    (root / "op_kernel" / "scale.cpp").write_text(kernel)
    if manifest is not None:
        (root / "tilewise.toml").write_text(manifest)
    return root


def replace_once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"test fixture: {old!r} must occur exactly once"
    return text.replace(old, new)


def big_kernel(lines: int = 3000) -> str:
    """A realistic large kernel: copies of KERNEL's class, renamed, until the file has about `lines` lines."""
    head, _, rest = KERNEL.partition("class KernelScale {")
    cls, _, entry = rest.partition("};\n\nextern")
    body: list[str] = []
    i = 0
    while True:
        chunk = f"class KernelScale{i} {{" + cls.replace("KernelScale()", f"KernelScale{i}()") + "};\n\n"
        if len((head + "".join(body) + chunk).splitlines()) > lines - 10:
            break
        body.append(chunk)
        i += 1
    text = head + "".join(body) + "class KernelScale {" + cls + "};\n\nextern" + entry
    return text


# A host written the way real tiling functions are: it asks the platform for its cores and UB, and derives the
# tiling through literals (`ubSize / 2 / 4`: two queues of two buffers) rather than named constants.
PLATFORM_HOST = """\
#include "scale_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    ScaleTilingData tiling;
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint32_t total = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    uint32_t perBuffer = ubSize / 2 / 4;
    uint32_t tileLength = perBuffer / sizeof(uint16_t) / 64 * 64;
    uint32_t blockLength = total / coreNum;
    if (tileLength > blockLength) {
        tileLength = blockLength;
    }
    tiling.set_blockLength(blockLength);
    tiling.set_tileLength(tileLength);
    context->SetBlockDim(coreNum);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}
""" + HOST[HOST.index("namespace ops {") :]
# Whole tiles for every core count of the platform knob's domain up to 48 and every UB the literals allow.
PLATFORM_ELEMENTS = 48 * 24576


# TUNED_HOST's two knobs over small domains, for the tests that run whole tunes as subprocesses (crash safety, a
# shared cache): 16384 elements divide into whole tiles for all six configurations, and each run takes little time.
# The shipped values are the slow ones (2 cores, small tiles), so that a tune of four finds a faster configuration.
SMALL_TUNED_HOST = TUNED_HOST.replace(
    "BLOCK_DIM = 8;  // tilewise: tune BLOCK_DIM in [1, 8, 48]",
    "BLOCK_DIM = 2;  // tilewise: tune BLOCK_DIM in [1, 2, 8]",
).replace(
    "TILE_LENGTH = 1024;  // tilewise: tune TILE_LENGTH in [1024, 8192]",
    "TILE_LENGTH = 256;  // tilewise: tune TILE_LENGTH in [256, 1024]",
)
SMALL_TUNED_ELEMENTS = 16384


def small_tuned_operator(root: Path, tag: str = "") -> Path:
    """The scale operator with SMALL_TUNED_HOST, a golden and one small case; `tag` goes into a comment of the
    kernel, which makes it a kernel no build has seen."""
    kernel = KERNEL + (f"// {tag}\n" if tag else "")
    write_operator(root, kernel=kernel, host=SMALL_TUNED_HOST, manifest=scale_manifest(SMALL_TUNED_ELEMENTS))
    (root / "golden.py").write_text(SCALE_GOLDEN)
    return root
