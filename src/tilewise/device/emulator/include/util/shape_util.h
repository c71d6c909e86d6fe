// tilewise host emulation: util/shape_util.h of CANN's opbase package: axis bounds and the unknown-shape encoding
// of graph shapes (an unknown rank is the single dimension -2, an unknown dimension is -1).
#pragma once
#include <cstddef>
#include <cstdint>

#include "exe_graph/runtime/shape.h"

namespace Ops::Base {

constexpr int64_t UNKNOWN_RANK_DIM_VALUE = -2LL;
constexpr int64_t UNKNOWN_DIM_VALUE = -1LL;

// Whether `axis` names a dimension of a rank-`dimNum` shape, negative axes counting from the end; a scalar
// (rank 0) accepts only axis 0.
template <typename T1, typename T2>
bool CheckAxisBounds(const T1 dimNum, const T2 axis) {
    const int64_t rank = static_cast<int64_t>(dimNum);
    const int64_t a = static_cast<int64_t>(axis);
    if (rank == 0) {
        return a == 0;
    }
    return a >= -rank && a < rank;
}

inline void SetUnknownRank(gert::Shape& shape) {
    shape.SetDimNum(0);
    shape.AppendDim(UNKNOWN_RANK_DIM_VALUE);
}
inline bool IsUnknownRank(const gert::Shape& shape) {
    return shape.GetDimNum() == 1 && shape.GetDim(0) == UNKNOWN_RANK_DIM_VALUE;
}
// A rank-`rank` shape whose every dimension is unknown; a negative rank leaves the shape as it was.
inline void SetUnknownShape(int64_t rank, gert::Shape& shape) {
    if (rank < 0) {
        return;
    }
    shape.SetDimNum(static_cast<size_t>(rank));
    for (size_t i = 0; i < static_cast<size_t>(rank); ++i) {
        shape.SetDim(i, UNKNOWN_DIM_VALUE);
    }
}
inline bool IsUnknownShape(const gert::Shape& shape) {
    for (size_t i = 0; i < shape.GetDimNum(); ++i) {
        if (shape.GetDim(i) == UNKNOWN_DIM_VALUE) {
            return true;
        }
    }
    return false;
}

}  // namespace Ops::Base
