// The copy-in-only kernel both sides of this case run (op_kernel/copy_tile.cpp includes it), written for tilewise's
// fidelity suite from the published description in ../case.toml. Each core owns a band of bandRows consecutive rows
// of a half [rows, cols] ND matrix and reads it into one fixed UB tile, tile by tile (row tiles outer, column tiles
// inner), with one DataCopyPad per tile: blockCount = tileM rows of curCols * 2 bytes, the GM gap between rows
// (cols - curCols) * 2 bytes, UB rows back to back. curCols is tileN except for a narrower last column tile when
// tileN does not divide cols. Nothing is computed and no tile is written back, as in the measured sample.
// The harness needs an output to check, so each core finally writes the first CHECK_ELEMS elements of the last tile
// it read to its own row of y: one 128-byte copy per core, next to bandRows * cols * 2 bytes read.
#ifndef FIDELITY_COPY_BAND_H
#define FIDELITY_COPY_BAND_H

#include "kernel_operator.h"

constexpr uint32_t CHECK_ELEMS = 64;  // y is [blockDim, CHECK_ELEMS]

class CopyBand {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols, uint32_t tileM, uint32_t tileN)
    {
        this->cols = cols;
        this->tileM = tileM;
        this->tileN = tileN;
        bandRows = rows / AscendC::GetBlockNum();
        xGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x), static_cast<uint64_t>(rows) * cols);
        yGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(y) + AscendC::GetBlockIdx() * CHECK_ELEMS, CHECK_ELEMS);
        // One tile of UB, rows rounded up to 32 bytes as DataCopyPad lays them out.
        uint32_t rowBytes = (tileN * sizeof(half) + 31) / 32 * 32;
        pipe.InitBuffer(tileBuf, tileM * rowBytes);
    }

    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<half> tile = tileBuf.Get<half>();
        const uint64_t firstRow = static_cast<uint64_t>(AscendC::GetBlockIdx()) * bandRows;
        AscendC::DataCopyParams params;
        params.blockCount = static_cast<uint16_t>(tileM);
        params.dstStride = 0;
        AscendC::DataCopyPadParams pad{false, 0, 0, 0};
        // Every copy lands on the same UB tile: MTE2 runs its copies in order and nothing reads the tile in
        // between, so nothing needs to wait until the check copy below.
        for (uint32_t m = 0; m < bandRows; m += tileM) {
            for (uint32_t n = 0; n < cols; n += tileN) {
                uint32_t curCols = n + tileN > cols ? cols - n : tileN;
                params.blockLen = static_cast<uint16_t>(curCols * sizeof(half));
                params.srcStride = static_cast<uint16_t>((cols - curCols) * sizeof(half));
                AscendC::DataCopyPad(tile, xGm[(firstRow + m) * cols + n], params, pad);
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
};

#endif
