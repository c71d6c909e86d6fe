// tilewise kernel emulation: op_kernel/platform_util.h of CANN's opbase package, the vector unit's sizes as
// compile-time constants for kernels (the emulator models an A2/A3 vector core).
#pragma once
#include "kernel_operator.h"

namespace Ops::Base {

// UB data block: every UB address and DataCopy length is a multiple of it.
__aicore__ inline constexpr uint32_t GetUbBlockSize() { return 32U; }
// Bytes one vector instruction repeat (a vector register) processes: 256 on A2/A3.
__aicore__ inline constexpr uint32_t GetVRegSize() { return 256U; }

}  // namespace Ops::Base
