// One of the AscendC kernel headers that kernels sometimes include directly; in the emulator everything they
// declare comes with kernel_operator.h.
#pragma once
#include "kernel_operator.h"
