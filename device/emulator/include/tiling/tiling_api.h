// tilewise host emulation: the umbrella header of AscendC's host tiling API. The emulator offers the tiling
// macros and platform queries through it; library-specific tilings (Matmul, SoftMax, ...) are not emulated.
#pragma once
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"
