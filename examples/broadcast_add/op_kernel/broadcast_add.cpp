// BroadcastAdd kernel: z[M, N] = x[M, N] + b[N], fp16.
// b is loaded into UB once per core and reused for every row. Each core owns a contiguous band of rows and
// streams it in double-buffered tiles of tileRows rows; every row is added to b with one count-form Add.
// PADDED (tiling key 2): rows are not a whole number of 32-byte blocks, so DataCopyPad places each row at a
// 32-byte pitch (rowStride) in UB and strips the padding again on the way out.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;  // tilewise: tune BUFFER_NUM in [1, 2]
constexpr uint32_t ELEMS_PER_BLOCK = 32 / sizeof(half);

template <bool PADDED>
class KernelBroadcastAdd {
public:
    __aicore__ inline KernelBroadcastAdd() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR b, GM_ADDR z, uint32_t cols, uint32_t rowStride, uint32_t formerNum,
                                uint32_t rowsPerCore, uint32_t tileRows)
    {
        uint32_t blockIdx = GetBlockIdx();
        uint32_t startRow;
        if (blockIdx < formerNum) {
            this->coreRows = rowsPerCore + 1;
            startRow = blockIdx * (rowsPerCore + 1);
        } else {
            this->coreRows = rowsPerCore;
            startRow = formerNum * (rowsPerCore + 1) + (blockIdx - formerNum) * rowsPerCore;
        }
        this->cols = cols;
        this->rowStride = rowStride;
        this->tileRows = tileRows;
        this->tileNum = (this->coreRows + tileRows - 1) / tileRows;
        this->lastTileRows = this->coreRows - (this->tileNum - 1) * tileRows;

        uint64_t offset = static_cast<uint64_t>(startRow) * cols;
        xGm.SetGlobalBuffer((__gm__ half*)x + offset, static_cast<uint64_t>(this->coreRows) * cols);
        zGm.SetGlobalBuffer((__gm__ half*)z + offset, static_cast<uint64_t>(this->coreRows) * cols);
        bGm.SetGlobalBuffer((__gm__ half*)b, cols);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileRows * rowStride * sizeof(half));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileRows * rowStride * sizeof(half));
        pipe.InitBuffer(inQueueB, 1, rowStride * sizeof(half));
    }

    __aicore__ inline void Process()
    {
        if (coreRows == 0) {
            return;
        }
        LoadBias();
        LocalTensor<half> bLocal = inQueueB.DeQue<half>();
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t rows = (i == tileNum - 1) ? lastTileRows : tileRows;
            CopyIn(i, rows);
            Compute(rows, bLocal);
            CopyOut(i, rows);
        }
        inQueueB.FreeTensor(bLocal);
    }

private:
    __aicore__ inline void LoadBias()
    {
        LocalTensor<half> bLocal = inQueueB.AllocTensor<half>();
        if (PADDED) {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(cols * sizeof(half)), 0, 0, 0};
            DataCopyPadExtParams<half> padParams{false, 0, 0, 0};
            DataCopyPad(bLocal, bGm, copyParams, padParams);
        } else {
            DataCopy(bLocal, bGm, cols);
        }
        inQueueB.EnQue(bLocal);
    }

    __aicore__ inline void CopyIn(uint32_t progress, uint32_t rows)
    {
        LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
        uint64_t offset = static_cast<uint64_t>(progress) * tileRows * cols;
        if (PADDED) {
            // Each GM row lands on its own 32-byte-aligned slot; dstStride 0 means no extra gap after the padding.
            DataCopyExtParams copyParams{static_cast<uint16_t>(rows), static_cast<uint32_t>(cols * sizeof(half)), 0,
                                         0, 0};
            DataCopyPadExtParams<half> padParams{false, 0, 0, 0};
            DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
        } else {
            // Rows are contiguous and block-aligned on both sides: one burst per row, no gaps.
            DataCopyParams copyParams{static_cast<uint16_t>(rows), static_cast<uint16_t>(cols / ELEMS_PER_BLOCK), 0, 0};
            DataCopy(xLocal, xGm[offset], copyParams);
        }
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t rows, const LocalTensor<half>& bLocal)
    {
        LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        LocalTensor<half> zLocal = outQueueZ.AllocTensor<half>();
        for (uint32_t r = 0; r < rows; r++) {
            Add(zLocal[r * rowStride], xLocal[r * rowStride], bLocal, cols);
        }
        outQueueZ.EnQue<half>(zLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t rows)
    {
        LocalTensor<half> zLocal = outQueueZ.DeQue<half>();
        uint64_t offset = static_cast<uint64_t>(progress) * tileRows * cols;
        if (PADDED) {
            DataCopyExtParams copyParams{static_cast<uint16_t>(rows), static_cast<uint32_t>(cols * sizeof(half)), 0,
                                         0, 0};
            DataCopyPad(zGm[offset], zLocal, copyParams);
        } else {
            DataCopy(zGm[offset], zLocal, rows * cols);
        }
        outQueueZ.FreeTensor(zLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECIN, 1> inQueueB;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    GlobalTensor<half> xGm;
    GlobalTensor<half> bGm;
    GlobalTensor<half> zGm;
    uint32_t cols = 0;
    uint32_t rowStride = 0;
    uint32_t coreRows = 0;
    uint32_t tileRows = 0;
    uint32_t tileNum = 0;
    uint32_t lastTileRows = 0;
};

extern "C" __global__ __aicore__ void broadcast_add(GM_ADDR x, GM_ADDR b, GM_ADDR z, GM_ADDR workspace,
                                                    GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelBroadcastAdd<false> op;
        op.Init(x, b, z, tilingData.cols, tilingData.rowStride, tilingData.formerNum, tilingData.rowsPerCore,
                tilingData.tileRows);
        op.Process();
    } else if (TILING_KEY_IS(2)) {
        KernelBroadcastAdd<true> op;
        op.Init(x, b, z, tilingData.cols, tilingData.rowStride, tilingData.formerNum, tilingData.rowsPerCore,
                tilingData.tileRows);
        op.Process();
    }
}
