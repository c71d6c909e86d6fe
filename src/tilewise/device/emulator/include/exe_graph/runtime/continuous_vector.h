// tilewise host emulation: gert::ContinuousVector, the list type behind list attributes (ListInt, ListFloat...).
// This version owns a copy of its elements, so attributes may be copied freely.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gert {

class ContinuousVector {
public:
    ContinuousVector() = default;
    template <typename T>
    static ContinuousVector From(const std::vector<T>& v) {
        ContinuousVector cv;
        cv.size_ = v.size();
        cv.bytes_.resize(v.size() * sizeof(T));
        if (!v.empty()) {
            std::memcpy(cv.bytes_.data(), v.data(), cv.bytes_.size());
        }
        return cv;
    }

    size_t GetSize() const { return size_; }
    size_t GetCapacity() const { return size_; }
    const void* GetData() const { return bytes_.empty() ? nullptr : bytes_.data(); }
    void* MutableData() { return bytes_.empty() ? nullptr : bytes_.data(); }

private:
    size_t size_ = 0;
    std::vector<unsigned char> bytes_;
};

// The typed view that RuntimeAttrs::GetListInt / GetListFloat return: same object, typed GetData().
template <typename T>
class TypedContinuousVector : public ContinuousVector {
public:
    const T* GetData() const { return static_cast<const T*>(ContinuousVector::GetData()); }
    T* MutableData() { return static_cast<T*>(ContinuousVector::MutableData()); }
};

}  // namespace gert
