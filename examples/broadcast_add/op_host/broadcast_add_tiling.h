// BroadcastAdd tiling data: z[M, N] = x[M, N] + b[N] in fp16. Rows are dealt out to cores (the first formerNum
// cores get one extra row) and each core moves tileRows rows per tile; rowStride is N rounded up to 32 bytes,
// the pitch of a row inside UB.
#ifndef BROADCAST_ADD_TILING_H
#define BROADCAST_ADD_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(BroadcastAddTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, rowStride);
TILING_DATA_FIELD_DEF(uint32_t, formerNum);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, tileRows);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(BroadcastAdd, BroadcastAddTilingData)
} // namespace optiling
#endif // BROADCAST_ADD_TILING_H
