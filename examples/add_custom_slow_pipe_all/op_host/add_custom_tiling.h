// AddCustom tiling data: z = x + y element-wise. The host splits the flat tensor over cores in 32-byte-aligned
// chunks (blockLength each, the last core gets lastBlockLength) and each core walks its chunk tile by tile.
#ifndef ADD_CUSTOM_TILING_H
#define ADD_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AddCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, lastBlockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)
} // namespace optiling
#endif // ADD_CUSTOM_TILING_H
