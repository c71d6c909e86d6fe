// Tiling data for ScaleShift: x is [rows, cols]; the rows are dealt out to cores (the first extraRows cores take one
// more), and each core streams its rows one at a time.
#ifndef SCALE_SHIFT_TILING_H
#define SCALE_SHIFT_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleShiftTilingData)
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, baseRowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, extraRows);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ScaleShift, ScaleShiftTilingData)
} // namespace optiling
#endif // SCALE_SHIFT_TILING_H
