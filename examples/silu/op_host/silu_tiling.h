// Tiling data for Silu: the flat tensor is counted in 32-byte blocks, which are dealt out to cores (the first
// extraBlocks cores take one more); each core streams its slice in tiles of tileLength elements.
#ifndef SILU_TILING_H
#define SILU_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SiluTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, baseBlocksPerCore);
TILING_DATA_FIELD_DEF(uint32_t, extraBlocks);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(Silu, SiluTilingData)
} // namespace optiling
#endif // SILU_TILING_H
