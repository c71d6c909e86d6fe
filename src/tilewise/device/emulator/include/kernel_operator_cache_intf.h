// An include path of AscendC's kernel API, which the emulator declares whole in kernel_operator.h.
#pragma once
#include "kernel_operator.h"
