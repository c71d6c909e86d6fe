// The AscendC header basic_api/kernel_operator_list_tensor_intf.h (its newer place): ListTensorDesc and TensorDesc.
#pragma once
#include "kernel_operator_list_tensor_intf.h"
