"""low-block-dim promises the bandwidth model's speedup only where each core's results are final (issue 32).

A public mean/sum loss kernel was told "about 13.8x faster" with more cores, although its cores' partial results
would then need combining. These kernels are written for the test: a sum of each core's share of the input,
written out in the ways a reduction combines (or fails to combine) its partial results, beside an elementwise
kernel and a row-wise reduction whose rows the cores split, which keep the plain speedup. What decides is where the
kernel's GM writes land and whether the block index places them, whatever the operator or its tensors are called.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from opgen import HOST, KERNEL, replace_once, write_operator

from tilewise.analysis.findings import Finding
from tilewise.analysis.lint import lint
from tilewise.analysis.operator import load_operator

HOST4 = replace_once(HOST, "constexpr uint32_t BLOCK_DIM = 48;", "constexpr uint32_t BLOCK_DIM = 4;")

# Each core sums its `blockLength` floats tile by tile into `acc`; WRITE stands for how the sum reaches GM.
SUM_KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;

class KernelSumDemo {
public:
    __aicore__ inline KernelSumDemo() {}
    __aicore__ inline void Init(GM_ADDR src, GM_ADDR dst, GM_ADDR work, uint32_t blockLength, uint32_t tileLength)
    {
        this->blockLength = blockLength;
        this->tileLength = tileLength;
        core = GetBlockIdx();
        srcGm.SetGlobalBuffer((__gm__ float*)src + blockLength * core, blockLength);
        dstGm.SetGlobalBuffer(DST_BASE, 8);
        workGm.SetGlobalBuffer((__gm__ float*)work, 8 * 48);
        pipe.InitBuffer(inQueue, 2, tileLength * sizeof(float));
        pipe.InitBuffer(outQueue, 1, 32);
        pipe.InitBuffer(calcBuf, tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> acc = outQueue.AllocTensor<float>();
        Duplicate(acc, 0.0f, 8);
        for (uint32_t i = 0; i < blockLength / tileLength; i++) {
            LocalTensor<float> part = inQueue.AllocTensor<float>();
            DataCopy(part, srcGm[i * tileLength], tileLength);
            inQueue.EnQue(part);
            part = inQueue.DeQue<float>();
            LocalTensor<float> tmp = calcBuf.Get<float>();
            ReduceSum(tmp, part, tmp, tileLength);
            Add(acc, acc, tmp, 1);
            inQueue.FreeTensor(part);
        }
        outQueue.EnQue(acc);
        acc = outQueue.DeQue<float>();
WRITE
        outQueue.FreeTensor(acc);
    }

private:
    __aicore__ inline void Combine(LocalTensor<float>& acc)
    {
        DataCopy(acc, workGm, 8 * 48);
        ReduceSum(acc, acc, acc, 8 * 48);
        DataCopy(dstGm, acc, 8);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    TBuf<QuePosition::VECCALC> calcBuf;
    GlobalTensor<float> srcGm;
    GlobalTensor<float> dstGm;
    GlobalTensor<float> workGm;
    uint32_t blockLength;
    uint32_t tileLength;
    uint32_t core;
};

extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelSumDemo op;
    op.Init(x, y, workspace, tilingData.blockLength, tilingData.tileLength);
    op.Process();
}
"""

FIXED_DST = "(__gm__ float*)dst"


def sum_kernel(write: str, dst_base: str = FIXED_DST) -> str:
    lines = "".join(f"        {line}\n" for line in write.strip().splitlines())
    return SUM_KERNEL.replace("WRITE\n", lines).replace("DST_BASE", dst_base)


def finding(tmp_path: Path, kernel: str, host: str = HOST4, tiling_h: str | None = None) -> Finding:
    extra = {"tiling_h": tiling_h} if tiling_h is not None else {}
    op = load_operator(write_operator(tmp_path / "op", kernel=kernel, host=host, **extra))
    assert not op.model.syntax_errors, op.model.syntax_errors
    (f,) = [f for f in lint(op) if f.rule == "low-block-dim"]
    return f


def assert_plain_speedup(f: Finding, used: int) -> None:
    assert f.severity == "warning" and f"{used} of the 48" in f.message
    assert "cost model: memory-bound work about" in f.message and "x faster" in f.message
    assert "partial" not in f.message and "combin" not in f.message


def assert_no_speedup_promised(f: Finding) -> None:
    assert "x faster" not in f.message and "cost model" not in f.message
    assert "partial result" in f.message and "GetBlockIdx() splits" in f.message
    assert all("x faster" not in fix.title and fix.safe is False for fix in f.fixes)


def test_an_elementwise_kernel_keeps_the_plain_speedup(tmp_path: Path):
    host = replace_once(HOST, "constexpr uint32_t BLOCK_DIM = 48;", "constexpr uint32_t BLOCK_DIM = 8;")
    f = finding(tmp_path, KERNEL, host)
    assert_plain_speedup(f, 8)
    assert f.message.endswith(
        "The kernel splits its work by GetBlockIdx(); a larger count must keep each core's share aligned."
    )


@pytest.mark.parametrize(
    "write",
    [
        "DataCopy(dstGm, acc, 8);",  # the sum, as is
        "Muls(acc, acc, 1.0f / 4096, 8);\nDataCopy(dstGm[0], acc, 8);",  # a mean, at an index that is no core's
        "dstGm.SetValue(0, acc.GetValue(0));",  # one scalar, through the GlobalTensor
    ],
    ids=["sum", "mean", "scalar"],
)
def test_a_full_reduction_every_core_writes_to_one_place_needs_its_results_combined(tmp_path: Path, write: str):
    f = finding(tmp_path, sum_kernel(write))
    assert_no_speedup_promised(f)
    assert "same place in dstGm" in f.message and "SetAtomicAdd" in f.message
    assert f.severity == "info" and f.fixes == []  # a larger count alone would make the cores overwrite each other


