// CopyTile kernel: the band copy of ../../copy_band.h with the tile the host's tiling chose.
#include "copy_band.h"

extern "C" __global__ __aicore__ void copy_tile(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    CopyBand op;
    op.Init(x, y, tilingData.rows, tilingData.cols, tilingData.tileM, tilingData.tileN);
    op.Process();
}
