// Tiling data of the tile-count add: the whole length and how many tiles each core cuts its share into.
#ifndef TILE_COUNT_ADD_TILING_H
#define TILE_COUNT_ADD_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TileCountAddTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileNum);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddCustom, TileCountAddTilingData)
} // namespace optiling
#endif
