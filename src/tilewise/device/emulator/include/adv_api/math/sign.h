// The AscendC advanced API header adv_api/math/sign.h: the emulator declares the whole API in kernel_operator.h.
#pragma once
#include "kernel_operator.h"
