// Kernel-invocation AddKernel: z = x + y on fp32, kernel and host main in one file.
// main() reads input_x.bin / input_y.bin (raw little-endian float32), builds the tiling by hand and launches
// add_kernel on blockDim cores; each core owns a 32-byte-aligned chunk (the last core takes the remainder) and
// streams it through double-buffered tiles, with DataCopyPad for an unaligned final tile. Result: output_z.bin.
#include <cstdint>
#include <cstdio>
#include <vector>
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t BLOCK_DIM = 8;       // tilewise: tune BLOCK_DIM in [1, 2, 4, 8, 16, 24, 32, 40, 48]
constexpr uint32_t TILE_LENGTH = 1024;  // tilewise: tune TILE_LENGTH in [64, 128, 256, 512, 1024, 2048, 4096, 8192]
constexpr int32_t BUFFER_NUM = 2;       // tilewise: tune BUFFER_NUM in [1, 2]

constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t ALIGN_ELEMS = BLOCK_BYTES / sizeof(float);
constexpr uint32_t UB_BYTES = 192 * 1024;
constexpr uint32_t QUEUE_COUNT = 3;
constexpr uint32_t MAX_BUFFER_NUM = 2;

struct AddTilingData {
    uint32_t totalLength;
    uint32_t blockLength;
    uint32_t lastBlockLength;
    uint32_t tileLength;
};

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
        Add(zLocal, xLocal, yLocal, len);
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
};

extern "C" __global__ __aicore__ void add_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling)
{
    // The tiling struct lives in GM; copy the fields into scalars once instead of re-reading GM per use.
    const __gm__ AddTilingData* tilingGm = reinterpret_cast<const __gm__ AddTilingData*>(tiling);
    uint32_t blockLength = tilingGm->blockLength;
    uint32_t lastBlockLength = tilingGm->lastBlockLength;
    uint32_t tileLength = tilingGm->tileLength;
    KernelAdd op;
    op.Init(x, y, z, blockLength, lastBlockLength, tileLength);
    op.Process();
}

// ---------------------------------------------------------------------------------------------------------------
// Host side.

static bool ReadFile(const char* path, std::vector<float>& data)
{
    FILE* fp = std::fopen(path, "rb");
    if (fp == nullptr) {
        std::fprintf(stderr, "cannot open %s\n", path);
        return false;
    }
    std::fseek(fp, 0, SEEK_END);
    long bytes = std::ftell(fp);
    std::fseek(fp, 0, SEEK_SET);
    if (bytes <= 0 || bytes % static_cast<long>(sizeof(float)) != 0) {
        std::fprintf(stderr, "%s: size %ld is not a positive multiple of %zu\n", path, bytes, sizeof(float));
        std::fclose(fp);
        return false;
    }
    data.resize(static_cast<size_t>(bytes) / sizeof(float));
    size_t got = std::fread(data.data(), sizeof(float), data.size(), fp);
    std::fclose(fp);
    return got == data.size();
}

static bool WriteFile(const char* path, const std::vector<float>& data)
{
    FILE* fp = std::fopen(path, "wb");
    if (fp == nullptr) {
        std::fprintf(stderr, "cannot create %s\n", path);
        return false;
    }
    size_t put = std::fwrite(data.data(), sizeof(float), data.size(), fp);
    std::fclose(fp);
    return put == data.size();
}

// Same scheme as the operator project's TilingFunc: whole 32-byte blocks per core, launch only the cores
// that own data, and clamp the tile so 3 queues x 2 buffers fit in UB.
static AddTilingData ComputeTiling(uint32_t totalLength, uint32_t& blockDim)
{
    AddTilingData tiling{};
    blockDim = BLOCK_DIM == 0 ? 1 : BLOCK_DIM;
    uint32_t perCore = (totalLength + blockDim - 1) / blockDim;
    uint32_t blockLength = (perCore + ALIGN_ELEMS - 1) / ALIGN_ELEMS * ALIGN_ELEMS;
    blockDim = (totalLength + blockLength - 1) / blockLength;

    uint32_t maxTile = UB_BYTES / (QUEUE_COUNT * MAX_BUFFER_NUM * sizeof(float));
    uint32_t tileLength = TILE_LENGTH < maxTile ? TILE_LENGTH : maxTile;
    if (tileLength > blockLength) {
        tileLength = blockLength;
    }
    tileLength = tileLength / ALIGN_ELEMS * ALIGN_ELEMS;
    if (tileLength == 0) {
        tileLength = ALIGN_ELEMS;
    }

    tiling.totalLength = totalLength;
    tiling.blockLength = blockLength;
    tiling.lastBlockLength = totalLength - (blockDim - 1) * blockLength;
    tiling.tileLength = tileLength;
    return tiling;
}

int main()
{
    std::vector<float> xHost;
    std::vector<float> yHost;
    if (!ReadFile("input_x.bin", xHost) || !ReadFile("input_y.bin", yHost)) {
        return 1;
    }
    if (xHost.size() != yHost.size()) {
        std::fprintf(stderr, "x has %zu elements but y has %zu\n", xHost.size(), yHost.size());
        return 1;
    }
    uint32_t totalLength = static_cast<uint32_t>(xHost.size());
    std::vector<float> zHost(xHost.size(), 0.0f);

    uint32_t blockDim = 1;
    AddTilingData tiling = ComputeTiling(totalLength, blockDim);

    void* stream = nullptr;
    add_kernel<<<blockDim, nullptr, stream>>>(reinterpret_cast<GM_ADDR>(xHost.data()),
                                              reinterpret_cast<GM_ADDR>(yHost.data()),
                                              reinterpret_cast<GM_ADDR>(zHost.data()),
                                              reinterpret_cast<GM_ADDR>(&tiling));

    if (!WriteFile("output_z.bin", zHost)) {
        return 1;
    }
    std::printf("add_kernel: %u elements on %u cores, tile %u\n", totalLength, blockDim, tiling.tileLength);
    return 0;
}
