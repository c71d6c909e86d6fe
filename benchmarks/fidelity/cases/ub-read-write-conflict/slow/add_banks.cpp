// Fidelity case A14 (UB bank conflicts), slow side: z = x + y on 4096 floats with the three operands placed at
// fixed UB byte addresses (static tensor programming, no TPipe): src0 0x0, src1 0x10100, dst 0x4020.
// Published scenario 5: dst one block further (0x4020), which the source labels a read-write conflict with src0.
// One Add covers the 4096 floats (mask 64, 64 repeats, block stride 1, repeat stride 8) and runs ADD_RUNS times in a
// row, as in the published microbenchmark; x and y are copied in once before and z out once after.
// main() reads input_x.bin and input_y.bin (4096 raw float32 each), launches add_banks on one core and writes
// output_z.bin.
#include <cstdint>
#include <cstdio>
#include <vector>
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t LENGTH = 4096;
constexpr uint32_t ADD_RUNS = 1000;
constexpr uint32_t SRC0_ADDR = 0x0;
constexpr uint32_t SRC1_ADDR = 0x10100;
constexpr uint32_t DST_ADDR = 0x4020;

extern "C" __global__ __aicore__ void add_banks(GM_ADDR x, GM_ADDR y, GM_ADDR z)
{
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    GlobalTensor<float> zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, LENGTH);
    yGm.SetGlobalBuffer((__gm__ float*)y, LENGTH);
    zGm.SetGlobalBuffer((__gm__ float*)z, LENGTH);
    LocalTensor<float> xLocal(TPosition::VECCALC, SRC0_ADDR, LENGTH);
    LocalTensor<float> yLocal(TPosition::VECCALC, SRC1_ADDR, LENGTH);
    LocalTensor<float> zLocal(TPosition::VECCALC, DST_ADDR, LENGTH);

    DataCopy(xLocal, xGm, LENGTH);
    DataCopy(yLocal, yGm, LENGTH);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);

    constexpr uint32_t perRepeat = 256 / sizeof(float);
    constexpr uint8_t repeats = LENGTH / perRepeat;
    PipeBarrier<PIPE_ALL>();
    for (uint32_t run = 0; run < ADD_RUNS; ++run) {
        // dst, src0, src1 block strides 1; repeat strides 8 blocks: contiguous operands
        Add(zLocal, xLocal, yLocal, perRepeat, repeats, {1, 1, 1, 8, 8, 8});
    }
    PipeBarrier<PIPE_ALL>();

    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(zGm, zLocal, LENGTH);
}

// ---------------------------------------------------------------------------------------------------------------
// Host side.

static bool ReadInput(const char* path, std::vector<float>& data)
{
    FILE* in = std::fopen(path, "rb");
    if (in == nullptr) {
        std::fprintf(stderr, "cannot open %s\n", path);
        return false;
    }
    size_t got = std::fread(data.data(), sizeof(float), data.size(), in);
    std::fclose(in);
    if (got != data.size()) {
        std::fprintf(stderr, "%s holds %zu floats; this case adds exactly %zu\n", path, got, data.size());
        return false;
    }
    return true;
}

int main()
{
    std::vector<float> xHost(LENGTH);
    std::vector<float> yHost(LENGTH);
    if (!ReadInput("input_x.bin", xHost) || !ReadInput("input_y.bin", yHost)) {
        return 1;
    }
    std::vector<float> zHost(LENGTH, 0.0f);
    add_banks<<<1, nullptr, nullptr>>>(reinterpret_cast<GM_ADDR>(xHost.data()), reinterpret_cast<GM_ADDR>(yHost.data()),
                                       reinterpret_cast<GM_ADDR>(zHost.data()));
    FILE* out = std::fopen("output_z.bin", "wb");
    if (out == nullptr) {
        std::fprintf(stderr, "cannot create output_z.bin\n");
        return 1;
    }
    size_t put = std::fwrite(zHost.data(), sizeof(float), LENGTH, out);
    std::fclose(out);
    return put == LENGTH ? 0 : 1;
}
