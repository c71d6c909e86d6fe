// CopyTile tiling data: the matrix shape and the tile each DataCopyPad moves (see ../../copy_band.h).
#ifndef COPY_TILE_TILING_H
#define COPY_TILE_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(CopyTileTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, tileM);
TILING_DATA_FIELD_DEF(uint32_t, tileN);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(CopyTile, CopyTileTilingData)
} // namespace optiling
#endif // COPY_TILE_TILING_H
