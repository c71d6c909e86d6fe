// AddTiles tiling data: the [rows, cols] half matrix z = x + y; the kernel splits the rows over the cores.
#ifndef ADD_TILES_TILING_H
#define ADD_TILES_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AddTilesTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddTiles, AddTilesTilingData)
} // namespace optiling
#endif // ADD_TILES_TILING_H
