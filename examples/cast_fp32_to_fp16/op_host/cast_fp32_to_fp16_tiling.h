// CastFp32ToFp16 tiling data: y = half(x). Per-core chunks are multiples of 16 elements so that both the fp32
// input (64 B) and the fp16 output (32 B) of every full chunk are block-aligned.
#ifndef CAST_FP32_TO_FP16_TILING_H
#define CAST_FP32_TO_FP16_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(CastFp32ToFp16TilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, lastBlockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(CastFp32ToFp16, CastFp32ToFp16TilingData)
} // namespace optiling
#endif // CAST_FP32_TO_FP16_TILING_H
