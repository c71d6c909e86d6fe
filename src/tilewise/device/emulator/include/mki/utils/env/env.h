// tilewise host emulation of the mki framework: Mki::GetEnv, the process environment (null when unset).
#pragma once
#include <cstdlib>

namespace Mki {
inline const char* GetEnv(const char* name) { return std::getenv(name); }
}  // namespace Mki
