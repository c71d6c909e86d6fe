// The AscendC C API umbrella header (`#include "c_api/asc_simd.h"`): `asc_*` functions on `__ubuf__` / `__gm__`
// addresses for the 910B vector core, on top of the emulator's AscendC implementation (tw/c_api.h, tw/c_api_vector.h).
// `__ubuf__` arrays a kernel declares live in the emulated Unified Buffer (tw/ubuf_array.h).
#pragma once
#include "kernel_operator.h"
#include "tw/c_api.h"
#include "tw/c_api_vector.h"
#include "tw/ubuf_array.h"
