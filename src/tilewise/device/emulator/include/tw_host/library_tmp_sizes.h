// tilewise host emulation: the scratch-size queries of AscendC's library for Mean, SwiGLU, GeGLU, ReGlu and CumSum
// (their reference pages give the signatures; the sizes are the library's A2 formulas, in bytes):
//
//   GetMeanMaxMinTmpSize(n, srcTypeSize, accTypeSize, isReuseSource, max, min)
//       the per-repeat partial sums of a row (n / (256 / size) repeats, rounded up to 32), plus the row widened to
//       float (n rounded up to 32 bytes of the source type, x 4) for half summed in float; max = min.
//   GetSwiGLUMaxMinTmpSize(shape, typeSize, max, min[, isReuseSource])   half: 6 x max(elements x 2, 256), min 6 x 256;
//       float: 0
//   GetGeGLUMaxMinTmpSize(shape, typeSize, isReuseSource, max, min)      half: 4 x (the same); float: 0
//   GetReGluMaxMinTmpSize(shape, typeSize, isReuseSource, max, min)      float: 256; 16-bit: 6 x elements x 2,
//       min 6 x 256
//   GetCumSumMaxMinTmpSize(shape [outter, inner], typeSize, isLastAxis, isReuseSource, max, min)
//       first axis: half needs the whole tensor in float, float none; last axis: two transposes of 16-row (max: all
//       rows rounded up to 16) blocks, plus the same in half for the cast.
//   Get{Mean,SwiGLU,GeGLU}TmpBufferFactorSize(typeSize, maxLiveNodeCount, extraBuffer)
//
// The kernels (tw/api/library/reduce_scan.h, tw/api/library/glu.h) check a caller's sharedTmpBuffer against these minimums.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "graph/shape.h"
#include "tw/tiling/tmp_buffer_min.h"

namespace AscendC {

inline void GetMeanMaxMinTmpSize(const uint32_t n, const uint32_t srcTypeSize, const uint32_t accTypeSize,
                                 const bool isReuseSource, uint32_t& maxSize, uint32_t& minSize) {
    (void)isReuseSource;
    const bool ok = n > 0 && ((srcTypeSize == 2 && (accTypeSize == 2 || accTypeSize == 4)) ||
                              (srcTypeSize == 4 && accTypeSize == 4));
    if (!ok) {
        std::fprintf(stderr, "tw_host: GetMeanMaxMinTmpSize: n %u, srcTypeSize %u, accTypeSize %u unsupported\n", n,
                     srcTypeSize, accTypeSize);
        if (srcTypeSize == 0) return;
    }
    maxSize = minSize = tw::mean_min_tmp(n, srcTypeSize, accTypeSize);
}

inline void GetMeanTmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount, uint32_t& extraBuffer) {
    (void)typeSize;
    maxLiveNodeCount = 1;
    extraBuffer = 0;
}

}  // namespace AscendC

namespace tw {
inline void glu_tmp_sizes(const ge::Shape& srcShape, uint32_t typeSize, uint32_t half_nodes, uint32_t& maxValue,
                          uint32_t& minValue) {
    const uint32_t n = static_cast<uint32_t>(srcShape.GetShapeSize());
    minValue = glu_min_tmp(typeSize, half_nodes);
    maxValue = glu_live_nodes(typeSize, half_nodes) * std::max(n * typeSize, 256u);
}
}  // namespace tw

namespace AscendC {

inline void GetSwiGLUMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                   uint32_t& minValue, const bool isReuseSource = false) {
    (void)isReuseSource;
    tw::glu_tmp_sizes(srcShape, typeSize, 6, maxValue, minValue);
}

inline void GetSwiGLUTmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount, uint32_t& extraBuffer) {
    maxLiveNodeCount = tw::glu_live_nodes(typeSize, 6);
    extraBuffer = 0;
}

inline void GetGeGLUMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                  uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    tw::glu_tmp_sizes(srcShape, typeSize, 4, maxValue, minValue);
}

inline void GetGeGLUTmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount, uint32_t& extraBuf) {
    maxLiveNodeCount = tw::glu_live_nodes(typeSize, 4);
    extraBuf = 0;
}

inline void GetReGluMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                  uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    const uint32_t n = static_cast<uint32_t>(srcShape.GetShapeSize());
    minValue = tw::reglu_min_tmp(typeSize);
    maxValue = std::max(typeSize == 4 ? 256u : n * 6 * typeSize, minValue);
}

inline void GetCumSumMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isLastAxis,
                                   const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    (void)isReuseSource;
    const int64_t outter = srcShape.GetDim(0), inner = srcShape.GetDim(1);
    if (srcShape.GetDimNum() != 2 || (typeSize != 2 && typeSize != 4) || inner <= 0 || inner * typeSize % 32 != 0) {
        std::fprintf(stderr, "tw_host: GetCumSumMaxMinTmpSize: needs [outter, inner] with a 32-byte inner axis and "
                     "typeSize 2 or 4\n");
        return;
    }
    minValue = tw::cumsum_min_tmp(uint32_t(inner), typeSize, isLastAxis, uint32_t(outter));
    if (!isLastAxis) {
        maxValue = minValue;
        return;
    }
    const uint32_t rows16 = uint32_t((outter + 15) / 16 * 16);
    maxValue = (typeSize == 2 ? uint32_t(inner) * rows16 * 2 : 0) + rows16 * uint32_t(inner) * typeSize * 2;
}

}  // namespace AscendC
