// Fidelity case A13, fast side: the sum of one row of 30000 floats by a binary Add tree, then one WholeReduceSum.
// In counter mode, each step adds the row's upper part onto its lower half (half = ceil(n / 16) * 8 floats, so every
// half starts on a 32-byte block) until at most 64 floats (one repeat) are left; a row whose length is not a multiple
// of 16 folds its last n % 16 floats in with one more Add; one WholeReduceSum gives the sum. A PipeBarrier<PIPE_V>
// follows each instruction. The reduction runs LOOPS times on the same UB data so that the one-off copy of the
// 120 KB row into UB (outside the published GetSystemCycle window) is a small share of the time.
// main() reads input_x.bin (30000 raw float32), launches reduce_row on one core and writes output_z.bin (1 float).
#include <cstdint>
#include <cstdio>
#include <vector>
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t LENGTH = 30000;      // floats in the row (the published shape)
constexpr uint32_t LOOPS = 10;          // passes over the same data (see above)
constexpr uint32_t REPEAT_FLOATS = 64;  // floats in one 256-byte repeat
constexpr uint32_t HALF_BLOCKS = 8;     // the halving step counts 16-float pairs of blocks
constexpr uint32_t WORK_FLOATS = (LENGTH + 15) / 16 * 8;  // the first half, the largest the tree writes

__aicore__ inline void BinaryTreeSum(const LocalTensor<float>& dst, const LocalTensor<float>& src, uint32_t length)
{
    BinaryRepeatParams params;  // default strides: contiguous blocks and repeats
    SetMaskCount();
    uint32_t totalNum = length / 16 * 16;
    uint32_t remaining = length - totalNum;
    LocalTensor<float> cur = src;
    while (totalNum > REPEAT_FLOATS) {
        uint32_t halfNum = (totalNum + 15) / 16 * HALF_BLOCKS;
        SetVectorMask<float, MaskMode::COUNTER>(0, totalNum - halfNum);
        Add<float, false>(dst, cur, cur[halfNum], MASK_PLACEHOLDER, 1, params);
        PipeBarrier<PIPE_V>();
        totalNum = halfNum;
        cur = dst;
    }
    if (remaining != 0 && length > REPEAT_FLOATS) {
        SetVectorMask<float, MaskMode::COUNTER>(0, remaining);
        Add<float, false>(dst, dst, src[length - remaining], MASK_PLACEHOLDER, 1, params);
        PipeBarrier<PIPE_V>();
    }
    SetVectorMask<float, MaskMode::COUNTER>(0, totalNum);
    WholeReduceSum<float, false>(dst, cur, MASK_PLACEHOLDER, 1, 1, 1, 8);
    PipeBarrier<PIPE_V>();
    ResetMask();
    SetMaskNorm();
}

extern "C" __global__ __aicore__ void reduce_row(GM_ADDR x, GM_ADDR z)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    GlobalTensor<float> xGm;
    GlobalTensor<float> zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, LENGTH);
    zGm.SetGlobalBuffer((__gm__ float*)z, 1);
    pipe.InitBuffer(inQueue, 1, LENGTH * sizeof(float));
    pipe.InitBuffer(outQueue, 1, WORK_FLOATS * sizeof(float));

    LocalTensor<float> xIn = inQueue.AllocTensor<float>();
    DataCopy(xIn, xGm, LENGTH);
    inQueue.EnQue(xIn);
    LocalTensor<float> xLocal = inQueue.DeQue<float>();
    LocalTensor<float> zLocal = outQueue.AllocTensor<float>();
    for (uint32_t loop = 0; loop < LOOPS; ++loop) {
        BinaryTreeSum(zLocal, xLocal, LENGTH);
    }
    outQueue.EnQue<float>(zLocal);
    inQueue.FreeTensor(xLocal);

    LocalTensor<float> zOut = outQueue.DeQue<float>();
    DataCopyExtParams one{1, static_cast<uint32_t>(sizeof(float)), 0, 0, 0};
    DataCopyPad(zGm, zOut, one);
    outQueue.FreeTensor(zOut);
}

// ---------------------------------------------------------------------------------------------------------------
// Host side.

int main()
{
    std::vector<float> xHost(LENGTH);
    FILE* in = std::fopen("input_x.bin", "rb");
    if (in == nullptr) {
        std::fprintf(stderr, "cannot open input_x.bin\n");
        return 1;
    }
    size_t got = std::fread(xHost.data(), sizeof(float), LENGTH, in);
    std::fclose(in);
    if (got != LENGTH) {
        std::fprintf(stderr, "input_x.bin holds %zu floats; this case reduces exactly %u\n", got, LENGTH);
        return 1;
    }
    float zHost = 0.0f;
    reduce_row<<<1, nullptr, nullptr>>>(reinterpret_cast<GM_ADDR>(xHost.data()), reinterpret_cast<GM_ADDR>(&zHost));
    FILE* out = std::fopen("output_z.bin", "wb");
    if (out == nullptr) {
        std::fprintf(stderr, "cannot create output_z.bin\n");
        return 1;
    }
    size_t put = std::fwrite(&zHost, sizeof(float), 1, out);
    std::fclose(out);
    return put == 1 ? 0 : 1;
}
