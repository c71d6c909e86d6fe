// The reference's per-area C API header "c_api/sys_var/sys_var.h": the emulator offers the whole C API in one header.
#pragma once
#include "c_api/asc_simd.h"
