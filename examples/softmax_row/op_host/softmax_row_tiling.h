// Tiling data for SoftmaxRow: rows of x[M, N] are dealt out to cores (the first extraRows cores take one more),
// and each core moves rowsPerTile whole rows per copy; colsAligned is the UB row pitch (N rounded up to 8 floats).
#ifndef SOFTMAX_ROW_TILING_H
#define SOFTMAX_ROW_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SoftmaxRowTilingData)
TILING_DATA_FIELD_DEF(uint32_t, colNum);
TILING_DATA_FIELD_DEF(uint32_t, colsAligned);
TILING_DATA_FIELD_DEF(uint32_t, baseRowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, extraRows);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);
TILING_DATA_FIELD_DEF(uint32_t, workLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SoftmaxRow, SoftmaxRowTilingData)
} // namespace optiling
#endif // SOFTMAX_ROW_TILING_H
