// tilewise host emulation of the mki framework: tensor dtypes and formats. The TENSOR_DTYPE_* values are the
// aclDataType numbers (a tiling may pass the dtype itself as its tiling id, and kernels test TILING_KEY_IS(27) for
// bf16), the same numbers as ge::DataType; TENSOR_FORMAT_* are the aclFormat numbers.
#pragma once
// The framework's headers bring these in, and operator sources rely on it (std::numeric_limits, std::min).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "mki/utils/status/status.h"

namespace Mki {

enum TensorDType : int32_t {
    TENSOR_DTYPE_UNDEFINED = -1,
    TENSOR_DTYPE_FLOAT = 0,
    TENSOR_DTYPE_FLOAT16 = 1,
    TENSOR_DTYPE_INT8 = 2,
    TENSOR_DTYPE_INT32 = 3,
    TENSOR_DTYPE_UINT8 = 4,
    TENSOR_DTYPE_INT16 = 6,
    TENSOR_DTYPE_UINT16 = 7,
    TENSOR_DTYPE_UINT32 = 8,
    TENSOR_DTYPE_INT64 = 9,
    TENSOR_DTYPE_UINT64 = 10,
    TENSOR_DTYPE_DOUBLE = 11,
    TENSOR_DTYPE_BOOL = 12,
    TENSOR_DTYPE_STRING = 13,
    TENSOR_DTYPE_COMPLEX64 = 16,
    TENSOR_DTYPE_COMPLEX128 = 17,
    TENSOR_DTYPE_BF16 = 27,
};

enum TensorFormat : int32_t {
    TENSOR_FORMAT_UNDEFINED = -1,
    TENSOR_FORMAT_NCHW = 0,
    TENSOR_FORMAT_NHWC = 1,
    TENSOR_FORMAT_ND = 2,
    TENSOR_FORMAT_NC1HWC0 = 3,
    TENSOR_FORMAT_FRACTAL_Z = 4,
    TENSOR_FORMAT_NC1HWC0_C04 = 12,
    TENSOR_FORMAT_HWCN = 16,
    TENSOR_FORMAT_NDHWC = 27,
    TENSOR_FORMAT_FRACTAL_NZ = 29,
    TENSOR_FORMAT_NCDHW = 30,
    TENSOR_FORMAT_NDC1HWC0 = 32,
    TENSOR_FORMAT_FRACTAL_Z_3D = 33,
};

// Bytes per element; 0 for a dtype with no fixed size.
inline size_t GetTensorElementSize(TensorDType dtype) {
    switch (dtype) {
        case TENSOR_DTYPE_FLOAT: case TENSOR_DTYPE_INT32: case TENSOR_DTYPE_UINT32: return 4;
        case TENSOR_DTYPE_FLOAT16: case TENSOR_DTYPE_BF16: case TENSOR_DTYPE_INT16: case TENSOR_DTYPE_UINT16: return 2;
        case TENSOR_DTYPE_INT8: case TENSOR_DTYPE_UINT8: case TENSOR_DTYPE_BOOL: return 1;
        case TENSOR_DTYPE_INT64: case TENSOR_DTYPE_UINT64: case TENSOR_DTYPE_DOUBLE: case TENSOR_DTYPE_COMPLEX64: return 8;
        case TENSOR_DTYPE_COMPLEX128: return 16;
        default: return 0;
    }
}

}  // namespace Mki
