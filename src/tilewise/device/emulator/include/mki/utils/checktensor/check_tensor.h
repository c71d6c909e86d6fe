// tilewise host emulation of the mki framework: CheckEmptyTensor, true for a tensor with no elements (how the
// framework passes an optional input the caller left out: no dims).
#pragma once
#include "mki/tensor.h"

namespace Mki {
inline bool CheckEmptyTensor(const Tensor& tensor) { return tensor.desc.dims.empty() || tensor.Numel() == 0; }
}  // namespace Mki
