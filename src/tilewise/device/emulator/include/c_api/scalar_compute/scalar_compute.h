// The reference's per-area C API header "c_api/scalar_compute/scalar_compute.h": the emulator offers the whole C API in one header.
#pragma once
#include "c_api/asc_simd.h"
