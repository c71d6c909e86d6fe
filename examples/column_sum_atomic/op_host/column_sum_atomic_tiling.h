// Tiling data for ColumnSumAtomic: rows of x[M, N] are dealt out to cores (the first extraRows take one more);
// each core walks the columns in colTile-wide strips and its rows in rowTile-row blocks.
#ifndef COLUMN_SUM_ATOMIC_TILING_H
#define COLUMN_SUM_ATOMIC_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ColumnSumAtomicTilingData)
TILING_DATA_FIELD_DEF(uint32_t, colNum);
TILING_DATA_FIELD_DEF(uint32_t, baseRowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, extraRows);
TILING_DATA_FIELD_DEF(uint32_t, colTile);
TILING_DATA_FIELD_DEF(uint32_t, rowTile);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ColumnSumAtomic, ColumnSumAtomicTilingData)
} // namespace optiling
#endif // COLUMN_SUM_ATOMIC_TILING_H