def test_an_atomic_add_accumulation_says_what_more_cores_cost(tmp_path: Path):
    f = finding(tmp_path, sum_kernel("SetAtomicAdd<float>();\nDataCopy(dstGm, acc, 8);\nSetAtomicNone();"))
    assert_no_speedup_promised(f)
    assert "atomic add" in f.message and "less than an elementwise" in f.message
    assert f.severity == "warning"
    (fix,) = f.fixes  # the combining is in place: the count may be raised, on the emulator's word
    assert not fix.safe and fix.edits[0].new_text == "48" and "combined once into dstGm" in fix.title


@pytest.mark.parametrize(
    ("write", "dst_base"),
    [
        ("DataCopy(dstGm, acc, 8);", "(__gm__ float*)dst + GetBlockIdx() * 8"),
        ("DataCopy(dstGm[core * 8], acc, 8);", FIXED_DST),
    ],
    ids=["address", "index"],
)
def test_one_partial_result_per_core_placed_by_the_block_index_alone(tmp_path: Path, write: str, dst_base: str):
    f = finding(tmp_path, sum_kernel(write, dst_base))
    assert_no_speedup_promised(f)
    assert "slot of dstGm" in f.message and f.severity == "info" and f.fixes == []


@pytest.mark.parametrize(
    "write",
    [
        "DataCopy(workGm[core * 8], acc, 8);\nSyncAll();\nif (GetBlockIdx() == 0) {\n    Combine(acc);\n}",
        "DataCopy(workGm[core * 8], acc, 8);\nSyncAll();\nif (core != 0) {\n    outQueue.FreeTensor(acc);\n"
        "    return;\n}\nDataCopy(acc, workGm, 8 * 48);\nDataCopy(dstGm, acc, 8);",
    ],
    ids=["guarded-call", "early-return"],
)
def test_partial_results_combined_by_one_core_after_syncall(tmp_path: Path, write: str):
    f = finding(tmp_path, sum_kernel(write))
    assert_no_speedup_promised(f)
    assert "one core combines them into dstGm after SyncAll" in f.message and f.severity == "warning"
    (fix,) = f.fixes
    assert not fix.safe


ROW_TILING_H = """\
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleTilingData)
    TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
    TILING_DATA_FIELD_DEF(uint32_t, rowLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(Scale, ScaleTilingData)
}
"""

# Row sums: each core takes `rowsPerCore` whole rows and writes their sums to its own rows of the output.
ROW_KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;

class KernelRowSumDemo {
public:
    __aicore__ inline KernelRowSumDemo() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rowsPerCore, uint32_t rowLength)
    {
        this->rowsPerCore = rowsPerCore;
        this->rowLength = rowLength;
        xGm.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * rowsPerCore * rowLength, rowsPerCore * rowLength);
        yGm.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * rowsPerCore, rowsPerCore);
        pipe.InitBuffer(inQueue, 2, rowLength * sizeof(float));
        pipe.InitBuffer(outQueue, 1, rowsPerCore * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> sums = outQueue.AllocTensor<float>();
        for (uint32_t r = 0; r < rowsPerCore; r++) {
            LocalTensor<float> row = inQueue.AllocTensor<float>();
            DataCopy(row, xGm[r * rowLength], rowLength);
            inQueue.EnQue(row);
            row = inQueue.DeQue<float>();
            ReduceSum(row, row, row, rowLength);
            sums.SetValue(r, row.GetValue(0));
            inQueue.FreeTensor(row);
        }
        outQueue.EnQue(sums);
        sums = outQueue.DeQue<float>();
        DataCopy(yGm, sums, rowsPerCore);
        outQueue.FreeTensor(sums);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    uint32_t rowsPerCore;
    uint32_t rowLength;
};

extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelRowSumDemo op;
    op.Init(x, y, tilingData.rowsPerCore, tilingData.rowLength);
    op.Process();
}
"""


def test_a_row_wise_reduction_whose_rows_split_across_cores_keeps_the_plain_speedup(tmp_path: Path):
    host = replace_once(
        HOST4,
        "    tiling.set_blockLength(total / blockDim);\n",
        "    uint32_t rows = total / 1024;\n"
        "    tiling.set_rowsPerCore(rows / blockDim);\n    tiling.set_rowLength(1024);\n",
    )
    host = replace_once(host, "    tiling.set_tileLength(TILE_LENGTH);\n", "")
    assert_plain_speedup(finding(tmp_path, ROW_KERNEL, host, ROW_TILING_H), 4)


def test_the_block_index_through_a_macro_is_still_the_block_index(tmp_path: Path):
    kernel = sum_kernel("DataCopy(dstGm[DEMO_CORE * 8], acc, 8);")
    kernel = replace_once(
        kernel, "using namespace AscendC;\n", "using namespace AscendC;\n#define DEMO_CORE GetBlockIdx()\n"
    )
    f = finding(tmp_path, kernel)
    assert_no_speedup_promised(f)
    assert "slot of dstGm" in f.message


def test_a_write_placed_by_a_helper_function_is_no_claim(tmp_path: Path):
    """The data flow does not follow a function's `return`: where `Offset()` puts each core is not known, so the
    finding stays the elementwise one rather than claiming the cores collide."""
    kernel = sum_kernel("DataCopy(dstGm[Offset()], acc, 8);")
    kernel = replace_once(
        kernel,
        "private:\n",
        "private:\n    __aicore__ inline uint32_t Offset() { return blockLength * core; }\n",
    )
    assert_plain_speedup(finding(tmp_path, kernel), 4)
