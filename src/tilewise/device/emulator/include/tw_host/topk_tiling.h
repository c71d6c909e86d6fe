// tilewise host emulation: the TopK host tiling functions of AscendC's library for the A2 / A3 (TopK-Tiling.md gives
// the signatures; the sizes and fields are the library's MERGE_SORT formulas for that architecture):
//
//   GetTopKMaxMinTmpSize(platform, inner, outter, isReuseSource, isInitIndex, mode, isLargest, typeSize, max, min)
//       Normal: 16 x inner bytes (20 x inner without isInitIndex); Small: 8 x inner x outter + 64, plus
//       4 x inner x outter for an ascending sort and again without isInitIndex; max = min.
//   TopKTilingFunc(platform, inner, outter, k, typeSize, isInitIndex, mode, isLargest, tiling)
//       the offsets of the sort / merge buffers, the k alignments and the GatherMask patterns.
//
// Invalid arguments (inner not a positive multiple of 32, Small mode with inner other than 32, outter < 1, a type
// size other than 2 or 4, k outside [1, inner]) are reported on stderr, as the library's host checks do; the
// RADIX_SELECT overload (Ascend 950 only) is not offered.
#pragma once
#include <cstdint>
#include <cstdio>

#include "tiling/platform/platform_ascendc.h"
#include "tw/tiling/topk.h"

namespace tw_host {

inline bool topk_args(int32_t inner, int32_t outter, AscendC::TopKMode mode, uint32_t type_size, const char* api) {
    const bool ok = inner > 0 && inner % 32 == 0 && outter > 0 && (type_size == 2 || type_size == 4) &&
                    (mode != AscendC::TopKMode::TOPK_NSMALL || inner == 32);
    if (!ok)
        std::fprintf(stderr, "tw_host: %s: invalid arguments (inner %d, outter %d, typeSize %u)\n", api, inner,
                     outter, type_size);
    return ok;
}

// Bit patterns of the GatherMask selections: k ones, k pairs "10" or "01", k nibbles "0001".
inline uint32_t topk_ones(int32_t k) { uint32_t m = 0; for (int32_t i = 0; i < k; ++i) m = (m << 1u) | 1u; return m; }
inline uint32_t topk_pairs(uint32_t unit, int32_t k) {
    uint32_t m = unit;
    for (int32_t i = 1; i < k; ++i) m = (m << 2u) | unit;
    return m;
}
inline uint16_t topk_nibbles(int32_t k) {
    uint16_t m = 1;
    for (int32_t i = 1; i < k; ++i) m = static_cast<uint16_t>((m << 4u) | 1u);
    return m;
}

inline void topk_masks(int32_t k, uint32_t type_size, optiling::TopkTiling& t) {
    if (k < 17) t.set_vreduceIdxMask0(topk_pairs(2, k));
    if (k >= 17 && k <= 32) {
        t.set_vreduceIdxMask0(0xAAAAAAAAu);
        t.set_vreduceIdxMask1(topk_pairs(2, k - 16));
    }
    if (type_size == 4) {
        if (k < 17) t.set_vreduceValMask0(topk_pairs(1, k));
        if (k >= 17 && k <= 32) {
            t.set_vreduceValMask0(topk_pairs(1, 16));
            t.set_vreduceValMask1(topk_pairs(1, k - 16));
        }
        return;
    }
    // half: eight 16-bit masks of up to four values each
    auto part = [k](int32_t lo) -> uint16_t {
        if (k <= lo) return 0;
        return topk_nibbles(k >= lo + 4 ? 4 : k - lo);
    };
    t.set_vreducehalfValMask0(k < 5 ? topk_nibbles(k) : uint16_t(0x1111));
    t.set_vreducehalfValMask1(part(4));
    t.set_vreducehalfValMask2(part(8));
    t.set_vreducehalfValMask3(part(12));
    t.set_vreducehalfValMask4(part(16));
    t.set_vreducehalfValMask5(part(20));
    t.set_vreducehalfValMask6(part(24));
    t.set_vreducehalfValMask7(part(28));
}

}  // namespace tw_host

