// MulAddsFp32 kernel: z = x * y + alpha on fp32.
// Cores own contiguous runs of 32-byte blocks (the first formerNum one block longer); each run is streamed
// through double-buffered tiles. Only the last core can end mid-block, and it moves that tail with DataCopyPad.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;  // tilewise: tune BUFFER_NUM in [1, 2]
constexpr uint32_t BLOCK_BYTES = 32;

class KernelMulAdds {
public:
    __aicore__ inline KernelMulAdds() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t formerNum,
                                uint32_t formerLength, uint32_t smallLength, uint32_t tileLength, float alpha)
    {
        uint32_t blockIdx = GetBlockIdx();
        uint64_t offset;
        if (blockIdx < formerNum) {
            offset = static_cast<uint64_t>(formerLength) * blockIdx;
            this->coreLength = formerLength;
        } else {
            offset = static_cast<uint64_t>(formerLength) * formerNum +
                     static_cast<uint64_t>(smallLength) * (blockIdx - formerNum);
            this->coreLength = smallLength;
        }
        if (blockIdx == GetBlockNum() - 1) {
            // The block count was rounded up, so the last core's share may run past the tensor.
            this->coreLength = static_cast<uint32_t>(totalLength - offset);
        }
        this->tileLength = tileLength;
        this->tileNum = (this->coreLength + tileLength - 1) / tileLength;
        this->lastTileLength = this->coreLength - (this->tileNum - 1) * tileLength;
        this->alpha = alpha;

        xGm.SetGlobalBuffer((__gm__ float*)x + offset, this->coreLength);
        yGm.SetGlobalBuffer((__gm__ float*)y + offset, this->coreLength);
        zGm.SetGlobalBuffer((__gm__ float*)z + offset, this->coreLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(float));
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
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
        uint64_t offset = static_cast<uint64_t>(progress) * tileLength;
        if ((len * sizeof(float)) % BLOCK_BYTES == 0) {
            DataCopy(xLocal, xGm[offset], len);
            DataCopy(yLocal, yGm[offset], len);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0};
            DataCopyPadExtParams<float> padParams{false, 0, 0, 0.0f};
            DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
            DataCopyPad(yLocal, yGm[offset], copyParams, padParams);
        }
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }

    __aicore__ inline void Compute(uint32_t len)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = inQueueY.DeQue<float>();
        LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
        Mul(zLocal, xLocal, yLocal, len);
        PipeBarrier<PIPE_V>();
        Adds(zLocal, zLocal, alpha, len);
        outQueueZ.EnQue<float>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t len)
    {
        LocalTensor<float> zLocal = outQueueZ.DeQue<float>();
        uint64_t offset = static_cast<uint64_t>(progress) * tileLength;
        if ((len * sizeof(float)) % BLOCK_BYTES == 0) {
            DataCopy(zGm[offset], zLocal, len);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0};
            DataCopyPad(zGm[offset], zLocal, copyParams);
        }
        outQueueZ.FreeTensor(zLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    GlobalTensor<float> zGm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
    uint32_t tileNum = 0;
    uint32_t lastTileLength = 0;
    float alpha = 0.0f;
};

extern "C" __global__ __aicore__ void mul_adds_fp32(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                    GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelMulAdds op;
    op.Init(x, y, z, tilingData.totalLength, tilingData.formerNum, tilingData.formerLength, tilingData.smallLength,
            tilingData.tileLength, tilingData.alpha);
    op.Process();
}
