// tilewise's CPU emulation of the AscendC kernel API. Written from the public API semantics; no CANN code.
// A kernel includes this header and compiles with plain g++; each block runs on its own thread.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "tw/types.h"
#include "tw/runtime.h"
#include "tw/tensor.h"
#include "tw/mem_allocator.h"
#include "tw/copy.h"
#include "tw/copy_extra.h"
#include "tw/copy_slice.h"
#include "tw/param_offset.h"
#include "tw/sync.h"
#include "tw/sync_extra.h"
#include "tw/list_tensor.h"
#include "tw/vector.h"
#include "tw/vector_extra.h"
#include "tw/math_extra.h"
#include "tw/activation.h"
#include "tw/softmax.h"
#include "tw/vector_sort.h"
#include "tw/reduce_pattern.h"
#include "tw/library_reduce.h"
#include "tw/library_glu.h"
#include "tw/library_norm.h"
#include "tw/library_pad.h"
#include "tw/library_topk.h"
#include "tw/legacy_intrinsics.h"
#include "tw/legacy_intrinsics_extra.h"
#include "tw/ubuf_array.h"  // the storage the build gives `__ubuf__` arrays (device/emulator/ubuf_arrays.py)
#include "tw/ascendc_utils.h"
#include "tw/debug_print.h"
#include "tw/std_lib.h"
#include "tw/kernel_macros.h"
#include "tw/tpl.h"
#include "tw/entry.h"

// tik2 is the namespace's name in early AscendC releases: kernels written then say `using namespace tik2;`, name
// `tik2::LocalTensor`, and some reopen `namespace tik2 { ... }` for their own helpers, so it is a namespace of its
// own that sees all of AscendC (an alias could not be reopened).
namespace tik2 {
using namespace AscendC;
}

// The reference declares GetTPipePtr outside the namespace (`AscendC::TPipe* GetTPipePtr()`): kernels call it
// unqualified without `using namespace AscendC;`.
using AscendC::GetTPipePtr;
