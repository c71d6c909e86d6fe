// The copy-in-only kernel both sides of this case run (op_kernel/copy_whole.cpp includes it), written for tilewise's
// fidelity suite from the published description in ../case.toml. Every core reads the WHOLE half [rows, cols] ND
// matrix into one fixed UB tile, with the GM tensor's L2 cache hint off. The matrix is cut into row blocks of
// rows / blockDim rows (one per core, as if the work were split); each core walks all the blocks, [tileM, tileN]
// tiles inside a block (row tiles outer, column tiles inner), one DataCopyPad per tile. In the same-order walk every
// core visits block 0, 1, 2, ... at the same time, so all cores request the same GM addresses together; in the
// staggered walk core b starts at block b and wraps within each group of blockDim blocks, so at any moment the
// cores read different blocks. Same bytes, same copies, only the order differs.
// The harness needs an output to check, so each core finally writes the first CHECK_ELEMS elements of the last tile
// it read (which tells the walks apart) to its own row of y: one 128-byte copy per core.
#ifndef FIDELITY_COPY_WHOLE_H
#define FIDELITY_COPY_WHOLE_H

#include "kernel_operator.h"

constexpr uint32_t CHECK_ELEMS = 64;  // y is [blockDim, CHECK_ELEMS]

class CopyWhole {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols, uint32_t tileM, uint32_t tileN,
                                uint32_t staggered)
    {
        this->rows = rows;
        this->cols = cols;
        this->tileM = tileM;
        this->tileN = tileN;
        this->staggered = staggered;
        xGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x), static_cast<uint64_t>(rows) * cols);
        // As measured: the source disabled L2 caching of the input, so the walks compete for GM, not for L2.
        xGm.SetL2CacheHint(AscendC::CacheMode::CACHE_MODE_DISABLE);
        yGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(y) + AscendC::GetBlockIdx() * CHECK_ELEMS, CHECK_ELEMS);
        pipe.InitBuffer(tileBuf, tileM * tileN * sizeof(half));
    }

    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<half> tile = tileBuf.Get<half>();
        const uint32_t cores = AscendC::GetBlockNum();
        const uint32_t core = AscendC::GetBlockIdx();
        const uint32_t blockRows = rows / cores;
        const uint32_t blocks = rows / blockRows;
        AscendC::DataCopyParams params{static_cast<uint16_t>(tileM), static_cast<uint16_t>(tileN * sizeof(half)),
                                       static_cast<uint16_t>((cols - tileN) * sizeof(half)), 0};
        AscendC::DataCopyPadParams pad{false, 0, 0, 0};
        for (uint32_t step = 0; step < blocks; step++) {
            uint32_t block = step;
            if (staggered != 0) {
                uint32_t group = step / cores * cores;
                block = group + (step + core) % cores;
            }
            const uint64_t blockRow = static_cast<uint64_t>(block) * blockRows;
            // Every copy lands on the same UB tile: MTE2 runs its copies in order and nothing reads the tile in
            // between, so nothing needs to wait until the check copy below.
            for (uint32_t m = 0; m < blockRows; m += tileM) {
                for (uint32_t n = 0; n < cols; n += tileN) {
                    AscendC::DataCopyPad(tile, xGm[(blockRow + m) * cols + n], params, pad);
                }
            }
        }
        // MTE3 reads what MTE2 wrote last.
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::DataCopy(yGm, tile, CHECK_ELEMS);
        AscendC::PipeBarrier<PIPE_ALL>();
    }

private:
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> tileBuf;
    AscendC::GlobalTensor<half> xGm;
    AscendC::GlobalTensor<half> yGm;
    uint32_t rows = 0;
    uint32_t cols = 0;
    uint32_t tileM = 0;
    uint32_t tileN = 0;
    uint32_t staggered = 0;
};

#endif
