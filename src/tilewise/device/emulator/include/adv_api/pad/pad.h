// The AscendC advanced API header adv_api/pad/pad.h (Pad, UnPad): the emulator declares the whole API in
// kernel_operator.h.
#pragma once
#include "kernel_operator.h"
