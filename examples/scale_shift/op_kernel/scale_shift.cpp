// ScaleShift kernel: y = x * gamma + beta per row, fp16 in and out, fp32 inside.
// gamma and beta are the same for every row: each core loads them and widens them to fp32 once, before its row
// loop, and every row reuses the widened copies. Rows are double-buffered through the x and y queues.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2; // tilewise: tune BUFFER_NUM in [1, 2]

class KernelScaleShift {
public:
    __aicore__ inline KernelScaleShift() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, uint32_t cols,
                                uint32_t baseRowsPerCore, uint32_t extraRows)
    {
        const uint32_t idx = GetBlockIdx();
        this->cols = cols;
        this->rowCount = baseRowsPerCore + (idx < extraRows ? 1 : 0);
        const uint64_t firstRow = static_cast<uint64_t>(baseRowsPerCore) * idx + (idx < extraRows ? idx : extraRows);
        const uint64_t offset = firstRow * cols;

        xGm.SetGlobalBuffer((__gm__ half*)x + offset, static_cast<uint64_t>(this->rowCount) * cols);
        yGm.SetGlobalBuffer((__gm__ half*)y + offset, static_cast<uint64_t>(this->rowCount) * cols);
        gammaGm.SetGlobalBuffer((__gm__ half*)gamma, cols);
        betaGm.SetGlobalBuffer((__gm__ half*)beta, cols);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, cols * sizeof(half));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, cols * sizeof(half));
        pipe.InitBuffer(paramBuf, 2 * cols * sizeof(half));
        pipe.InitBuffer(paramFloatBuf, 2 * cols * sizeof(float));
        pipe.InitBuffer(rowFloatBuf, cols * sizeof(float));
        LocalTensor<float> params = paramFloatBuf.Get<float>();
        gammaF = params;
        betaF = params[cols];
    }

    __aicore__ inline void Process()
    {
        if (rowCount == 0) {
            return;
        }
        LocalTensor<half> paramLocal = paramBuf.Get<half>();
        LocalTensor<half> gammaLocal = paramLocal;
        LocalTensor<half> betaLocal = paramLocal[cols];
        DataCopy(gammaLocal, gammaGm, cols);
        DataCopy(betaLocal, betaGm, cols);
        event_t eventMte2ToV = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_V));
        SetFlag<HardEvent::MTE2_V>(eventMte2ToV);
        WaitFlag<HardEvent::MTE2_V>(eventMte2ToV);
        Cast(gammaF, gammaLocal, RoundMode::CAST_NONE, cols);
        Cast(betaF, betaLocal, RoundMode::CAST_NONE, cols);
        for (uint32_t r = 0; r < rowCount; r++) {
            CopyIn(r);
            Compute();
            CopyOut(r);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t row)
    {
        LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
        DataCopy(xLocal, xGm[static_cast<uint64_t>(row) * cols], cols);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute()
    {
        LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
        LocalTensor<float> rowF = rowFloatBuf.Get<float>();
        Cast(rowF, xLocal, RoundMode::CAST_NONE, cols);
        PipeBarrier<PIPE_V>();
        Mul(rowF, rowF, gammaF, cols);
        PipeBarrier<PIPE_V>();
        Add(rowF, rowF, betaF, cols);
        PipeBarrier<PIPE_V>();
        Cast(yLocal, rowF, RoundMode::CAST_RINT, cols);
        outQueueY.EnQue<half>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t row)
    {
        LocalTensor<half> yLocal = outQueueY.DeQue<half>();
        DataCopy(yGm[static_cast<uint64_t>(row) * cols], yLocal, cols);
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<QuePosition::VECCALC> paramBuf;
    TBuf<QuePosition::VECCALC> paramFloatBuf;
    TBuf<QuePosition::VECCALC> rowFloatBuf;
    GlobalTensor<half> xGm;
    GlobalTensor<half> gammaGm;
    GlobalTensor<half> betaGm;
    GlobalTensor<half> yGm;
    LocalTensor<float> gammaF;
    LocalTensor<float> betaF;
    uint32_t cols = 0;
    uint32_t rowCount = 0;
};

extern "C" __global__ __aicore__ void scale_shift(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y,
                                                  GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelScaleShift op;
    op.Init(x, gamma, beta, y, tilingData.cols, tilingData.baseRowsPerCore, tilingData.extraRows);
    op.Process();
}
