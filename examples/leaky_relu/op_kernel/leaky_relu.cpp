// LeakyRelu kernel: y = x >= 0 ? x : negativeSlope * x, fp16 or fp32 (DTYPE_X).
// IS_RELU (tiling key 1, slope 0) is one Relu. Otherwise y = max(x, 0) + slope * min(x, 0): exactly one of the
// two terms is zero, so the sum adds no rounding beyond the multiply. The slope is converted to T once, so an
// fp16 kernel multiplies by half(slope). Tiles are double-buffered; the unaligned tail goes through DataCopyPad.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;  // tilewise: tune BUFFER_NUM in [1, 2]
constexpr uint32_t BLOCK_BYTES = 32;

template <typename T, bool IS_RELU>
class KernelLeakyRelu {
public:
    __aicore__ inline KernelLeakyRelu() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t blockLength, uint32_t lastBlockLength,
                                uint32_t tileLength, float negativeSlope)
    {
        uint64_t offset = static_cast<uint64_t>(blockLength) * GetBlockIdx();
        this->coreLength = (GetBlockIdx() == GetBlockNum() - 1) ? lastBlockLength : blockLength;
        this->tileLength = tileLength;
        this->tileNum = (this->coreLength + tileLength - 1) / tileLength;
        this->lastTileLength = this->coreLength - (this->tileNum - 1) * tileLength;
        this->slope = static_cast<T>(negativeSlope);

        xGm.SetGlobalBuffer((__gm__ T*)x + offset, this->coreLength);
        yGm.SetGlobalBuffer((__gm__ T*)y + offset, this->coreLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(negBuf, tileLength * sizeof(T));
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
        uint64_t offset = static_cast<uint64_t>(progress) * tileLength;
        if ((len * sizeof(T)) % BLOCK_BYTES == 0) {
            DataCopy(xLocal, xGm[offset], len);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
            DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
        }
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t len)
    {
        LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        if (IS_RELU) {
            Relu(yLocal, xLocal, len);
        } else {
            LocalTensor<T> negLocal = negBuf.Get<T>();
            Maxs(yLocal, xLocal, static_cast<T>(0), len);
            Mins(negLocal, xLocal, static_cast<T>(0), len);
            PipeBarrier<PIPE_V>();
            Muls(negLocal, negLocal, slope, len);
            PipeBarrier<PIPE_V>();
            Add(yLocal, yLocal, negLocal, len);
        }
        outQueueY.EnQue<T>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t len)
    {
        LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        uint64_t offset = static_cast<uint64_t>(progress) * tileLength;
        if ((len * sizeof(T)) % BLOCK_BYTES == 0) {
            DataCopy(yGm[offset], yLocal, len);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};
            DataCopyPad(yGm[offset], yLocal, copyParams);
        }
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<QuePosition::VECCALC> negBuf;
    GlobalTensor<T> xGm;
    GlobalTensor<T> yGm;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
    uint32_t tileNum = 0;
    uint32_t lastTileLength = 0;
    T slope;
};

extern "C" __global__ __aicore__ void leaky_relu(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelLeakyRelu<DTYPE_X, true> op;
        op.Init(x, y, tilingData.blockLength, tilingData.lastBlockLength, tilingData.tileLength,
                tilingData.negativeSlope);
        op.Process();
    } else if (TILING_KEY_IS(2)) {
        KernelLeakyRelu<DTYPE_X, false> op;
        op.Init(x, y, tilingData.blockLength, tilingData.lastBlockLength, tilingData.tileLength,
                tilingData.negativeSlope);
        op.Process();
    }
}
