// RmsNorm: y[i, :] = x[i, :] / sqrt(mean(x[i, :]^2) + epsilon) * gamma, float32.
// Tiling: whole rows are dealt out to cores (the first extraRows cores take one extra row). Each row is walked in
// column chunks of COL_TILE floats, so UB use is fixed whatever N is:
//  - N <= COL_TILE: the row stays resident in UB, and gamma is loaded once per core and kept for every row;
//  - N >  COL_TILE: pass 1 streams the chunks and accumulates x^2 lane-wise in a TBuf (one reduction per row
//    instead of one per chunk), pass 2 streams x and gamma again and writes y.
// Full chunks are COL_TILE floats, a whole number of 32-byte blocks, so they move with plain DataCopy; only a
// row's last chunk (or a resident row) whose length is not a block multiple needs DataCopyPad.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;   // tilewise: tune BUFFER_NUM in [1, 2]
constexpr uint32_t COL_TILE = 512;  // tilewise: tune COL_TILE in [256, 512, 1024, 2048, 4096]
static_assert(COL_TILE % 8 == 0, "a full column chunk must be a whole number of 32-byte blocks");

class KernelRmsNorm {
public:
    __aicore__ inline KernelRmsNorm() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, uint32_t colNum, uint32_t baseRowsPerCore,
                                uint32_t extraRows, float avgFactor, float epsilon)
    {
        const uint32_t blockIdx = GetBlockIdx();
        this->colNum = colNum;
        this->avgFactor = avgFactor;
        this->epsilon = epsilon;
        this->coreRows = baseRowsPerCore + (blockIdx < extraRows ? 1 : 0);
        const uint32_t rowStart = blockIdx * baseRowsPerCore + (blockIdx < extraRows ? blockIdx : extraRows);
        this->chunkNum = (colNum + COL_TILE - 1) / COL_TILE;
        this->lastChunk = colNum - (this->chunkNum - 1) * COL_TILE;

        xGm.SetGlobalBuffer((__gm__ float*)x + static_cast<uint64_t>(rowStart) * colNum,
                            static_cast<uint64_t>(this->coreRows) * colNum);
        yGm.SetGlobalBuffer((__gm__ float*)y + static_cast<uint64_t>(rowStart) * colNum,
                            static_cast<uint64_t>(this->coreRows) * colNum);
        gammaGm.SetGlobalBuffer((__gm__ float*)gamma, colNum);

        pipe.InitBuffer(inQueueX, BUFFER_NUM, COL_TILE * sizeof(float));
        pipe.InitBuffer(inQueueGamma, BUFFER_NUM, COL_TILE * sizeof(float));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, COL_TILE * sizeof(float));
        pipe.InitBuffer(accBuf, COL_TILE * sizeof(float));
        // ReduceSum's work area holds one partial per 256-byte repeat, rounded up to a block.
        pipe.InitBuffer(workBuf, ((COL_TILE / 64 + 7) / 8) * 8 * sizeof(float));
        pipe.InitBuffer(reduceBuf, 8 * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        if (chunkNum == 1) {
            ProcessResident();
        } else {
            ProcessChunked();
        }
    }

