// tilewise host emulation of the mki framework: BinHandle, the framework's handle on a kernel's device binary.
// The emulator links the kernel in, so there is nothing behind it.
#pragma once

namespace Mki {
class BinHandle {};
}  // namespace Mki
