// The AscendC header lib/math/trunc.h: the emulator declares the whole API in kernel_operator.h.
#pragma once
#include "kernel_operator.h"
