// The basic-API umbrella header newer AscendC releases offer beside kernel_operator.h; the emulator has one API set.
#pragma once
#include "kernel_operator.h"
