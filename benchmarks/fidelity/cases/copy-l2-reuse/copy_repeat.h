// The copy-in-only kernel both sides of this case run (op_kernel/copy_repeat.cpp includes it), written for tilewise's
// fidelity suite from the published description in ../case.toml. Each core owns a band of rows / blockDim rows of a
// half [rows, cols] ND matrix and reads it several times into one fixed UB tile, [tileM, tileN] tiles, one
// DataCopyPad per tile. The columns are cut into `slices` equal slices taken one after the other, and each slice is
// read `repeats` times in a row (row tiles outer, column tiles inner) before the next: with one slice every pass
// covers the whole matrix (302 MB at the published size, more than the 192 MB L2), with four slices each is 75.5 MB
// and its later passes can hit in L2. Same bytes, same number of copies; only the order of the passes differs.
// The harness needs an output to check, so each core finally writes the first CHECK_ELEMS elements of the last tile
// it read to its own row of y: one 128-byte copy per core.
#ifndef FIDELITY_COPY_REPEAT_H
#define FIDELITY_COPY_REPEAT_H

#include "kernel_operator.h"

constexpr uint32_t CHECK_ELEMS = 64;  // y is [blockDim, CHECK_ELEMS]

class CopyRepeat {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols, uint32_t tileM, uint32_t tileN,
                                uint32_t slices, uint32_t repeats)
    {
        this->cols = cols;
        this->tileM = tileM;
        this->tileN = tileN;
        this->slices = slices;
        this->repeats = repeats;
        bandRows = rows / AscendC::GetBlockNum();
        xGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x), static_cast<uint64_t>(rows) * cols);
        yGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(y) + AscendC::GetBlockIdx() * CHECK_ELEMS, CHECK_ELEMS);
        pipe.InitBuffer(tileBuf, tileM * tileN * sizeof(half));
    }

    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<half> tile = tileBuf.Get<half>();
        const uint64_t firstRow = static_cast<uint64_t>(AscendC::GetBlockIdx()) * bandRows;
        const uint32_t sliceCols = cols / slices;
        AscendC::DataCopyParams params{static_cast<uint16_t>(tileM), static_cast<uint16_t>(tileN * sizeof(half)),
                                       static_cast<uint16_t>((cols - tileN) * sizeof(half)), 0};
        AscendC::DataCopyPadParams pad{false, 0, 0, 0};
        // Every copy lands on the same UB tile: MTE2 runs its copies in order and nothing reads the tile in
        // between, so nothing needs to wait until the check copy below.
        for (uint32_t s = 0; s < slices; s++) {
            const uint32_t firstCol = s * sliceCols;
            for (uint32_t r = 0; r < repeats; r++) {
                for (uint32_t m = 0; m < bandRows; m += tileM) {
                    for (uint32_t n = 0; n < sliceCols; n += tileN) {
                        AscendC::DataCopyPad(tile, xGm[(firstRow + m) * cols + firstCol + n], params, pad);
                    }
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
    uint32_t cols = 0;
    uint32_t bandRows = 0;
    uint32_t tileM = 0;
    uint32_t tileN = 0;
    uint32_t slices = 1;
    uint32_t repeats = 1;
};

#endif
