// The TopK tiling struct (the library's TopkTiling fields), shared by the host tiling code and the kernel, and the
// kernel-side TopKMode, TopKInfo and TopKConfig (TopK.md, TopK-Tiling.md). As with SoftMaxTiling, optiling::TopkTiling,
// AscendC::tiling::TopkTiling and the kernel's TopkTiling are one standard-layout class.
#pragma once
#include <cstdint>
#include "tw/tiling/struct_fields.h"

namespace optiling {

class TopkTiling {
  public:
    TW_LIB_TILING_FIELD(int32_t, tmpLocalSize)
    TW_LIB_TILING_FIELD(int32_t, allDataSize)
    TW_LIB_TILING_FIELD(int32_t, innerDataSize)
    TW_LIB_TILING_FIELD(uint32_t, sortRepeat)
    TW_LIB_TILING_FIELD(int32_t, mrgSortRepeat)
    TW_LIB_TILING_FIELD(int32_t, kAlignFourBytes)
    TW_LIB_TILING_FIELD(int32_t, kAlignTwoBytes)
    TW_LIB_TILING_FIELD(int32_t, maskOffset)
    TW_LIB_TILING_FIELD(int32_t, maskVreducev2FourBytes)
    TW_LIB_TILING_FIELD(int32_t, maskVreducev2TwoBytes)
    TW_LIB_TILING_FIELD(int32_t, mrgSortSrc1offset)
    TW_LIB_TILING_FIELD(int32_t, mrgSortSrc2offset)
    TW_LIB_TILING_FIELD(int32_t, mrgSortSrc3offset)
    TW_LIB_TILING_FIELD(int32_t, mrgSortTwoQueueSrc1Offset)
    TW_LIB_TILING_FIELD(int32_t, mrgFourQueueTailPara1)
    TW_LIB_TILING_FIELD(int32_t, mrgFourQueueTailPara2)
    TW_LIB_TILING_FIELD(int32_t, srcIndexOffset)
    TW_LIB_TILING_FIELD(uint32_t, copyUbToUbBlockCount)
    TW_LIB_TILING_FIELD(int32_t, topkMrgSrc1MaskSizeOffset)
    TW_LIB_TILING_FIELD(int32_t, topkNSmallSrcIndexOffset)
    TW_LIB_TILING_FIELD(uint32_t, vreduceValMask0)
    TW_LIB_TILING_FIELD(uint32_t, vreduceValMask1)
    TW_LIB_TILING_FIELD(uint32_t, vreduceIdxMask0)
    TW_LIB_TILING_FIELD(uint32_t, vreduceIdxMask1)
    TW_LIB_TILING_FIELD(uint16_t, vreducehalfValMask0)
    TW_LIB_TILING_FIELD(uint16_t, vreducehalfValMask1)
    TW_LIB_TILING_FIELD(uint16_t, vreducehalfValMask2)
    TW_LIB_TILING_FIELD(uint16_t, vreducehalfValMask3)
    TW_LIB_TILING_FIELD(uint16_t, vreducehalfValMask4)
    TW_LIB_TILING_FIELD(uint16_t, vreducehalfValMask5)
    TW_LIB_TILING_FIELD(uint16_t, vreducehalfValMask6)
    TW_LIB_TILING_FIELD(uint16_t, vreducehalfValMask7)

    TW_LIB_TILING_SAVE(TopkTiling)
};

}  // namespace optiling


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
