// SoftmaxRow: y[i, :] = exp(x[i, :] - max_i) / sum(exp(x[i, :] - max_i)) over the last axis, float32.
// Tiling: whole rows are dealt out to cores (the first extraRows cores take one extra row); a core moves
// rowsPerTile rows per DMA into UB with a row pitch of colsAligned floats, so every row starts on a 32-byte
// boundary and the per-row vector calls can address it directly. When N is not a multiple of 8 floats the
// rows are copied with DataCopyPad, which pads each row out to the pitch in UB and trims it again on the way out.
// The row max and row sum come back from the vector unit as scalars (GetValue), which needs a V->S event first.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2; // tilewise: tune BUFFER_NUM in [1, 2]

class KernelSoftmaxRow {
public:
    __aicore__ inline KernelSoftmaxRow() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t colNum, uint32_t colsAligned,
                                uint32_t baseRowsPerCore, uint32_t extraRows, uint32_t rowsPerTile,
                                uint32_t workLength)
    {
        const uint32_t blockIdx = GetBlockIdx();
        this->colNum = colNum;
        this->colsAligned = colsAligned;
        this->rowsPerTile = rowsPerTile;
        this->coreRows = baseRowsPerCore + (blockIdx < extraRows ? 1 : 0);
        const uint32_t rowStart = blockIdx * baseRowsPerCore + (blockIdx < extraRows ? blockIdx : extraRows);
        this->tileNum = (this->coreRows + rowsPerTile - 1) / rowsPerTile;

        xGm.SetGlobalBuffer((__gm__ float*)x + static_cast<uint64_t>(rowStart) * colNum,
                            static_cast<uint64_t>(this->coreRows) * colNum);
        yGm.SetGlobalBuffer((__gm__ float*)y + static_cast<uint64_t>(rowStart) * colNum,
                            static_cast<uint64_t>(this->coreRows) * colNum);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, rowsPerTile * colsAligned * sizeof(float));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, rowsPerTile * colsAligned * sizeof(float));
        pipe.InitBuffer(workBuf, workLength * sizeof(float));
        pipe.InitBuffer(reduceBuf, 8 * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tileNum; i++) {
            const uint32_t rows = (i == tileNum - 1) ? (coreRows - i * rowsPerTile) : rowsPerTile;
            CopyIn(i, rows);
            Compute(rows);
            CopyOut(i, rows);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t rows)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        const uint64_t offset = static_cast<uint64_t>(progress) * rowsPerTile * colNum;
        if (colNum == colsAligned) {
            DataCopy(xLocal, xGm[offset], rows * colNum);
        } else {
            DataCopyExtParams copyParams{static_cast<uint16_t>(rows), static_cast<uint32_t>(colNum * sizeof(float)),
                                         0, 0, 0};
            DataCopyPadExtParams<float> padParams{false, 0, 0, 0.0f};
            DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
        }
        inQueueX.EnQue(xLocal);
    }

    // Waits until the vector unit has written the reduction result, then reads it on the scalar unit.
    __aicore__ inline float ReadReduced(const LocalTensor<float>& reduced)
    {
        event_t eventIdVToS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(eventIdVToS);
        WaitFlag<HardEvent::V_S>(eventIdVToS);
        return reduced.GetValue(0);
    }

    __aicore__ inline void Compute(uint32_t rows)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> reduced = reduceBuf.Get<float>();
        for (uint32_t r = 0; r < rows; r++) {
            LocalTensor<float> xRow = xLocal[r * colsAligned];
            ReduceMax(reduced, xRow, work, colNum);
            const float rowMax = ReadReduced(reduced);
            // Shifting by the max keeps exp() in range; the shift cancels in the ratio.
            Adds(xRow, xRow, -rowMax, colNum);
            Exp(xRow, xRow, colNum);
            ReduceSum(reduced, xRow, work, colNum);
            const float rowSum = ReadReduced(reduced);
            Muls(yLocal[r * colsAligned], xRow, 1.0f / rowSum, colNum);
        }
        outQueueY.EnQue<float>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t rows)
    {
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        const uint64_t offset = static_cast<uint64_t>(progress) * rowsPerTile * colNum;
        if (colNum == colsAligned) {
            DataCopy(yGm[offset], yLocal, rows * colNum);
        } else {
            DataCopyExtParams copyParams{static_cast<uint16_t>(rows), static_cast<uint32_t>(colNum * sizeof(float)),
                                         0, 0, 0};
            DataCopyPad(yGm[offset], yLocal, copyParams);
        }
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<QuePosition::VECCALC> workBuf;
    TBuf<QuePosition::VECCALC> reduceBuf;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    uint32_t colNum = 0;
    uint32_t colsAligned = 0;
    uint32_t rowsPerTile = 0;
    uint32_t coreRows = 0;
    uint32_t tileNum = 0;
};

extern "C" __global__ __aicore__ void softmax_row(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelSoftmaxRow op;
    op.Init(x, y, tilingData.colNum, tilingData.colsAligned, tilingData.baseRowsPerCore, tilingData.extraRows,
            tilingData.rowsPerTile, tilingData.workLength);
    op.Process();
}
