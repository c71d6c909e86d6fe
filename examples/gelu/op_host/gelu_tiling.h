// Tiling data for Gelu: the flat tensor is split into one 32-byte aligned slice per core
// (blockLength elements, the last core takes what is left) and each slice is streamed in tiles.
#ifndef GELU_TILING_H
#define GELU_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(GeluTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(Gelu, GeluTilingData)
} // namespace optiling
#endif // GELU_TILING_H
