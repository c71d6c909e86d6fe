// RowSum kernel: y[i] = sum(x[i, :]) on fp32 rows of colNum <= 64 elements (whole 32-byte blocks).
// A tile of rows is contiguous in GM and in UB, so it arrives with one DataCopy; one WholeReduceSum then sums every
// row, one repeat per row (mask = colNum, the source advancing one row pitch per repeat) into consecutive results.
// A core's last tile may hold a partial group of 8 rows: its results leave with DataCopyPad.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;  // tilewise: tune BUFFER_NUM in [1, 2]
constexpr uint32_t ELEMS_PER_BLOCK = 32 / sizeof(float);

class KernelRowSum {
public:
    __aicore__ inline KernelRowSum() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rowNum, uint32_t colNum, uint32_t formerNum,
                                uint32_t smallRows, uint32_t rowsPerTile)
    {
        const uint32_t blockIdx = GetBlockIdx();
        const uint32_t formerRows = smallRows + ELEMS_PER_BLOCK;
        uint32_t rowStart = 0;
        if (blockIdx < formerNum) {
            rowStart = formerRows * blockIdx;
            this->coreRows = formerRows;
        } else {
            rowStart = formerRows * formerNum + smallRows * (blockIdx - formerNum);
            this->coreRows = smallRows;
        }
        if (blockIdx == GetBlockNum() - 1) {
            // Rows were counted in groups of 8 rounded up: the last core stops at the real last row.
            this->coreRows = rowNum - rowStart;
        }
        this->colNum = colNum;
        this->rowsPerTile = rowsPerTile;
        this->tileNum = (this->coreRows + rowsPerTile - 1) / rowsPerTile;

        xGm.SetGlobalBuffer((__gm__ float*)x + static_cast<uint64_t>(rowStart) * colNum,
                            static_cast<uint64_t>(this->coreRows) * colNum);
        yGm.SetGlobalBuffer((__gm__ float*)y + rowStart, this->coreRows);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, rowsPerTile * colNum * sizeof(float));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, rowsPerTile * sizeof(float));
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
        DataCopy(xLocal, xGm[offset], rows * colNum);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t rows)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        const int32_t rowBlocks = static_cast<int32_t>(colNum / ELEMS_PER_BLOCK);
        WholeReduceSum<float>(yLocal, xLocal, static_cast<int32_t>(colNum), static_cast<int32_t>(rows), 1, 1,
                              rowBlocks);
        outQueueY.EnQue<float>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t rows)
    {
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        const uint64_t offset = static_cast<uint64_t>(progress) * rowsPerTile;
        if (rows % ELEMS_PER_BLOCK == 0) {
            DataCopy(yGm[offset], yLocal, rows);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(rows * sizeof(float)), 0, 0, 0};
            DataCopyPad(yGm[offset], yLocal, copyParams);
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
    uint32_t rowsPerTile = 0;
    uint32_t coreRows = 0;
    uint32_t tileNum = 0;
};

extern "C" __global__ __aicore__ void row_sum(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelRowSum op;
    op.Init(x, y, tilingData.rowNum, tilingData.colNum, tilingData.formerNum, tilingData.smallRows,
            tilingData.rowsPerTile);
    op.Process();
}
