// The AscendC advanced API header adv_api/pad/broadcast.h: the emulator declares the whole API in kernel_operator.h.
#pragma once
#include "kernel_operator.h"
