// tilewise host emulation of the mki framework: Mki::Tensor as a LaunchParam holds it. The tiling reads only the
// description (dims, dtype, format, strides, offset); on the host no data is attached (`data` stays null).
#pragma once
#include <cstdint>

#include "mki/types.h"
#include "mki/utils/SVector/SVector.h"

namespace Mki {

struct TensorDesc {
    TensorDType dtype = TENSOR_DTYPE_UNDEFINED;
    TensorFormat format = TENSOR_FORMAT_ND;
    SVector<int64_t> dims;
    SVector<int64_t> strides;  // empty: contiguous
    int64_t offset = 0;

    // Element count; 0 for a description with no dims (how the framework passes an optional input left out).
    int64_t Numel() const {
        if (dims.empty()) return 0;
        int64_t n = 1;
        for (int64_t d : dims) n *= d;
        return n;
    }
    // Whether the strides describe the packed row-major layout of dims (no strides: packed). A dimension of
    // extent 1 never moves, so its stride does not matter.
    bool IsContiguous() const {
        if (strides.empty()) return true;
        if (strides.size() != dims.size()) return false;
        int64_t expect = 1;
        for (size_t i = dims.size(); i-- > 0;) {
            if (dims[i] != 1 && strides[i] != expect) return false;
            expect *= dims[i];
        }
        return true;
    }
};

struct Tensor {
    TensorDesc desc;
    void* data = nullptr;
    uint64_t dataSize = 0;
    void* hostData = nullptr;

    int64_t Numel() const { return desc.Numel(); }
};

}  // namespace Mki
