// The header the AscendC reference names for ListTensorDesc / TensorDesc; the emulator defines them in
// tw/api/list_tensor.h, which kernel_operator.h includes.
#pragma once
#include "kernel_operator.h"
