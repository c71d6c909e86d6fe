// CompareSelect kernel: z = (x > y) ? x : y, fp16 or fp32 (DTYPE_X).
// Compare(GT) writes a bit mask (bit set -> take x) into a scratch TBuf and Select in tensor-tensor mode picks
// from x or y. Both run on the tile length rounded up to whole 256-byte repeats; lanes past the valid length
// are computed on stale UB and never copied out. Tiles are double-buffered; the unaligned tail uses DataCopyPad.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;  // tilewise: tune BUFFER_NUM in [1, 2]
constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t REPEAT_BYTES = 256;

template <typename T>
class KernelCompareSelect {
public:
    __aicore__ inline KernelCompareSelect() {}

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
        // One mask bit per element, rounded up to a whole 32-byte block.
        uint32_t maskBytes = (tileLength / 8 + BLOCK_BYTES - 1) / BLOCK_BYTES * BLOCK_BYTES;
        pipe.InitBuffer(maskBuf, maskBytes);
    }

    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t len = (i == tileNum - 1) ? lastTileLength : tileLength;
            CopyIn(i, len);
            Compute(len);
            CopyOut(i, len);
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
        LocalTensor<uint8_t> maskLocal = maskBuf.Get<uint8_t>();
        constexpr uint32_t repeatElems = REPEAT_BYTES / sizeof(T);
        uint32_t calLength = (len + repeatElems - 1) / repeatElems * repeatElems;

        Compare(maskLocal, xLocal, yLocal, CMPMODE::GT, calLength);
        PipeBarrier<PIPE_V>();
        Select(zLocal, maskLocal, xLocal, yLocal, SELMODE::VSEL_TENSOR_TENSOR_MODE, calLength);

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
    TBuf<QuePosition::VECCALC> maskBuf;
    GlobalTensor<T> xGm;
    GlobalTensor<T> yGm;
    GlobalTensor<T> zGm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
    uint32_t tileNum = 0;
    uint32_t lastTileLength = 0;
};

extern "C" __global__ __aicore__ void compare_select(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                     GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelCompareSelect<DTYPE_X> op;
    op.Init(x, y, z, tilingData.blockLength, tilingData.lastBlockLength, tilingData.tileLength);
    op.Process();
}
