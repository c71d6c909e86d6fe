// ColumnSumAtomic: y[j] = sum_i x[i, j], float32, with cores splitting the rows and meeting in GM through
// atomic adds.
// Why this order is correct with all cores running at once: y must start at zero, and no core may add into it
// before that. Core 0 writes the zeros, drains its pipes, and every core then waits at SyncAll(); only after the
// barrier does any core switch MTE3 to atomic-add mode, so no partial can be overwritten by a late zero and the
// final value does not depend on which core adds first (up to float rounding order).
// Tiling: a core walks the columns in strips of colTile floats; for each strip it streams its rows in blocks of
// rowTile rows (one strided DMA per block, each row landing at a 32-byte aligned pitch in UB), accumulates the
// rows lane-wise into the strip's column sums, and adds the strip into y with one atomic copy.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2; // tilewise: tune BUFFER_NUM in [1, 2]

class KernelColumnSumAtomic {
public:
    __aicore__ inline KernelColumnSumAtomic() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t colNum, uint32_t baseRowsPerCore,
                                uint32_t extraRows, uint32_t colTile, uint32_t rowTile)
    {
        const uint32_t blockIdx = GetBlockIdx();
        this->colNum = colNum;
        this->colTile = colTile;
        this->rowTile = rowTile;
        this->coreRows = baseRowsPerCore + (blockIdx < extraRows ? 1 : 0);
        const uint32_t rowStart = blockIdx * baseRowsPerCore + (blockIdx < extraRows ? blockIdx : extraRows);
        this->stripNum = (colNum + colTile - 1) / colTile;
        this->lastStripWidth = colNum - (this->stripNum - 1) * colTile;
        this->rowBlockNum = (this->coreRows + rowTile - 1) / rowTile;

        xGm.SetGlobalBuffer((__gm__ float*)x + static_cast<uint64_t>(rowStart) * colNum,
                            static_cast<uint64_t>(this->coreRows) * colNum);
        yGm.SetGlobalBuffer((__gm__ float*)y, colNum);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, rowTile * colTile * sizeof(float));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, colTile * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        if (GetBlockIdx() == 0) {
            ZeroOutput();
        }
        // Core 0's zeros must be in GM, not still queued on MTE3, when the barrier releases the other cores.
        PipeBarrier<PIPE_ALL>();
        SyncAll();

        SetAtomicAdd<float>();
        for (uint32_t s = 0; s < stripNum; s++) {
            const uint32_t width = (s == stripNum - 1) ? lastStripWidth : colTile;
            const uint32_t pitch = (width + 7) / 8 * 8;
            LocalTensor<float> acc = outQueueY.AllocTensor<float>();
            Duplicate(acc, 0.0f, pitch);
            for (uint32_t b = 0; b < rowBlockNum; b++) {
                const uint32_t rows = (b == rowBlockNum - 1) ? (coreRows - b * rowTile) : rowTile;
                CopyIn(b, s, rows, width);
                Accumulate(acc, rows, width, pitch);
            }
            outQueueY.EnQue<float>(acc);
            CopyOut(s, width);
        }
        SetAtomicNone();
    }

private:
    __aicore__ inline void ZeroOutput()
    {
        for (uint32_t s = 0; s < stripNum; s++) {
            const uint32_t width = (s == stripNum - 1) ? lastStripWidth : colTile;
            LocalTensor<float> zeros = outQueueY.AllocTensor<float>();
            Duplicate(zeros, 0.0f, (width + 7) / 8 * 8);
            outQueueY.EnQue<float>(zeros);
            CopyOut(s, width);
        }
    }

    __aicore__ inline void CopyIn(uint32_t rowBlock, uint32_t strip, uint32_t rows, uint32_t width)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        const uint64_t offset = static_cast<uint64_t>(rowBlock) * rowTile * colNum + strip * colTile;
        const uint32_t gapElems = colNum - width;
        if (width % 8 == 0 && gapElems % 8 == 0 && gapElems / 8 <= 65535) {
            // Strided burst copy: rows of width floats, skipping the rest of each GM row (strides in 32-byte units).
            DataCopyParams copyParams{static_cast<uint16_t>(rows), static_cast<uint16_t>(width / 8),
                                      static_cast<uint16_t>(gapElems / 8), 0};
            DataCopy(xLocal, xGm[offset], copyParams);
        } else {
            // GM gap in bytes; each row is padded up to the next 32-byte boundary in UB.
            DataCopyExtParams copyParams{static_cast<uint16_t>(rows), static_cast<uint32_t>(width * sizeof(float)),
                                         static_cast<uint32_t>(gapElems * sizeof(float)), 0, 0};
            DataCopyPadExtParams<float> padParams{false, 0, 0, 0.0f};
            DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
        }
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Accumulate(const LocalTensor<float>& acc, uint32_t rows, uint32_t width, uint32_t pitch)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        for (uint32_t r = 0; r < rows; r++) {
            Add(acc, acc, xLocal[r * pitch], width);
        }
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t strip, uint32_t width)
    {
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        if (width % 8 == 0) {
            DataCopy(yGm[strip * colTile], yLocal, width);
        } else {
            // Exactly width floats: a padded write would add garbage into the next strip's columns.
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(width * sizeof(float)), 0, 0, 0};
            DataCopyPad(yGm[strip * colTile], yLocal, copyParams);
        }
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    uint32_t colNum = 0;
    uint32_t colTile = 0;
    uint32_t rowTile = 0;
    uint32_t coreRows = 0;
    uint32_t stripNum = 0;
    uint32_t lastStripWidth = 0;
    uint32_t rowBlockNum = 0;
};

extern "C" __global__ __aicore__ void column_sum_atomic(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelColumnSumAtomic op;
    op.Init(x, y, tilingData.colNum, tilingData.baseRowsPerCore, tilingData.extraRows, tilingData.colTile,
            tilingData.rowTile);
    op.Process();
}
