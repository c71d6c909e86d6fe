// AxpyCustom kernel: z = alpha * x + y on fp32.
// Each core streams its run of blocks through double-buffered tiles. y is loaded into a VECIN->VECOUT bound queue,
// Axpy accumulates alpha * x into it in one vector pass, and the same buffer is stored as z. Only the last core can
// end inside a 32-byte block; its tail moves with DataCopyPad.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;  // tilewise: tune BUFFER_NUM in [1, 2]
constexpr uint32_t BLOCK_BYTES = 32;

class KernelAxpy {
public:
    __aicore__ inline KernelAxpy() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t formerNum,
                                uint32_t formerLength, uint32_t smallLength, uint32_t tileLength, float alpha)
    {
        const uint32_t blockIdx = GetBlockIdx();
        uint64_t offset = 0;
        if (blockIdx < formerNum) {
            offset = static_cast<uint64_t>(formerLength) * blockIdx;
            this->coreLength = formerLength;
        } else {
            offset = static_cast<uint64_t>(formerLength) * formerNum +
                     static_cast<uint64_t>(smallLength) * (blockIdx - formerNum);
            this->coreLength = smallLength;
        }
        if (blockIdx == GetBlockNum() - 1) {
            // The blocks were counted rounded up: the last core stops at the tensor's real end.
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
        pipe.InitBuffer(bindQueueYZ, BUFFER_NUM, tileLength * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tileNum; i++) {
            const uint32_t len = (i == tileNum - 1) ? lastTileLength : tileLength;
            CopyIn(i, len);
            Compute(len);
            CopyOut(i, len);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t len)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        LocalTensor<float> yLocal = bindQueueYZ.AllocTensor<float>();
        const uint64_t offset = static_cast<uint64_t>(progress) * tileLength;
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
        bindQueueYZ.EnQue(yLocal);
    }

    __aicore__ inline void Compute(uint32_t len)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = bindQueueYZ.DeQue<float>();
        Axpy(yLocal, xLocal, alpha, len);
        bindQueueYZ.EnQue<float>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t len)
    {
        LocalTensor<float> zLocal = bindQueueYZ.DeQue<float>();
        const uint64_t offset = static_cast<uint64_t>(progress) * tileLength;
        if ((len * sizeof(float)) % BLOCK_BYTES == 0) {
            DataCopy(zGm[offset], zLocal, len);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0};
            DataCopyPad(zGm[offset], zLocal, copyParams);
        }
        bindQueueYZ.FreeTensor(zLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQueBind<QuePosition::VECIN, QuePosition::VECOUT, BUFFER_NUM> bindQueueYZ;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    GlobalTensor<float> zGm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
    uint32_t tileNum = 0;
    uint32_t lastTileLength = 0;
    float alpha = 0.0f;
};

extern "C" __global__ __aicore__ void axpy_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAxpy op;
    op.Init(x, y, z, tilingData.totalLength, tilingData.formerNum, tilingData.formerLength, tilingData.smallLength,
            tilingData.tileLength, tilingData.alpha);
    op.Process();
}
