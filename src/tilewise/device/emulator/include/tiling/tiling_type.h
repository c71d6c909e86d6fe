// The host include path tiling/tiling_type.h of CANN's operator repositories, which sits beside tiling_base.h: the
// emulator's tiling base class and host tiling API (tiling/tiling_base.h, tiling/tiling_api.h).
#pragma once
#include "tiling/tiling_api.h"
#include "tiling/tiling_base.h"
