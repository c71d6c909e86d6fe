// AddTiles kernel: z = x + y on half [rows, cols], single buffer, static tensor programming: x, y and z live at
// fixed UB byte addresses (no TPipe) and the pipes are ordered by hand with SetFlag/WaitFlag. The rows are split
// evenly over the cores (the first rows % cores cores take one extra row), so each core owns one contiguous range
// of GM and walks it in tiles of DATA_COPY_LEN elements: copy x and y in, add, copy z out.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t DATA_COPY_LEN = 4096;
constexpr bool SCALAR_ADD = false;  // true: element by element with GetValue/SetValue instead of one Add per tile

// Each buffer is sized for the largest tile of the series (16384 half = 32 KB), so x, y and z sit 32 KB apart
// whatever DATA_COPY_LEN is, as in the published layout.
constexpr uint32_t SLOT_ELEMS = 16384;
constexpr uint32_t X_ADDR = 0;
constexpr uint32_t Y_ADDR = SLOT_ELEMS * sizeof(half);
constexpr uint32_t Z_ADDR = 2 * SLOT_ELEMS * sizeof(half);

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
    }

    __aicore__ inline void Process()
    {
        LocalTensor<half> xUb(TPosition::VECCALC, X_ADDR, SLOT_ELEMS);
        LocalTensor<half> yUb(TPosition::VECCALC, Y_ADDR, SLOT_ELEMS);
        LocalTensor<half> zUb(TPosition::VECCALC, Z_ADDR, SLOT_ELEMS);
        uint64_t tiles = (count + DATA_COPY_LEN - 1) / DATA_COPY_LEN;
        for (uint64_t t = 0; t < tiles; t++) {
            uint64_t at = t * DATA_COPY_LEN;
            uint32_t len = count - at < DATA_COPY_LEN ? static_cast<uint32_t>(count - at) : DATA_COPY_LEN;
            bool first = t == 0;
            bool last = t + 1 == tiles;
            // x and y may be overwritten only once the previous tile's compute has read them.
            if (!first) WaitFlag<HardEvent::V_MTE2>(EVENT_ID0);
            DataCopy(xUb, xGm[at], len);
            DataCopy(yUb, yGm[at], len);
            SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
            WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
            // z may be rewritten only once the previous tile's copy-out has read it.
            if (!first) WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
            if constexpr (SCALAR_ADD) {
                for (uint32_t i = 0; i < len; i++) {
                    float sum = static_cast<float>(xUb.GetValue(i)) + static_cast<float>(yUb.GetValue(i));
                    zUb.SetValue(i, static_cast<half>(sum));
                }
            } else {
                Add(zUb, xUb, yUb, len);
            }
            if (!last) SetFlag<HardEvent::V_MTE2>(EVENT_ID0);
            SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
            WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
            DataCopy(zGm[at], zUb, len);
            if (!last) SetFlag<HardEvent::MTE3_V>(EVENT_ID0);
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
