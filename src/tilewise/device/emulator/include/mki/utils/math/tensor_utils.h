// tilewise host emulation of the mki framework: the tensor utilities header. Kernels include it for the tensor
// types and the Utils arithmetic (CeilDiv, RoundUp, RoundDown), which it brings in.
#pragma once
#include "mki/tensor.h"
#include "mki/utils/math/math.h"
