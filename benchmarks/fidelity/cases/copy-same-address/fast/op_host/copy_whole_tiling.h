// CopyWhole tiling data: the matrix shape, the tile each DataCopyPad moves and the walk (see ../../copy_whole.h).
#ifndef COPY_WHOLE_TILING_H
#define COPY_WHOLE_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(CopyWholeTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, tileM);
TILING_DATA_FIELD_DEF(uint32_t, tileN);
TILING_DATA_FIELD_DEF(uint32_t, staggered);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(CopyWhole, CopyWholeTilingData)
} // namespace optiling
#endif // COPY_WHOLE_TILING_H
