// The SoftMax tiling struct, shared by the host tiling code and the kernel. The reference lists its sixteen uint32_t
// fields (srcM ... tailReduceSize); on the host it is optiling::SoftMaxTiling, a tiling-data class with set_/get_
// accessors that an operator embeds with TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, name), and AscendC's tiling
// functions also accept AscendC::tiling::SoftMaxTiling; the kernel names it SoftMaxTiling. In the emulator all three
// names are one standard-layout class, so the bytes SaveToBuffer writes are exactly what GET_TILING_DATA reads back.
// Also the kernel-side SoftMaxShapeInfo and SoftmaxConfig.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace optiling {

class SoftMaxTiling {
  public:
#define TW_SOFTMAX_FIELD(name)                         \
    uint32_t name = 0;                                 \
    void set_##name(uint32_t v) { name = v; }          \
    uint32_t get_##name() const { return name; }
    TW_SOFTMAX_FIELD(srcM)
    TW_SOFTMAX_FIELD(srcK)
    TW_SOFTMAX_FIELD(srcSize)
    TW_SOFTMAX_FIELD(outMaxM)
    TW_SOFTMAX_FIELD(outMaxK)
    TW_SOFTMAX_FIELD(outMaxSize)
    TW_SOFTMAX_FIELD(splitM)
    TW_SOFTMAX_FIELD(splitK)
    TW_SOFTMAX_FIELD(splitSize)
    TW_SOFTMAX_FIELD(reduceM)
    TW_SOFTMAX_FIELD(reduceK)
    TW_SOFTMAX_FIELD(reduceSize)
    TW_SOFTMAX_FIELD(rangeM)
    TW_SOFTMAX_FIELD(tailM)
    TW_SOFTMAX_FIELD(tailSplitSize)
    TW_SOFTMAX_FIELD(tailReduceSize)
#undef TW_SOFTMAX_FIELD

    void SaveToBuffer(void* buf, size_t cap) const {
        if (buf == nullptr || cap < sizeof(*this)) throw std::runtime_error("SoftMaxTiling does not fit in the buffer");
        std::memcpy(buf, static_cast<const void*>(this), sizeof(*this));
    }
    size_t GetDataSize() const { return sizeof(*this); }
};

}  // namespace optiling

namespace AscendC {
namespace tiling {
using SoftMaxTiling = ::optiling::SoftMaxTiling;
}

struct SoftMaxShapeInfo {
    uint32_t srcM = 0;     // product of the non-last axes
    uint32_t srcK = 0;     // last axis, 32-byte aligned
    uint32_t oriSrcM = 0;  // the unpadded lengths
    uint32_t oriSrcK = 0;
};

enum class SoftmaxMode { SOFTMAX_NORMAL = 0, SOFTMAX_OUTPUT_WITHOUT_BRC = 1 };

struct SoftmaxConfig {
    bool isCheckTiling = true;
    uint32_t oriSrcM = 0;
    uint32_t oriSrcK = 0;
    SoftmaxMode mode = SoftmaxMode::SOFTMAX_NORMAL;
};

constexpr SoftmaxConfig SOFTMAX_DEFAULT_CFG = {true, 0, 0, SoftmaxMode::SOFTMAX_NORMAL};

}  // namespace AscendC

// The kernel side's name (a global struct in CANN's kernel tiling header).
using SoftMaxTiling = ::optiling::SoftMaxTiling;
