// tilewise's CPU emulation of the AscendC kernel API. Written from the public API semantics; no CANN code.
// A kernel includes this header and compiles with plain g++; each block runs on its own thread.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "tw/api/types.h"
#include "tw/runtime/launch_state.h"
#include "tw/api/tensor.h"
#include "tw/api/local_mem_allocator.h"
#include "tw/api/data_copy.h"
#include "tw/api/gm_fill.h"
#include "tw/api/data_copy_slice.h"
#include "tw/api/param_offset.h"
#include "tw/api/sync.h"
#include "tw/api/inter_core_sync.h"
#include "tw/api/list_tensor.h"
#include "tw/api/vector.h"
#include "tw/api/vector/fused_index_scatter.h"
#include "tw/api/scalar_system.h"
#include "tw/api/library/math.h"
#include "tw/api/library/math_forms.h"
#include "tw/api/library/activation.h"
#include "tw/api/library/softmax.h"
#include "tw/api/vector/sort.h"
#include "tw/api/library/reduce_broadcast.h"
#include "tw/api/library/reduce_scan.h"
#include "tw/api/library/glu.h"
#include "tw/api/library/norm.h"
#include "tw/api/library/pad.h"
#include "tw/api/library/topk.h"
#include "tw/api/library/select.h"
#include "tw/tiling/library_configs.h"
#include "tw/api/cce/intrinsics.h"
#include "tw/api/cce/align_copy_reduce.h"
#include "tw/runtime/ubuf_arrays.h"  // the storage the build gives `__ubuf__` arrays (device/emulator/ubuf_arrays.py)
#include "tw/api/ascendc_utils.h"
#include "tw/api/int_math.h"
#include "tw/api/debug_print.h"
#include "tw/api/std.h"
#include "tw/api/kernel_macros.h"
#include "tw/tiling/template_kernels.h"
#include "tw/runtime/kernel_entry.h"

// tik2 is the namespace's name in early AscendC releases: kernels written then say `using namespace tik2;`, name
// `tik2::LocalTensor`, and some reopen `namespace tik2 { ... }` for their own helpers, so it is a namespace of its
// own that sees all of AscendC (an alias could not be reopened).
namespace tik2 {
using namespace AscendC;
}

// The reference declares GetTPipePtr outside the namespace (`AscendC::TPipe* GetTPipePtr()`): kernels call it
// unqualified without `using namespace AscendC;`.
using AscendC::GetTPipePtr;
