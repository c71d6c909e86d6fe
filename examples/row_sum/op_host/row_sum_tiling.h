// RowSum tiling data: x viewed as [rowNum, colNum] (colNum <= 64 floats, a multiple of 8). Rows are dealt to cores
// in groups of 8 (so every core's first output lands on a 32-byte boundary); the first formerNum cores take one
// group more. A core reduces rowsPerTile rows per tile.
#ifndef ROW_SUM_TILING_H
#define ROW_SUM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RowSumTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rowNum);
TILING_DATA_FIELD_DEF(uint32_t, colNum);
TILING_DATA_FIELD_DEF(uint32_t, formerNum);
TILING_DATA_FIELD_DEF(uint32_t, smallRows);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RowSum, RowSumTilingData)
} // namespace optiling
#endif // ROW_SUM_TILING_H
