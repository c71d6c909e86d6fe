// tilewise host emulation: gert::TilingData, the raw tiling buffer behind TilingContext::GetRawTilingData().
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gert {

class TilingData {
public:
    explicit TilingData(size_t capacity = 64 * 1024) : buf_(capacity, 0) {}

    void* GetData() { return buf_.data(); }
    const void* GetData() const { return buf_.data(); }
    size_t GetCapacity() const { return buf_.size(); }
    size_t GetDataSize() const { return data_size_; }
    void SetDataSize(size_t n) { data_size_ = n; }

    // Appends one value after the current data; fails (returns false) when it would not fit.
    template <typename T>
    bool Append(const T& v) {
        if (data_size_ + sizeof(T) > buf_.size()) {
            return false;
        }
        std::memcpy(buf_.data() + data_size_, &v, sizeof(T));
        data_size_ += sizeof(T);
        return true;
    }

private:
    std::vector<uint8_t> buf_;
    size_t data_size_ = 0;
};

}  // namespace gert
