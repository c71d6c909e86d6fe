// An include path of AscendC's host tiling API, which the emulator declares in tiling/tiling_api.h.
#pragma once
#include "tiling/tiling_api.h"
