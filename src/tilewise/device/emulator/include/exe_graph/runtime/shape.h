// tilewise host emulation: gert::Shape, a small fixed-capacity list of dimensions (no heap, copyable, comparable).
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>

namespace gert {

class Shape {
public:
    static constexpr size_t kMaxDimNum = 25;
    static constexpr int64_t kInvalidDimValue = std::numeric_limits<int64_t>::min();

    Shape() = default;
    // Implicit, so that `static const gert::Shape s = {1};` and `Shape({2, 3})` both work as in real code.
    Shape(std::initializer_list<int64_t> dims) {
        for (int64_t d : dims) {
            AppendDim(d);
        }
    }

    size_t GetDimNum() const { return dim_num_; }
    void SetDimNum(size_t n) { dim_num_ = n > kMaxDimNum ? kMaxDimNum : n; }

    // Out-of-range reads give kInvalidDimValue rather than undefined behaviour.
    int64_t GetDim(size_t i) const { return i < dim_num_ ? dims_[i] : kInvalidDimValue; }
    void SetDim(size_t i, int64_t v) {
        if (i < kMaxDimNum) {
            dims_[i] = v;
        }
    }
    Shape& AppendDim(int64_t v) {
        if (dim_num_ < kMaxDimNum) {
            dims_[dim_num_++] = v;
        }
        return *this;
    }
    const int64_t& operator[](size_t i) const { return dims_[i]; }
    int64_t& operator[](size_t i) { return dims_[i]; }

    bool IsScalar() const { return dim_num_ == 0; }
    void SetScalar() { dim_num_ = 0; }

    // Product of the dimensions; a scalar holds one element.
    int64_t GetShapeSize() const {
        int64_t n = 1;
        for (size_t i = 0; i < dim_num_; ++i) {
            n *= dims_[i];
        }
        return n;
    }

    bool operator==(const Shape& o) const {
        if (dim_num_ != o.dim_num_) {
            return false;
        }
        for (size_t i = 0; i < dim_num_; ++i) {
            if (dims_[i] != o.dims_[i]) {
                return false;
            }
        }
        return true;
    }
    bool operator!=(const Shape& o) const { return !(*this == o); }

private:
    size_t dim_num_ = 0;
    int64_t dims_[kMaxDimNum] = {};
};

}  // namespace gert
