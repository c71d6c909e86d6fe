// tilewise host emulation: Ops::Base platform helpers of CANN's operator libraries.
#pragma once
#include <cstdint>

#include "tiling/platform/platform_ascendc.h"

namespace Ops::Base {

// UB data block: every UB address and DataCopy length is a multiple of it.
template <typename Context>
inline uint32_t GetUbBlockSize(Context*) { return 32U; }
// Bytes one vector instruction repeat processes.
template <typename Context>
inline uint32_t GetVRegSize(Context*) { return 256U; }

}  // namespace Ops::Base
