// Fidelity case A11 (UB bank-group write conflict), slow side: a half [M, 8192] ND matrix to the compact NZ layout
// ([8192 / 16, M, 16]: column block c of row r at ((c * M) + r) * 16) on 48 cores, 6 row splits x 8 column splits.
// Each core walks its 144 x 128 tiles with ping/pong buffers at fixed UB addresses [ndPing | ndPong | nzPing |
// nzPong]: MTE2 brings a tile in (144 rows of 128 halves), one vector Copy scatters it (mask 128, one repeat a row,
// the row's 8 blocks DST_C0_STRIDE blocks apart, so each lands in its column block), MTE3 writes the 8 column blocks
// out.
// Slow: DST_C0_STRIDE = 144, a multiple of 16, so the 8 blocks one repeat writes all fall in one UB bank group.
// main() reads input_x.bin (M x 8192 raw float16, any M), launches nd2nz on 48 cores and writes output_z.bin.
#include <cstdint>
#include <cstdio>
#include <vector>
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t COLS = 8192;          // N, the row length (the published matrix is 8192 x 8192)
constexpr uint32_t TILE_H = 144;         // rows of a tile
constexpr uint32_t TILE_W = 128;         // halves of a tile row: 8 column blocks of 16
constexpr uint32_t C0 = 16;              // halves in one 32-byte block
constexpr uint32_t TILE_C0_COLS = TILE_W / C0;
constexpr uint32_t ROW_SPLITS = 6;
constexpr uint32_t COL_SPLITS = 8;
constexpr uint32_t BLOCKS = ROW_SPLITS * COL_SPLITS;
constexpr uint32_t DST_C0_STRIDE = TILE_H;  // blocks between the starts of two column blocks in the NZ buffer
constexpr uint32_t ND_ELEMS = TILE_H * TILE_W;
constexpr uint32_t NZ_ELEMS = DST_C0_STRIDE * TILE_C0_COLS * C0;
constexpr uint32_t ND_BYTES = ND_ELEMS * sizeof(half);
constexpr uint32_t NZ_BYTES = NZ_ELEMS * sizeof(half);

