// AddTiles kernel, double buffered: z = x + y on half [rows, cols], static tensor programming. Two sets of x, y and
// z buffers (ping and pong) sit at fixed UB byte addresses (no TPipe); tile t uses set t % 2 and event id t % 2, so
// the copy-in of tile t + 1 can run while tile t is copied out. The rows are split evenly over the cores (the first
// rows % cores cores take one extra row) and each core walks its contiguous range in tiles of DATA_COPY_LEN.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t DATA_COPY_LEN = 16256;
constexpr bool L2_BYPASS = true;  // true: x and y are read once, so they are read around the L2 cache

// UB layout in three 64 KB regions: x and y ping, x and y pong, z ping and pong. Inside a region the second buffer
// starts DATA_COPY_LEN half (32512 B = 32 KB - 256 B) after the first, so the x and y one Add reads start 256 B apart
// instead of 32 KB apart and fall in different UB bank groups (and z ping / pong likewise).
constexpr uint32_t SLOT_ELEMS = 16384;
constexpr uint32_t SLOT_BYTES = SLOT_ELEMS * sizeof(half);
constexpr uint32_t STEP_BYTES = DATA_COPY_LEN * sizeof(half);
constexpr uint32_t X_ADDR[2] = {0, 2 * SLOT_BYTES};
constexpr uint32_t Y_ADDR[2] = {STEP_BYTES, 2 * SLOT_BYTES + STEP_BYTES};
constexpr uint32_t Z_ADDR[2] = {4 * SLOT_BYTES, 4 * SLOT_BYTES + STEP_BYTES};

class AddTilesKernel {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t rows, uint32_t cols)
    {
        uint32_t core = GetBlockIdx();
        uint32_t cores = GetBlockNum();
        uint32_t base = rows / cores;
        uint32_t extra = rows % cores;
        uint32_t myRows = base + (core < extra ? 1 : 0);
        uint32_t firstRow = core * base + (core < extra ? core : extra);
        count = static_cast<uint64_t>(myRows) * cols;
        uint64_t offset = static_cast<uint64_t>(firstRow) * cols;
        xGm.SetGlobalBuffer((__gm__ half*)x + offset, count);
        yGm.SetGlobalBuffer((__gm__ half*)y + offset, count);
        zGm.SetGlobalBuffer((__gm__ half*)z + offset, count);
        if constexpr (L2_BYPASS) {
            xGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
            yGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
        }
    }

    __aicore__ inline void Process()
    {
        LocalTensor<half> xUb[2] = {LocalTensor<half>(TPosition::VECCALC, X_ADDR[0], DATA_COPY_LEN),
                                    LocalTensor<half>(TPosition::VECCALC, X_ADDR[1], DATA_COPY_LEN)};
        LocalTensor<half> yUb[2] = {LocalTensor<half>(TPosition::VECCALC, Y_ADDR[0], DATA_COPY_LEN),
                                    LocalTensor<half>(TPosition::VECCALC, Y_ADDR[1], DATA_COPY_LEN)};
        LocalTensor<half> zUb[2] = {LocalTensor<half>(TPosition::VECCALC, Z_ADDR[0], DATA_COPY_LEN),
                                    LocalTensor<half>(TPosition::VECCALC, Z_ADDR[1], DATA_COPY_LEN)};
        // Both sets start free: their first WaitFlag in the loop finds the flag already set.
        for (int32_t ev : {EVENT_ID0, EVENT_ID1}) {
            SetFlag<HardEvent::V_MTE2>(ev);
            SetFlag<HardEvent::MTE3_V>(ev);
        }
        uint64_t tiles = (count + DATA_COPY_LEN - 1) / DATA_COPY_LEN;
        for (uint64_t t = 0; t < tiles; t++) {
            uint64_t at = t * DATA_COPY_LEN;
            uint32_t len = count - at < DATA_COPY_LEN ? static_cast<uint32_t>(count - at) : DATA_COPY_LEN;
            uint32_t set = static_cast<uint32_t>(t & 1);
            int32_t ev = set == 0 ? EVENT_ID0 : EVENT_ID1;
            // this set's x and y were read by its previous Add
            WaitFlag<HardEvent::V_MTE2>(ev);
            DataCopy(xUb[set], xGm[at], len);
            DataCopy(yUb[set], yGm[at], len);
            SetFlag<HardEvent::MTE2_V>(ev);
            WaitFlag<HardEvent::MTE2_V>(ev);
            // this set's z was read by its previous copy-out
            WaitFlag<HardEvent::MTE3_V>(ev);
            Add(zUb[set], xUb[set], yUb[set], len);
            SetFlag<HardEvent::V_MTE2>(ev);
            SetFlag<HardEvent::V_MTE3>(ev);
            WaitFlag<HardEvent::V_MTE3>(ev);
            DataCopy(zGm[at], zUb[set], len);
            SetFlag<HardEvent::MTE3_V>(ev);
        }
        // Consume the flags the last tiles of each set left behind.
        for (int32_t ev : {EVENT_ID0, EVENT_ID1}) {
            WaitFlag<HardEvent::V_MTE2>(ev);
            WaitFlag<HardEvent::MTE3_V>(ev);
        }
    }

private:
    GlobalTensor<half> xGm;
    GlobalTensor<half> yGm;
    GlobalTensor<half> zGm;
    uint64_t count = 0;
};

extern "C" __global__ __aicore__ void add_tiles(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    AddTilesKernel op;
    op.Init(x, y, z, tilingData.rows, tilingData.cols);
    op.Process();
    PipeBarrier<PIPE_ALL>();
}
