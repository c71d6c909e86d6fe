// Silu (swish): y = x * sigmoid(x) = x / (1 + exp(-x)), float16 / float32.
// The division form needs no separate sigmoid buffer and stays finite for very negative x (exp -> inf, x/inf -> 0).
// Tiling: the tensor is counted in 32-byte blocks, spread over the cores so loads differ by at most one block;
// a core streams its slice in tiles of tileLength, and only the final core's last tile can be a partial block
// (DataCopyPad). The tiling key carries the dtype (1 = half, 2 = float); half is widened to fp32 in TBuf scratch.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2; // tilewise: tune BUFFER_NUM in [1, 2]

template <typename T>
class KernelSilu {
public:
    __aicore__ inline KernelSilu() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t baseBlocksPerCore,
                                uint32_t extraBlocks, uint32_t tileLength)
    {
        const uint32_t blockIdx = GetBlockIdx();
        const uint32_t alignElems = 32 / sizeof(T);
        const uint32_t coreBlocks = baseBlocksPerCore + (blockIdx < extraBlocks ? 1 : 0);
        const uint32_t startBlock = blockIdx * baseBlocksPerCore + (blockIdx < extraBlocks ? blockIdx : extraBlocks);
        const uint32_t start = startBlock * alignElems;
        const uint32_t span = coreBlocks * alignElems;
        this->coreLength = (totalLength - start < span) ? (totalLength - start) : span;
        this->tileLength = tileLength;
        this->tileNum = (this->coreLength + tileLength - 1) / tileLength;
        this->lastTileLength = this->coreLength - (this->tileNum - 1) * tileLength;

        xGm.SetGlobalBuffer((__gm__ T*)x + start, this->coreLength);
        yGm.SetGlobalBuffer((__gm__ T*)y + start, this->coreLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(denomBuf, tileLength * sizeof(float));
        if constexpr (sizeof(T) < sizeof(float)) {
            pipe.InitBuffer(castBuf, tileLength * sizeof(float));
        }
    }

    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tileNum; i++) {
            const uint32_t length = (i == tileNum - 1) ? lastTileLength : tileLength;
            CopyIn(i, length);
            Compute(length);
            CopyOut(i, length);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t length)
    {
        LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        if ((length * sizeof(T)) % 32 == 0) {
            DataCopy(xLocal, xGm[progress * tileLength], length);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(length * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
            DataCopyPad(xLocal, xGm[progress * tileLength], copyParams, padParams);
        }
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t length)
    {
        LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        LocalTensor<float> denom = denomBuf.Get<float>();
        if constexpr (sizeof(T) < sizeof(float)) {
            LocalTensor<float> xFloat = castBuf.Get<float>();
            Cast(xFloat, xLocal, RoundMode::CAST_NONE, length);
            Muls(denom, xFloat, -1.0f, length);
            Exp(denom, denom, length);
            Adds(denom, denom, 1.0f, length);
            Div(xFloat, xFloat, denom, length);
            Cast(yLocal, xFloat, RoundMode::CAST_RINT, length);
        } else {
            Muls(denom, xLocal, -1.0f, length);
            Exp(denom, denom, length);
            Adds(denom, denom, 1.0f, length);
            Div(yLocal, xLocal, denom, length);
        }
        outQueueY.EnQue<T>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t length)
    {
        LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        if ((length * sizeof(T)) % 32 == 0) {
            DataCopy(yGm[progress * tileLength], yLocal, length);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(length * sizeof(T)), 0, 0, 0};
            DataCopyPad(yGm[progress * tileLength], yLocal, copyParams);
        }
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<QuePosition::VECCALC> denomBuf;
    TBuf<QuePosition::VECCALC> castBuf;
    GlobalTensor<T> xGm;
    GlobalTensor<T> yGm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
    uint32_t tileNum = 0;
    uint32_t lastTileLength = 0;
};

extern "C" __global__ __aicore__ void silu(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelSilu<half> op;
        op.Init(x, y, tilingData.totalLength, tilingData.baseBlocksPerCore, tilingData.extraBlocks,
                tilingData.tileLength);
        op.Process();
    } else if (TILING_KEY_IS(2)) {
        KernelSilu<float> op;
        op.Init(x, y, tilingData.totalLength, tilingData.baseBlocksPerCore, tilingData.extraBlocks,
                tilingData.tileLength);
        op.Process();
    }
}