extern "C" __global__ __aicore__ void nd2nz(GM_ADDR x, GM_ADDR z, uint32_t rows)
{
    GlobalTensor<half> xGm;
    GlobalTensor<half> zGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, static_cast<uint64_t>(rows) * COLS);
    zGm.SetGlobalBuffer((__gm__ half*)z, static_cast<uint64_t>(rows) * COLS);
    LocalTensor<half> ndPing(TPosition::VECIN, 0, ND_ELEMS);
    LocalTensor<half> ndPong(TPosition::VECIN, ND_BYTES, ND_ELEMS);
    LocalTensor<half> nzPing(TPosition::VECOUT, 2 * ND_BYTES, NZ_ELEMS);
    LocalTensor<half> nzPong(TPosition::VECOUT, 2 * ND_BYTES + NZ_BYTES, NZ_ELEMS);

    // this core's share: a run of row tiles (the first rowTiles % 6 splits take one more) x 8 column tiles
    const uint32_t block = GetBlockIdx();
    const uint32_t rowSplit = block / COL_SPLITS;
    const uint32_t colSplit = block % COL_SPLITS;
    const uint32_t rowTiles = (rows + TILE_H - 1) / TILE_H;
    const uint32_t baseRowTiles = rowTiles / ROW_SPLITS;
    const uint32_t extraRowTiles = rowTiles % ROW_SPLITS;
    const uint32_t rowTileBegin = rowSplit * baseRowTiles + (rowSplit < extraRowTiles ? rowSplit : extraRowTiles);
    const uint32_t myRowTiles = baseRowTiles + (rowSplit < extraRowTiles ? 1 : 0);
    const uint32_t colTilesPerSplit = COLS / TILE_W / COL_SPLITS;
    const uint32_t tiles = myRowTiles * colTilesPerSplit;

    // both buffer sets start free: their "vector done with it" and "MTE3 done with it" events are pre-set
    SetFlag<HardEvent::V_MTE2>(EVENT_ID0);
    SetFlag<HardEvent::V_MTE2>(EVENT_ID1);
    SetFlag<HardEvent::MTE3_V>(EVENT_ID0);
    SetFlag<HardEvent::MTE3_V>(EVENT_ID1);
    for (uint32_t i = 0; i < tiles; ++i) {
        const bool ping = (i % 2) == 0;
        const event_t ev = ping ? EVENT_ID0 : EVENT_ID1;
        LocalTensor<half>& nd = ping ? ndPing : ndPong;
        LocalTensor<half>& nz = ping ? nzPing : nzPong;
        const uint32_t tileRow0 = (rowTileBegin + i / colTilesPerSplit) * TILE_H;
        const uint32_t tileCol0 = (colSplit * colTilesPerSplit + i % colTilesPerSplit) * TILE_W;
        const uint32_t h = (rows - tileRow0) < TILE_H ? (rows - tileRow0) : TILE_H;

        WaitFlag<HardEvent::V_MTE2>(ev);
        DataCopyParams in(static_cast<uint16_t>(h), TILE_W / C0, (COLS - TILE_W) / C0, 0);
        DataCopy(nd, xGm[static_cast<uint64_t>(tileRow0) * COLS + tileCol0], in);
        SetFlag<HardEvent::MTE2_V>(ev);
        WaitFlag<HardEvent::MTE2_V>(ev);
        WaitFlag<HardEvent::MTE3_V>(ev);

        // one repeat per row: the row's 8 source blocks are contiguous (srcStride 1), rows 8 blocks apart; the
        // destination blocks are DST_C0_STRIDE apart (one per column block), rows 1 block apart
        CopyRepeatParams scatter(DST_C0_STRIDE, 1, 1, TILE_W / C0);
        Copy(nz, nd, static_cast<uint64_t>(TILE_W), static_cast<uint8_t>(h), scatter);

        SetFlag<HardEvent::V_MTE2>(ev);
        SetFlag<HardEvent::V_MTE3>(ev);
        WaitFlag<HardEvent::V_MTE3>(ev);
        const uint64_t dstBlock = tileRow0 + static_cast<uint64_t>(tileCol0 / C0) * rows;
        DataCopyParams out(TILE_C0_COLS, static_cast<uint16_t>(h), static_cast<uint16_t>(DST_C0_STRIDE - h),
                           static_cast<uint16_t>(rows - h));
        DataCopy(zGm[dstBlock * C0], nz, out);
        SetFlag<HardEvent::MTE3_V>(ev);
    }
    WaitFlag<HardEvent::V_MTE2>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE2>(EVENT_ID1);
    WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE3_V>(EVENT_ID1);
}

// ---------------------------------------------------------------------------------------------------------------
// Host side.

int main()
{
    FILE* in = std::fopen("input_x.bin", "rb");
    if (in == nullptr) {
        std::fprintf(stderr, "cannot open input_x.bin\n");
        return 1;
    }
    std::fseek(in, 0, SEEK_END);
    long bytes = std::ftell(in);
    std::fseek(in, 0, SEEK_SET);
    const long rowBytes = static_cast<long>(COLS * sizeof(uint16_t));
    if (bytes <= 0 || bytes % rowBytes != 0 || bytes / rowBytes > 65535) {
        std::fprintf(stderr, "input_x.bin: %ld bytes is not a whole number of 8192-half rows (at most 65535)\n", bytes);
        std::fclose(in);
        return 1;
    }
    const uint32_t rows = static_cast<uint32_t>(bytes / rowBytes);
    std::vector<uint16_t> xHost(static_cast<size_t>(rows) * COLS);
    size_t got = std::fread(xHost.data(), sizeof(uint16_t), xHost.size(), in);
    std::fclose(in);
    if (got != xHost.size()) {
        return 1;
    }
    std::vector<uint16_t> zHost(xHost.size(), 0);
    GM_ADDR x = reinterpret_cast<GM_ADDR>(xHost.data());
    GM_ADDR z = reinterpret_cast<GM_ADDR>(zHost.data());
    nd2nz<<<BLOCKS, nullptr, nullptr>>>(x, z, rows);
    FILE* out = std::fopen("output_z.bin", "wb");
    if (out == nullptr) {
        std::fprintf(stderr, "cannot create output_z.bin\n");
        return 1;
    }
    size_t put = std::fwrite(zHost.data(), sizeof(uint16_t), zHost.size(), out);
    std::fclose(out);
    return put == zHost.size() ? 0 : 1;
}
