// Fidelity case A12, fast side: the sum of 256 floats by one BlockReduceSum (256 -> 32 block sums) and one
// WholeReduceSum (32 -> 1), in counter mode with a PipeBarrier<PIPE_V> after each instruction. The reduction runs
// LOOPS times on the same UB data, because the published figure is the total of 100 such loops; the input is
// copied in once and the result out once, outside the loop.
// main() reads input_x.bin (256 raw float32), launches reduce256 on one core and writes output_z.bin (8 floats:
// the sum, then zeros, so the copy-out is one whole 32-byte block).
#include <cstdint>
#include <cstdio>
#include <vector>
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t LENGTH = 256;         // floats reduced
constexpr uint32_t LOOPS = 100;          // the published time is the total of 100 loops
constexpr uint32_t BLOCK_FLOATS = 8;     // one 32-byte block of float
constexpr uint32_t BLOCKS = LENGTH / BLOCK_FLOATS;

extern "C" __global__ __aicore__ void reduce256(GM_ADDR x, GM_ADDR z)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    TBuf<TPosition::VECCALC> partials;
    GlobalTensor<float> xGm;
    GlobalTensor<float> zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, LENGTH);
    zGm.SetGlobalBuffer((__gm__ float*)z, BLOCK_FLOATS);
    pipe.InitBuffer(inQueue, 1, LENGTH * sizeof(float));
    pipe.InitBuffer(outQueue, 1, BLOCK_FLOATS * sizeof(float));
    pipe.InitBuffer(partials, BLOCKS * sizeof(float));

    LocalTensor<float> xIn = inQueue.AllocTensor<float>();
    DataCopy(xIn, xGm, LENGTH);
    inQueue.EnQue(xIn);
    LocalTensor<float> xLocal = inQueue.DeQue<float>();
    LocalTensor<float> zLocal = outQueue.AllocTensor<float>();
    LocalTensor<float> blockSums = partials.Get<float>();
    Duplicate(zLocal, 0.0f, BLOCK_FLOATS);  // the lanes after the sum go out as zeros
    PipeBarrier<PIPE_V>();

    for (uint32_t loop = 0; loop < LOOPS; ++loop) {
        SetMaskCount();
        // 256 floats -> 32 block sums (dst repeat stride 1 = consecutive groups of 8 results)
        SetVectorMask<float, MaskMode::COUNTER>(0, LENGTH);
        BlockReduceSum<float, false>(blockSums, xLocal, 1, MASK_PLACEHOLDER, 1, 1, 8);
        PipeBarrier<PIPE_V>();
        // 32 block sums -> 1
        SetVectorMask<float, MaskMode::COUNTER>(0, BLOCKS);
        WholeReduceSum<float, false>(zLocal, blockSums, MASK_PLACEHOLDER, 1, 1, 1, 8);
        PipeBarrier<PIPE_V>();
        SetMaskNorm();
    }

    outQueue.EnQue<float>(zLocal);
    inQueue.FreeTensor(xLocal);
    LocalTensor<float> zOut = outQueue.DeQue<float>();
    DataCopy(zGm, zOut, BLOCK_FLOATS);
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
    std::vector<float> zHost(BLOCK_FLOATS, 0.0f);
    reduce256<<<1, nullptr, nullptr>>>(reinterpret_cast<GM_ADDR>(xHost.data()),
                                       reinterpret_cast<GM_ADDR>(zHost.data()));
    FILE* out = std::fopen("output_z.bin", "wb");
    if (out == nullptr) {
        std::fprintf(stderr, "cannot create output_z.bin\n");
        return 1;
    }
    size_t put = std::fwrite(zHost.data(), sizeof(float), BLOCK_FLOATS, out);
    std::fclose(out);
    return put == BLOCK_FLOATS ? 0 : 1;
}
