// ReduceSumAll: y[0] = sum(x), float32, in two stages across cores.
// Stage 1 (every core): stream the core's slice in tiles and add each tile lane-wise into a TBuf accumulator, so
// the expensive cross-lane ReduceSum runs once per core rather than once per tile; the partial goes to the core's
// own 32-byte slot in the user workspace, zero-padded so the slots can later be summed as one contiguous vector.
// SyncAll() then guarantees every partial has landed in GM.
// Stage 2 (core 0 only): load all slots, reduce them, write y with a 4-byte DataCopyPad.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2; // tilewise: tune BUFFER_NUM in [1, 2]

constexpr uint32_t SLOT_FLOATS = 8; // one 32-byte block per core in the workspace

class KernelReduceSumAll {
public:
    __aicore__ inline KernelReduceSumAll() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR userWorkspace, uint32_t totalLength,
                                uint32_t blockLength, uint32_t tileLength)
    {
        blockIdx = GetBlockIdx();
        blockNum = GetBlockNum();
        const uint32_t start = blockIdx * blockLength;
        this->coreLength = (totalLength - start < blockLength) ? (totalLength - start) : blockLength;
        this->tileLength = tileLength;
        this->tileNum = (this->coreLength + tileLength - 1) / tileLength;
        this->lastTileLength = this->coreLength - (this->tileNum - 1) * tileLength;

        xGm.SetGlobalBuffer((__gm__ float*)x + start, this->coreLength);
        yGm.SetGlobalBuffer((__gm__ float*)y, 1);
        partialGm.SetGlobalBuffer((__gm__ float*)userWorkspace, blockNum * SLOT_FLOATS);

        const uint32_t partialLength = blockNum * SLOT_FLOATS;
        const uint32_t widest = tileLength > partialLength ? tileLength : partialLength;
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(inQueuePartial, 1, partialLength * sizeof(float));
        pipe.InitBuffer(outQueueSum, 1, SLOT_FLOATS * sizeof(float));
        pipe.InitBuffer(accBuf, tileLength * sizeof(float));
        // ReduceSum's work area holds one partial per 256-byte repeat, rounded up to a block.
        pipe.InitBuffer(workBuf, ((widest + 63) / 64 + 7) / 8 * 8 * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        LocalTensor<float> acc = accBuf.Get<float>();
        Duplicate(acc, 0.0f, tileLength);
        for (uint32_t i = 0; i < tileNum; i++) {
            const uint32_t length = (i == tileNum - 1) ? lastTileLength : tileLength;
            CopyIn(i, length);
            Accumulate(acc, length);
        }
        WritePartial(acc);
        // The partial must be in GM, not just queued on MTE3, before other cores may read it.
        PipeBarrier<PIPE_ALL>();
        SyncAll();
        if (blockIdx == 0) {
            FinalReduce();
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t length)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        if (length % 8 == 0) {
            DataCopy(xLocal, xGm[progress * tileLength], length);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(length * sizeof(float)), 0, 0, 0};
            DataCopyPadExtParams<float> padParams{false, 0, 0, 0.0f};
            DataCopyPad(xLocal, xGm[progress * tileLength], copyParams, padParams);
        }
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Accumulate(const LocalTensor<float>& acc, uint32_t length)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        // Lanes past a short last tile keep their running sums; they are reduced with the rest below.
        Add(acc, acc, xLocal, length);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void WritePartial(const LocalTensor<float>& acc)
    {
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> slot = outQueueSum.AllocTensor<float>();
        Duplicate(slot, 0.0f, SLOT_FLOATS);
        ReduceSum(slot, acc, work, tileLength);
        outQueueSum.EnQue<float>(slot);
        slot = outQueueSum.DeQue<float>();
        DataCopy(partialGm[blockIdx * SLOT_FLOATS], slot, SLOT_FLOATS);
        outQueueSum.FreeTensor(slot);
    }

    __aicore__ inline void FinalReduce()
    {
        const uint32_t partialLength = blockNum * SLOT_FLOATS;
        LocalTensor<float> partials = inQueuePartial.AllocTensor<float>();
        DataCopy(partials, partialGm, partialLength);
        inQueuePartial.EnQue(partials);
        partials = inQueuePartial.DeQue<float>();

        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> total = outQueueSum.AllocTensor<float>();
        // Every slot is [partial, 0, ..., 0], so summing the whole block run adds exactly the partials.
        ReduceSum(total, partials, work, partialLength);
        outQueueSum.EnQue<float>(total);
        inQueuePartial.FreeTensor(partials);

        total = outQueueSum.DeQue<float>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(sizeof(float)), 0, 0, 0};
        DataCopyPad(yGm, total, copyParams);
        outQueueSum.FreeTensor(total);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECIN, 1> inQueuePartial;
    TQue<QuePosition::VECOUT, 1> outQueueSum;
    TBuf<QuePosition::VECCALC> accBuf;
    TBuf<QuePosition::VECCALC> workBuf;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    GlobalTensor<float> partialGm;
    uint32_t blockIdx = 0;
    uint32_t blockNum = 0;
    uint32_t coreLength = 0;
    uint32_t tileLength = 0;
    uint32_t tileNum = 0;
    uint32_t lastTileLength = 0;
};

extern "C" __global__ __aicore__ void reduce_sum_all(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    GM_ADDR userWorkspace = GetUserWorkspace(workspace);
    if (userWorkspace == nullptr) {
        return;
    }
    KernelReduceSumAll op;
    op.Init(x, y, userWorkspace, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
    op.Process();
}
