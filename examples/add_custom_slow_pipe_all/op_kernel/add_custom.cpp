// AddCustom kernel: z = x + y element-wise, fp16 or fp32 (DTYPE_X).
// Slow variant: a full PipeBarrier<PIPE_ALL> after every tile drains all pipes and defeats double buffering.
// Each core owns one contiguous chunk; it streams the chunk through UB in tiles of tileLength with
// BUFFER_NUM-deep queues so the copy-in of tile i+1 and the copy-out of tile i-1 overlap the add of tile i.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;  // tilewise: tune BUFFER_NUM in [1, 2]
constexpr uint32_t BLOCK_BYTES = 32;

template <typename T>
class KernelAdd {
public:
    __aicore__ inline KernelAdd() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t blockLength, uint32_t lastBlockLength,
                                uint32_t tileLength)
    {
        uint64_t offset = static_cast<uint64_t>(blockLength) * GetBlockIdx();
        this->coreLength = (GetBlockIdx() == GetBlockNum() - 1) ? lastBlockLength : blockLength;
        this->tileLength = tileLength;
        this->tileNum = (this->coreLength + tileLength - 1) / tileLength;
        this->lastTileLength = this->coreLength - (this->tileNum - 1) * tileLength;

        xGm.SetGlobalBuffer((__gm__ T*)x + offset, this->coreLength);
        yGm.SetGlobalBuffer((__gm__ T*)y + offset, this->coreLength);
        zGm.SetGlobalBuffer((__gm__ T*)z + offset, this->coreLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(T));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t len = (i == tileNum - 1) ? lastTileLength : tileLength;
            CopyIn(i, len);
            Compute(len);
            CopyOut(i, len);
            PipeBarrier<PIPE_ALL>();
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t len)
    {
        LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
        uint64_t offset = static_cast<uint64_t>(progress) * tileLength;
        if ((len * sizeof(T)) % BLOCK_BYTES == 0) {
            DataCopy(xLocal, xGm[offset], len);
            DataCopy(yLocal, yGm[offset], len);
        } else {
            // Only the very last tile of the last core can get here.
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
            DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
            DataCopyPad(yLocal, yGm[offset], copyParams, padParams);
        }
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }

    __aicore__ inline void Compute(uint32_t len)
    {
        LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        LocalTensor<T> yLocal = inQueueY.DeQue<T>();
        LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        Add(zLocal, xLocal, yLocal, len);
        outQueueZ.EnQue<T>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t len)
    {
        LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
        uint64_t offset = static_cast<uint64_t>(progress) * tileLength;
        if ((len * sizeof(T)) % BLOCK_BYTES == 0) {
            DataCopy(zGm[offset], zLocal, len);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};
            DataCopyPad(zGm[offset], zLocal, copyParams);
        }
        outQueueZ.FreeTensor(zLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    GlobalTensor<T> xGm;
    GlobalTensor<T> yGm;
    GlobalTensor<T> zGm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
    uint32_t tileNum = 0;
    uint32_t lastTileLength = 0;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAdd<DTYPE_X> op;
    op.Init(x, y, z, tilingData.blockLength, tilingData.lastBlockLength, tilingData.tileLength);
    op.Process();
}
