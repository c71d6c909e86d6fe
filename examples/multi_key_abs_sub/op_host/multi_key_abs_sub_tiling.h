// Tiling data for MultiKeyAbsSub: the flat tensors are cut into tileNum tiles of tileLength elements (the last one
// lastTileLength long), dealt out to cores in contiguous runs (the first extraTiles cores take one more).
#ifndef MULTI_KEY_ABS_SUB_TILING_H
#define MULTI_KEY_ABS_SUB_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MultiKeyAbsSubTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(uint32_t, tileNum);
TILING_DATA_FIELD_DEF(uint32_t, baseTilesPerCore);
TILING_DATA_FIELD_DEF(uint32_t, extraTiles);
TILING_DATA_FIELD_DEF(uint32_t, lastTileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MultiKeyAbsSub, MultiKeyAbsSubTilingData)
} // namespace optiling
#endif // MULTI_KEY_ABS_SUB_TILING_H
