// Tiling data for RmsNorm: rows of x[M, N] are dealt out to cores (the first extraRows cores take one more);
// the column chunking is a kernel constant (COL_TILE), so only the row split and the scalars travel here.
#ifndef RMS_NORM_TILING_H
#define RMS_NORM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RmsNormTilingData)
TILING_DATA_FIELD_DEF(uint32_t, colNum);
TILING_DATA_FIELD_DEF(uint32_t, baseRowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, extraRows);
TILING_DATA_FIELD_DEF(float, avgFactor);
TILING_DATA_FIELD_DEF(float, epsilon);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RmsNorm, RmsNormTilingData)
} // namespace optiling
#endif // RMS_NORM_TILING_H
