// LeakyRelu tiling data: y = x >= 0 ? x : negativeSlope * x, flat chunks per core, tiles of tileLength.
#ifndef LEAKY_RELU_TILING_H
#define LEAKY_RELU_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(LeakyReluTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, lastBlockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(float, negativeSlope);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(LeakyRelu, LeakyReluTilingData)
} // namespace optiling
#endif // LEAKY_RELU_TILING_H
