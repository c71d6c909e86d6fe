// ParamOffset<T>(base, len), from the earliest AscendC samples (the tik2 era): the start of this block's share of a
// GM argument split evenly across blocks, i.e. base + GetBlockIdx() * len elements of T. Later releases spell the
// same thing `gm.SetGlobalBuffer((__gm__ T*)base + len * GetBlockIdx(), len)`. Scalar address arithmetic only: no
// instruction is issued, so nothing is traced.
#pragma once
#include <cstdint>

#include "tw/api/sync.h"

namespace AscendC {

template <typename T>
inline GM_ADDR ParamOffset(GM_ADDR base, uint64_t len) {
    return base + static_cast<uint64_t>(GetBlockIdx()) * len * sizeof(T);
}

}  // namespace AscendC
