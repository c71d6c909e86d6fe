// CompareSelect tiling data: z = (x > y) ? x : y. Same chunking as AddCustom, but tileLength is a multiple of
// 256 bytes because the count form of Compare works on whole 256-byte repeats.
#ifndef COMPARE_SELECT_TILING_H
#define COMPARE_SELECT_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(CompareSelectTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, lastBlockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(CompareSelect, CompareSelectTilingData)
} // namespace optiling
#endif // COMPARE_SELECT_TILING_H
