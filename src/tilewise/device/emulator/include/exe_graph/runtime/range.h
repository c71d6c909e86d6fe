// tilewise host emulation: gert::Range<T>, a lower and an upper bound held by pointer (what an InferShapeRange
// function reads and writes: Range<Shape>). Copying a range copies the two pointers.
#pragma once

namespace gert {

template <typename T>
class Range {
public:
    Range() = default;
    explicit Range(T* same) : min_(same), max_(same) {}
    Range(T* min, T* max) : min_(min), max_(max) {}

    const T* GetMin() const { return min_; }
    const T* GetMax() const { return max_; }
    T* GetMin() { return min_; }
    T* GetMax() { return max_; }
    void SetMin(T* min) { min_ = min; }
    void SetMax(T* max) { max_ = max; }

    bool operator==(const Range& other) const {
        auto same = [](const T* a, const T* b) { return a == b || (a != nullptr && b != nullptr && *a == *b); };
        return same(min_, other.min_) && same(max_, other.max_);
    }

private:
    T* min_ = nullptr;
    T* max_ = nullptr;
};

}  // namespace gert