namespace AscendC {

inline bool GetTopKMaxMinTmpSize(const platform_ascendc::PlatformAscendC& ascendcPlatform, const int32_t inner,
                                 const int32_t outter, const bool isReuseSource, const bool isInitIndex,
                                 enum TopKMode mode, const bool isLargest, const uint32_t dataTypeSize,
                                 uint32_t& maxValue, uint32_t& minValue) {
    (void)ascendcPlatform;
    (void)isReuseSource;
    if (!tw_host::topk_args(inner, outter, mode, dataTypeSize, "GetTopKMaxMinTmpSize")) return true;
    const uint32_t io = uint32_t(inner) * uint32_t(outter);
    if (mode == TopKMode::TOPK_NORMAL) {
        minValue = (isInitIndex ? 16u : 20u) * uint32_t(inner);
    } else {
        minValue = io * 8 + 64;
        if (!isLargest) minValue += io * 4;
        if (!isInitIndex) minValue += io * 4;
    }
    maxValue = minValue;
    return true;
}

inline bool TopKTilingFunc(const platform_ascendc::PlatformAscendC& ascendcPlatform, const int32_t inner,
                           const int32_t outter, const int32_t k, const uint32_t dataTypeSize, const bool isInitIndex,
                           enum TopKMode mode, const bool isLargest, optiling::TopkTiling& t) {
    (void)ascendcPlatform;
    if (!tw_host::topk_args(inner, outter, mode, dataTypeSize, "TopKTilingFunc")) return dataTypeSize != 0;
    if (k < 1 || k > inner) std::fprintf(stderr, "tw_host: TopKTilingFunc: k %d outside [1, %d]\n", k, inner);
    const int32_t k8 = (k + 7) / 8 * 8, k16 = (k + 15) / 16 * 16;
    const bool half = dataTypeSize == 2;
    t.set_allDataSize(inner * outter);
    t.set_kAlignFourBytes(k8);
    if (mode == TopKMode::TOPK_NORMAL) {
        t.set_copyUbToUbBlockCount(uint32_t(inner * 2 * 4 / 32));
        t.set_sortRepeat(uint32_t(inner / 32));
        t.set_mrgSortRepeat(inner / 4);
        t.set_kAlignTwoBytes(k16);
        t.set_maskVreducev2FourBytes(2 * k);
        t.set_maskVreducev2TwoBytes(4 * k);
        t.set_mrgFourQueueTailPara1(inner * 2);
        t.set_mrgFourQueueTailPara2(int32_t(4 / dataTypeSize));
        // per element a sort proposal of 8 bytes: 2 floats or 4 halves
        const int32_t per = half ? 4 : 2;
        t.set_tmpLocalSize(2 * per * inner);
        t.set_innerDataSize(per * inner);
        t.set_maskOffset(outter * (half ? k16 : k8));
        t.set_mrgSortSrc1offset(per);
        t.set_mrgSortSrc2offset(2 * per);
        t.set_mrgSortSrc3offset(3 * per);
        t.set_mrgSortTwoQueueSrc1Offset(per);
        if (!isInitIndex) {
            t.set_srcIndexOffset(2 * per * inner);
            t.set_tmpLocalSize(2 * per * inner + (half ? 2 : 1) * inner);
        }
    } else {
        const int32_t data = inner * outter * int32_t(8 / dataTypeSize);
        t.set_innerDataSize(data);
        t.set_maskOffset(outter * k);
        const int32_t mask_at = data + (isLargest ? 0 : inner * outter);
        t.set_topkMrgSrc1MaskSizeOffset(mask_at);
        t.set_tmpLocalSize(mask_at + int32_t(64 / dataTypeSize));
        if (!isInitIndex) {
            const int32_t index_at = mask_at + int32_t(64 / dataTypeSize);
            t.set_tmpLocalSize(index_at + inner * outter * int32_t(4 / dataTypeSize));
            t.set_topkNSmallSrcIndexOffset(index_at);
        }
        tw_host::topk_masks(k, dataTypeSize, t);
    }
    return true;
}

}  // namespace AscendC
