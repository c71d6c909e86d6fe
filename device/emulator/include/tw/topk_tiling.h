// The TopK tiling struct (the library's TopkTiling fields), shared by the host tiling code and the kernel, and the
// kernel-side TopKMode, TopKInfo and TopKConfig (TopK.md, TopK-Tiling.md). As with SoftMaxTiling, optiling::TopkTiling,
// AscendC::tiling::TopkTiling and the kernel's TopkTiling are one standard-layout class.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#define TW_TOPK_FIELD(type, name)                  \
    type name = 0;                                 \
    void set_##name(type v) { name = v; }          \
    type get_##name() const { return name; }

namespace optiling {

class TopkTiling {
  public:
    TW_TOPK_FIELD(int32_t, tmpLocalSize)
    TW_TOPK_FIELD(int32_t, allDataSize)
    TW_TOPK_FIELD(int32_t, innerDataSize)
    TW_TOPK_FIELD(uint32_t, sortRepeat)
    TW_TOPK_FIELD(int32_t, mrgSortRepeat)
    TW_TOPK_FIELD(int32_t, kAlignFourBytes)
    TW_TOPK_FIELD(int32_t, kAlignTwoBytes)
    TW_TOPK_FIELD(int32_t, maskOffset)
    TW_TOPK_FIELD(int32_t, maskVreducev2FourBytes)
    TW_TOPK_FIELD(int32_t, maskVreducev2TwoBytes)
    TW_TOPK_FIELD(int32_t, mrgSortSrc1offset)
    TW_TOPK_FIELD(int32_t, mrgSortSrc2offset)
    TW_TOPK_FIELD(int32_t, mrgSortSrc3offset)
    TW_TOPK_FIELD(int32_t, mrgSortTwoQueueSrc1Offset)
    TW_TOPK_FIELD(int32_t, mrgFourQueueTailPara1)
    TW_TOPK_FIELD(int32_t, mrgFourQueueTailPara2)
    TW_TOPK_FIELD(int32_t, srcIndexOffset)
    TW_TOPK_FIELD(uint32_t, copyUbToUbBlockCount)
    TW_TOPK_FIELD(int32_t, topkMrgSrc1MaskSizeOffset)
    TW_TOPK_FIELD(int32_t, topkNSmallSrcIndexOffset)
    TW_TOPK_FIELD(uint32_t, vreduceValMask0)
    TW_TOPK_FIELD(uint32_t, vreduceValMask1)
    TW_TOPK_FIELD(uint32_t, vreduceIdxMask0)
    TW_TOPK_FIELD(uint32_t, vreduceIdxMask1)
    TW_TOPK_FIELD(uint16_t, vreducehalfValMask0)
    TW_TOPK_FIELD(uint16_t, vreducehalfValMask1)
    TW_TOPK_FIELD(uint16_t, vreducehalfValMask2)
    TW_TOPK_FIELD(uint16_t, vreducehalfValMask3)
    TW_TOPK_FIELD(uint16_t, vreducehalfValMask4)
    TW_TOPK_FIELD(uint16_t, vreducehalfValMask5)
    TW_TOPK_FIELD(uint16_t, vreducehalfValMask6)
    TW_TOPK_FIELD(uint16_t, vreducehalfValMask7)

    void SaveToBuffer(void* buf, size_t cap) const {
        if (buf == nullptr || cap < sizeof(*this)) throw std::runtime_error("TopkTiling does not fit in the buffer");
        std::memcpy(buf, static_cast<const void*>(this), sizeof(*this));
    }
    size_t GetDataSize() const { return sizeof(*this); }
};

}  // namespace optiling

#undef TW_TOPK_FIELD

namespace AscendC {
namespace tiling {
using TopkTiling = ::optiling::TopkTiling;
}

enum class TopKMode { TOPK_NORMAL, TOPK_NSMALL };
enum class TopKAlgo { RADIX_SELECT, MERGE_SORT };
enum class TopKOrder { UNSET, LARGEST, SMALLEST };

struct TopKConfig {
    TopKAlgo algo = TopKAlgo::MERGE_SORT;
    TopKOrder order = TopKOrder::UNSET;
    bool sorted = true;
};
constexpr TopKConfig defaultTopKConfig = {TopKAlgo::MERGE_SORT, TopKOrder::UNSET, true};

struct TopKInfo {
    int32_t outter = 1;
    int32_t inner;
    int32_t n;
};

}  // namespace AscendC

// The kernel side's name.
using TopkTiling = ::optiling::TopkTiling;
