// Tiling data for ReduceSumAll: one 32-byte aligned slice of the flat input per core, streamed in tiles.
#ifndef REDUCE_SUM_ALL_TILING_H
#define REDUCE_SUM_ALL_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ReduceSumAllTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ReduceSumAll, ReduceSumAllTilingData)
} // namespace optiling
#endif // REDUCE_SUM_ALL_TILING_H
