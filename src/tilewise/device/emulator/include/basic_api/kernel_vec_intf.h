// The AscendC header basic_api/kernel_vec_intf.h: the emulator declares the whole API in kernel_operator.h.
#pragma once
#include "kernel_operator.h"
