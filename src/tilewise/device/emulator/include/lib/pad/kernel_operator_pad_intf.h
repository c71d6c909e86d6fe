// The AscendC header lib/pad/kernel_operator_pad_intf.h: the emulator declares the whole API in kernel_operator.h.
#pragma once
#include "kernel_operator.h"
