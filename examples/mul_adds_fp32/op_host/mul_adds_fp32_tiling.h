// MulAddsFp32 tiling data: z = x * y + alpha (fp32). Work is counted in 32-byte blocks and spread over cores
// so that the first formerNum cores take one block more than the rest.
#ifndef MUL_ADDS_FP32_TILING_H
#define MUL_ADDS_FP32_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MulAddsFp32TilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, formerNum);
TILING_DATA_FIELD_DEF(uint32_t, formerLength);
TILING_DATA_FIELD_DEF(uint32_t, smallLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MulAddsFp32, MulAddsFp32TilingData)
} // namespace optiling
#endif // MUL_ADDS_FP32_TILING_H
