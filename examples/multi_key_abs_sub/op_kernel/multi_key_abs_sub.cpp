// MultiKeyAbsSub: z = |x - y|, float16, with one kernel variant per tiling key.
// Tiling: whole tiles of tileLength halves are dealt out to cores in contiguous runs (the first extraTiles cores
// take one more). Key 1 (totalLength a multiple of the tile) never sees a partial tile, so its copies are plain
// DataCopy with no per-tile length check; key 2 gives the core owning the final tile a shorter length that may not
// be a 32-byte multiple, moved with DataCopyPad.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2; // tilewise: tune BUFFER_NUM in [1, 2]

template <bool HAS_TAIL>
class KernelAbsSub {
public:
    __aicore__ inline KernelAbsSub() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t tileLength,
                                uint32_t tileNum, uint32_t baseTilesPerCore, uint32_t extraTiles,
                                uint32_t lastTileLength)
    {
        const uint32_t blockIdx = GetBlockIdx();
        this->tileLength = tileLength;
        this->lastTileLength = lastTileLength;
        this->coreTiles = baseTilesPerCore + (blockIdx < extraTiles ? 1 : 0);
        const uint32_t firstTile = blockIdx * baseTilesPerCore + (blockIdx < extraTiles ? blockIdx : extraTiles);
        // Only the core whose run ends at the last tile sees the short tile.
        this->ownsTail = HAS_TAIL && (firstTile + this->coreTiles == tileNum);
        const uint32_t start = firstTile * tileLength;
        const uint32_t coreLength = this->ownsTail ? totalLength - start : this->coreTiles * tileLength;

        xGm.SetGlobalBuffer((__gm__ half*)x + start, coreLength);
        yGm.SetGlobalBuffer((__gm__ half*)y + start, coreLength);
        zGm.SetGlobalBuffer((__gm__ half*)z + start, coreLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(half));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(half));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(half));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < coreTiles; i++) {
            const bool isTail = HAS_TAIL && ownsTail && (i == coreTiles - 1);
            const uint32_t length = isTail ? lastTileLength : tileLength;
            CopyIn(i, length, isTail);
            Compute(length);
            CopyOut(i, length, isTail);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t length, bool isTail)
    {
        LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
        LocalTensor<half> yLocal = inQueueY.AllocTensor<half>();
        if constexpr (HAS_TAIL) {
            if (isTail) {
                DataCopyExtParams copyParams{1, static_cast<uint32_t>(length * sizeof(half)), 0, 0, 0};
                DataCopyPadExtParams<half> padParams{false, 0, 0, 0};
                DataCopyPad(xLocal, xGm[progress * tileLength], copyParams, padParams);
                DataCopyPad(yLocal, yGm[progress * tileLength], copyParams, padParams);
                inQueueX.EnQue(xLocal);
                inQueueY.EnQue(yLocal);
                return;
            }
        }
        DataCopy(xLocal, xGm[progress * tileLength], length);
        DataCopy(yLocal, yGm[progress * tileLength], length);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }

    __aicore__ inline void Compute(uint32_t length)
    {
        LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        LocalTensor<half> yLocal = inQueueY.DeQue<half>();
        LocalTensor<half> zLocal = outQueueZ.AllocTensor<half>();
        Sub(zLocal, xLocal, yLocal, length);
        Abs(zLocal, zLocal, length);
        outQueueZ.EnQue<half>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t length, bool isTail)
    {
        LocalTensor<half> zLocal = outQueueZ.DeQue<half>();
        if constexpr (HAS_TAIL) {
            if (isTail) {
                DataCopyExtParams copyParams{1, static_cast<uint32_t>(length * sizeof(half)), 0, 0, 0};
                DataCopyPad(zGm[progress * tileLength], zLocal, copyParams);
                outQueueZ.FreeTensor(zLocal);
                return;
            }
        }
        DataCopy(zGm[progress * tileLength], zLocal, length);
        outQueueZ.FreeTensor(zLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    GlobalTensor<half> xGm;
    GlobalTensor<half> yGm;
    GlobalTensor<half> zGm;
    uint32_t tileLength = 0;
    uint32_t lastTileLength = 0;
    uint32_t coreTiles = 0;
    bool ownsTail = false;
};

extern "C" __global__ __aicore__ void multi_key_abs_sub(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                        GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelAbsSub<false> op;
        op.Init(x, y, z, tilingData.totalLength, tilingData.tileLength, tilingData.tileNum,
                tilingData.baseTilesPerCore, tilingData.extraTiles, tilingData.lastTileLength);
        op.Process();
    } else if (TILING_KEY_IS(2)) {
        KernelAbsSub<true> op;
        op.Init(x, y, z, tilingData.totalLength, tilingData.tileLength, tilingData.tileNum,
                tilingData.baseTilesPerCore, tilingData.extraTiles, tilingData.lastTileLength);
        op.Process();
    }
}
