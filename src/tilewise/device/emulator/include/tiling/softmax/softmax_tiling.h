// The SoftMax host tiling under the path CANN's high-level API installs it (tiling/softmax/softmax_tiling.h):
// SoftMaxTilingFunc and GetSoftMaxMin/MaxTmpSize, implemented in tw_host/softmax_tiling.h.
#pragma once
#include "tiling/tiling_api.h"
