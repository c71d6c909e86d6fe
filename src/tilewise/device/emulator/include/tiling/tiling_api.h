// tilewise host emulation: the umbrella header of AscendC's host tiling API: the tiling macros, the platform
// queries and, of the library-specific tilings, SoftMax's (tw_host/softmax_tiling.h), RmsNorm's / LayerNorm's
// (tw_host/norm_tiling.h), Pad's / UnPad's (tw_host/pad_tiling.h), TopK's (tw_host/topk_tiling.h), the scratch
// sizes of Mean, SwiGLU, GeGLU, ReGlu and CumSum (tw_host/library_tmp_sizes.h) and of the math, activation,
// reduction and byte-mask Select APIs (tw_host/tmp_size_queries.h); Matmul's and the others' are not emulated.
// Host files say `using namespace AscendC;` after including it, so it declares that namespace.
#pragma once
// The standard headers CANN's counterpart of this header brings in through its own includes (operators use
// them without including them).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <mutex>
#include <string>
#include <vector>
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"
#include "tw_host/softmax_tiling.h"
#include "tw_host/norm_tiling.h"
#include "tw_host/pad_tiling.h"
#include "tw_host/topk_tiling.h"
#include "tw_host/library_tmp_sizes.h"
#include "tw_host/tmp_size_queries.h"

namespace AscendC {}
