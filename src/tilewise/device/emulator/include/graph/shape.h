// tilewise host emulation: ge::Shape, the graph-level shape class (a list of dimensions, -1 for an unknown one,
// -2 as the only dimension for an unknown rank). Tiling code builds one from a vector and reads it back; it differs
// from gert::Shape, the fixed-capacity runtime shape a TilingContext hands out.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "graph/types.h"

namespace ge {

constexpr int64_t UNKNOWN_DIM = -1;
constexpr int64_t UNKNOWN_DIM_NUM = -2;

class Shape {
public:
    Shape() = default;
    explicit Shape(const std::vector<int64_t>& dims) : dims_(dims) {}

    size_t GetDimNum() const {
        return dims_.size() == 1 && dims_[0] == UNKNOWN_DIM_NUM ? 0 : dims_.size();
    }
    // An index past the rank reads 0, as the graph API documents.
    int64_t GetDim(size_t idx) const { return idx < dims_.size() ? dims_[idx] : 0; }
    graphStatus SetDim(size_t idx, int64_t value) {
        if (idx >= dims_.size()) {
            return GRAPH_FAILED;
        }
        dims_[idx] = value;
        return GRAPH_SUCCESS;
    }
    std::vector<int64_t> GetDims() const { return dims_; }
    bool IsScalar() const { return dims_.empty(); }
    bool IsUnknownShape() const {
        for (int64_t d : dims_) {
            if (d < 0) {
                return true;
            }
        }
        return false;
    }
    // Number of elements: 1 for a scalar, -1 when a dimension is unknown, 0 when one is 0.
    int64_t GetShapeSize() const {
        int64_t n = 1;
        for (int64_t d : dims_) {
            if (d < 0) {
                return -1;
            }
            n *= d;
        }
        return n;
    }
    bool operator==(const Shape& o) const { return dims_ == o.dims_; }
    bool operator!=(const Shape& o) const { return dims_ != o.dims_; }

private:
    std::vector<int64_t> dims_;
};

}  // namespace ge
