// CopyRepeat kernel: the repeated band copy of ../../copy_repeat.h with the tile, slices and passes of the tiling.
#include "copy_repeat.h"

extern "C" __global__ __aicore__ void copy_repeat(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    CopyRepeat op;
    op.Init(x, y, tilingData.rows, tilingData.cols, tilingData.tileM, tilingData.tileN, tilingData.slices,
            tilingData.repeats);
    op.Process();
}
