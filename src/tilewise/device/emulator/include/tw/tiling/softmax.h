// The SoftMax tiling struct, shared by the host tiling code and the kernel. The reference lists its sixteen uint32_t
// fields (srcM ... tailReduceSize); on the host it is optiling::SoftMaxTiling, a tiling-data class with set_/get_
// accessors that an operator embeds with TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, name), and AscendC's tiling
// functions also accept AscendC::tiling::SoftMaxTiling; the kernel names it SoftMaxTiling. In the emulator all three
// names are one standard-layout class, so the bytes SaveToBuffer writes are exactly what GET_TILING_DATA reads back.
// Also the kernel-side SoftMaxShapeInfo and SoftmaxConfig.
#pragma once
#include <cstdint>
#include "tw/tiling/struct_fields.h"

namespace optiling {

class SoftMaxTiling {
  public:
    TW_LIB_TILING_FIELD(uint32_t, srcM)
    TW_LIB_TILING_FIELD(uint32_t, srcK)
    TW_LIB_TILING_FIELD(uint32_t, srcSize)
    TW_LIB_TILING_FIELD(uint32_t, outMaxM)
    TW_LIB_TILING_FIELD(uint32_t, outMaxK)
    TW_LIB_TILING_FIELD(uint32_t, outMaxSize)
    TW_LIB_TILING_FIELD(uint32_t, splitM)
    TW_LIB_TILING_FIELD(uint32_t, splitK)
    TW_LIB_TILING_FIELD(uint32_t, splitSize)
    TW_LIB_TILING_FIELD(uint32_t, reduceM)
    TW_LIB_TILING_FIELD(uint32_t, reduceK)
    TW_LIB_TILING_FIELD(uint32_t, reduceSize)
    TW_LIB_TILING_FIELD(uint32_t, rangeM)
    TW_LIB_TILING_FIELD(uint32_t, tailM)
    TW_LIB_TILING_FIELD(uint32_t, tailSplitSize)
    TW_LIB_TILING_FIELD(uint32_t, tailReduceSize)

    TW_LIB_TILING_SAVE(SoftMaxTiling)
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
