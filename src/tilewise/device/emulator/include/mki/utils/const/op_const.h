// tilewise host emulation of the mki framework: the shared constants header. The operators tilewise runs include it
// for the common types only; it brings those in.
#pragma once
#include <cstdint>

#include "mki/types.h"
