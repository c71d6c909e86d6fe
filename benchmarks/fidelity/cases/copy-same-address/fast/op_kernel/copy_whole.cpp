// CopyWhole kernel: the whole-matrix walk of ../../copy_whole.h with the tile and the order the host's tiling chose.
#include "copy_whole.h"

extern "C" __global__ __aicore__ void copy_whole(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    CopyWhole op;
    op.Init(x, y, tilingData.rows, tilingData.cols, tilingData.tileM, tilingData.tileN, tilingData.staggered);
    op.Process();
}
