// The include path utils/debug/asc_printf.h under which the Ascend C reference documents the kernel's printf
// (AscendC::printf / PRINTF): the emulator's is in tw/api/debug_print.h, which kernel_operator.h brings.
#pragma once
#include "kernel_operator.h"