private:
    __aicore__ inline void ProcessResident()
    {
        LoadPart(inQueueGamma, gammaGm, 0, colNum);
        LocalTensor<float> gammaLocal = inQueueGamma.DeQue<float>();
        LocalTensor<float> acc = accBuf.Get<float>();
        for (uint32_t r = 0; r < coreRows; r++) {
            const uint64_t rowOffset = static_cast<uint64_t>(r) * colNum;
            LoadPart(inQueueX, xGm, rowOffset, colNum);
            LocalTensor<float> xLocal = inQueueX.DeQue<float>();
            Mul(acc, xLocal, xLocal, colNum);
            const float rstd = RowRstd(acc, colNum);
            LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
            Muls(yLocal, xLocal, rstd, colNum);
            Mul(yLocal, yLocal, gammaLocal, colNum);
            outQueueY.EnQue<float>(yLocal);
            inQueueX.FreeTensor(xLocal);
            StorePart(rowOffset, colNum);
        }
        inQueueGamma.FreeTensor(gammaLocal);
    }

    __aicore__ inline void ProcessChunked()
    {
        LocalTensor<float> acc = accBuf.Get<float>();
        for (uint32_t r = 0; r < coreRows; r++) {
            const uint64_t rowOffset = static_cast<uint64_t>(r) * colNum;
            // Pass 1: lane-wise sum of squares over all chunks of the row.
            Duplicate(acc, 0.0f, COL_TILE);
            for (uint32_t c = 0; c < chunkNum; c++) {
                const uint32_t len = (c == chunkNum - 1) ? lastChunk : COL_TILE;
                if (c < chunkNum - 1) {
                    LoadFull(inQueueX, xGm, rowOffset + c * COL_TILE);
                } else {
                    LoadPart(inQueueX, xGm, rowOffset + c * COL_TILE, len);
                }
                LocalTensor<float> xLocal = inQueueX.DeQue<float>();
                Mul(xLocal, xLocal, xLocal, len);
                Add(acc, acc, xLocal, len);
                inQueueX.FreeTensor(xLocal);
            }
            const float rstd = RowRstd(acc, COL_TILE);
            // Pass 2: scale and apply gamma chunk by chunk.
            for (uint32_t c = 0; c < chunkNum; c++) {
                const uint32_t len = (c == chunkNum - 1) ? lastChunk : COL_TILE;
                if (c < chunkNum - 1) {
                    LoadFull(inQueueX, xGm, rowOffset + c * COL_TILE);
                    LoadFull(inQueueGamma, gammaGm, c * COL_TILE);
                } else {
                    LoadPart(inQueueX, xGm, rowOffset + c * COL_TILE, len);
                    LoadPart(inQueueGamma, gammaGm, c * COL_TILE, len);
                }
                LocalTensor<float> xLocal = inQueueX.DeQue<float>();
                LocalTensor<float> gammaLocal = inQueueGamma.DeQue<float>();
                LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
                Muls(yLocal, xLocal, rstd, len);
                Mul(yLocal, yLocal, gammaLocal, len);
                outQueueY.EnQue<float>(yLocal);
                inQueueX.FreeTensor(xLocal);
                inQueueGamma.FreeTensor(gammaLocal);
                if (c < chunkNum - 1) {
                    StoreFull(rowOffset + c * COL_TILE);
                } else {
                    StorePart(rowOffset + c * COL_TILE, len);
                }
            }
        }
    }

    // 1 / sqrt(sum(acc[0:count]) / N + eps). The mean, epsilon and root stay on the vector unit; the scalar
    // unit only reads the finished value, after a V->S event.
    __aicore__ inline float RowRstd(const LocalTensor<float>& acc, uint32_t count)
    {
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> reduced = reduceBuf.Get<float>();
        ReduceSum(reduced, acc, work, count);
        Muls(reduced, reduced, avgFactor, 1);
        Adds(reduced, reduced, epsilon, 1);
        Sqrt(reduced, reduced, 1);
        event_t eventIdVToS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(eventIdVToS);
        WaitFlag<HardEvent::V_S>(eventIdVToS);
        return 1.0f / reduced.GetValue(0);
    }

    __aicore__ inline void LoadFull(TQue<QuePosition::VECIN, BUFFER_NUM>& queue, const GlobalTensor<float>& src,
                                    uint64_t offset)
    {
        LocalTensor<float> local = queue.AllocTensor<float>();
        DataCopy(local, src[offset], COL_TILE);
        queue.EnQue(local);
    }

    __aicore__ inline void LoadPart(TQue<QuePosition::VECIN, BUFFER_NUM>& queue, const GlobalTensor<float>& src,
                                    uint64_t offset, uint32_t len)
    {
        LocalTensor<float> local = queue.AllocTensor<float>();
        if (len % 8 == 0) {
            DataCopy(local, src[offset], len);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0};
            DataCopyPadExtParams<float> padParams{false, 0, 0, 0.0f};
            DataCopyPad(local, src[offset], copyParams, padParams);
        }
        queue.EnQue(local);
    }

    __aicore__ inline void StoreFull(uint64_t offset)
    {
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        DataCopy(yGm[offset], yLocal, COL_TILE);
        outQueueY.FreeTensor(yLocal);
    }

    __aicore__ inline void StorePart(uint64_t offset, uint32_t len)
    {
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        if (len % 8 == 0) {
            DataCopy(yGm[offset], yLocal, len);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0};
            DataCopyPad(yGm[offset], yLocal, copyParams);
        }
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueGamma;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<QuePosition::VECCALC> accBuf;
    TBuf<QuePosition::VECCALC> workBuf;
    TBuf<QuePosition::VECCALC> reduceBuf;
    GlobalTensor<float> xGm;
    GlobalTensor<float> gammaGm;
    GlobalTensor<float> yGm;
    uint32_t colNum = 0;
    uint32_t coreRows = 0;
    uint32_t chunkNum = 0;
    uint32_t lastChunk = 0;
    float avgFactor = 0.0f;
    float epsilon = 0.0f;
};

extern "C" __global__ __aicore__ void rms_norm(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, GM_ADDR workspace,
                                               GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelRmsNorm op;
    op.Init(x, gamma, y, tilingData.colNum, tilingData.baseRowsPerCore, tilingData.extraRows,
            tilingData.avgFactor, tilingData.epsilon);
    op.Process();
}
