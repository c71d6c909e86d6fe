// CopyRepeat tiling data: the matrix shape, the tile each DataCopyPad moves, and the column slices and passes per
// slice (see ../../copy_repeat.h).
#ifndef COPY_REPEAT_TILING_H
#define COPY_REPEAT_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(CopyRepeatTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, tileM);
TILING_DATA_FIELD_DEF(uint32_t, tileN);
TILING_DATA_FIELD_DEF(uint32_t, slices);
TILING_DATA_FIELD_DEF(uint32_t, repeats);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(CopyRepeat, CopyRepeatTilingData)
} // namespace optiling
#endif // COPY_REPEAT_TILING_H
