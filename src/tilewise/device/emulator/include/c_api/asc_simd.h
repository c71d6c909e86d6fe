// The AscendC C API umbrella header (`#include "c_api/asc_simd.h"`): `asc_*` functions on `__ubuf__` / `__gm__`
// addresses for the 910B vector core, on top of the emulator's AscendC implementation (tw/api/c_api/core.h, tw/api/c_api/vector.h).
// `__ubuf__` arrays a kernel declares live in the emulated Unified Buffer (tw/runtime/ubuf_arrays.h).
#pragma once
#include "kernel_operator.h"
#include "tw/api/c_api/core.h"
#include "tw/api/c_api/vector.h"
#include "tw/runtime/ubuf_arrays.h"
