// The SoftMax high-level API (ND format), written from the Ascend C API reference:
//
//   SoftMax(dst, sum, max, src[, sharedTmpBuffer], tiling[, shapeInfo])  per row of [m, k]:
//       max = max(src row), sum = sum(exp(src - max)), dst = exp(src - max) / sum
//   SoftMax(dst, src[, sharedTmpBuffer], tiling[, shapeInfo])            the same without the sum/max outputs
//   SimpleSoftMax(dst, inSum, inMax, src[, sharedTmpBuffer], tiling[, shapeInfo])
//       dst = exp(src - inMax) / inSum with the caller's row max and sum
//
// sum and max hold one 32-byte block per row, every element of it the row's value (8 floats or 16 halves). The
// shape is shapeInfo's when it is given (srcM rows of srcK elements, the reductions over the first oriSrcK), else the
// tiling's srcM x srcK. Rows are computed in float and rounded once (half inputs are cast up, as the library does on
// A2). The sum/max type may differ from the data type (the reference's <T1, T2> forms: half data, float sum/max).
// The data format NZ is not modelled: isDataFormatNZ = true is reported as unsupported.
//
// Cost: the trace records the reference's steps per call (ReduceMax, Brcb, Sub, Exp, ReduceSum, Brcb, Div; with
// Casts around them for half data) over the m x k elements, so the timing model costs them on the vector pipe.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tw/tiling/softmax.h"
#include "tw/api/vector/arith.h"

namespace tw {

struct SoftmaxShape {
    uint64_t m, k, valid_k;
};

inline SoftmaxShape softmax_shape(const ::optiling::SoftMaxTiling& t, const AscendC::SoftMaxShapeInfo& s,
                                  const char* name, const char* file, int line) {
    SoftmaxShape r{s.srcM, s.srcK, s.oriSrcK};
    if (r.m == 0 || r.k == 0) r = SoftmaxShape{t.srcM, t.srcK, t.srcK};
    if (r.valid_k == 0 || r.valid_k > r.k) r.valid_k = r.k;
    if (r.m == 0 || r.k == 0)
        fail("invalid_param", std::string(name) + ": neither the shape info nor the tiling gives a shape (srcM x srcK "
             "is 0; was the tiling filled by SoftMaxTilingFunc?)", file, line);
    return r;
}

// mode 0: SoftMax with sum/max outputs; 1: SoftMax without them; 2: SimpleSoftMax (sum/max are inputs).
template <typename T1, typename T2, bool nz>
inline void softmax_rows(const AscendC::LocalTensor<T1>& dst, const AscendC::LocalTensor<T2>* sum,
                         const AscendC::LocalTensor<T2>* max, const AscendC::LocalTensor<T1>& src,
                         const ::optiling::SoftMaxTiling& tiling, const AscendC::SoftMaxShapeInfo& info, int mode,
                         const char* name, const char* file, int line) {
    if (nz) fail("unsupported", std::string(name) + " with isDataFormatNZ: the emulator models the ND format only",
                 file, line);
    const SoftmaxShape s = softmax_shape(tiling, info, name, file, line);
    const uint64_t n = s.m * s.k, blk = 32 / sizeof(T2);
    const T1* x = src.span(0, n, name, file, line);
    T1* d = dst.span(0, n, name, file, line);
    T2* sm = sum ? sum->span(0, s.m * blk, name, file, line) : nullptr;
    T2* mx = max ? max->span(0, s.m * blk, name, file, line) : nullptr;
    std::vector<float> row(s.k);
    std::vector<T1> out(n);  // src and dst may be the same tensor
    for (uint64_t r = 0; r < s.m; ++r) {
        const T1* xr = x + r * s.k;
        for (uint64_t j = 0; j < s.k; ++j) row[j] = static_cast<float>(to_c<T1>(xr[j]));
        float rmax, rsum;
        if (mode == 2) {
            rmax = static_cast<float>(to_c<T2>(mx[r * blk]));
            rsum = static_cast<float>(to_c<T2>(sm[r * blk]));
        } else {
            rmax = row[0];
            for (uint64_t j = 1; j < s.valid_k; ++j) rmax = row[j] > rmax ? row[j] : rmax;
            rsum = 0.0f;
            for (uint64_t j = 0; j < s.valid_k; ++j) rsum += std::exp(row[j] - rmax);
        }
        for (uint64_t j = 0; j < s.k; ++j) out[r * s.k + j] = from_c<T1>(std::exp(row[j] - rmax) / rsum);
        if (mode == 0) {
            for (uint64_t j = 0; j < blk; ++j) {
                sm[r * blk + j] = from_c<T2>(static_cast<calc_t<T2>>(rsum));
                mx[r * blk + j] = from_c<T2>(static_cast<calc_t<T2>>(rmax));
            }
        }
    }
    for (uint64_t i = 0; i < n; ++i) d[i] = out[i];
    const bool half_data = sizeof(T1) == 2;
    if (half_data) vrec_count<T1>("Cast", file, line, n);
    if (mode != 2) {
        vrec_count<float>("ReduceMax", file, line, n);
        vrec_count<float>("Brcb", file, line, s.m * 8);
    }
    vrec_count<float>("Sub", file, line, n);
    vrec_count<float>("Exp", file, line, n);
    if (mode != 2) {
        vrec_count<float>("ReduceSum", file, line, n);
        vrec_count<float>("Brcb", file, line, s.m * 8);
    }
    vrec_count<float>("Div", file, line, n);
    if (half_data) vrec_count<float>("Cast", file, line, n);
}

}  // namespace tw

namespace AscendC {

// Same data and sum/max type.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
             const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = {}, TW_SRC) {
    tw::softmax_rows<T, T, isDataFormatNZ>(dstTensor, &sumTensor, &maxTensor, srcTensor, tiling, softmaxShapeInfo, 0,
                                           "SoftMax", TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
        const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG), SoftMax, (T, isReuseSource, isBasicBlock, isDataFormatNZ,
        config), (const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
        const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo),
        (dstTensor, sumTensor, maxTensor, srcTensor, tiling, softmaxShapeInfo), )
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
             const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = {}, TW_SRC) {
    (void)sharedTmpBuffer;  // scratch for the library's intermediate rows; the emulator needs none
    tw::softmax_rows<T, T, isDataFormatNZ>(dstTensor, &sumTensor, &maxTensor, srcTensor, tiling, softmaxShapeInfo, 0,
                                           "SoftMax", TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
        const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG), SoftMax, (T, isReuseSource, isBasicBlock, isDataFormatNZ,
        config), (const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
        const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
        const SoftMaxShapeInfo& softmaxShapeInfo), (dstTensor, sumTensor, maxTensor, srcTensor, sharedTmpBuffer,
        tiling, softmaxShapeInfo), )

// Data of type T1, sum/max of type T2.
template <typename T1, typename T2, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T1>& dstTensor, const LocalTensor<T2>& sumTensor, const LocalTensor<T2>& maxTensor,
             const LocalTensor<T1>& srcTensor, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = {}, TW_SRC) {
    tw::softmax_rows<T1, T2, isDataFormatNZ>(dstTensor, &sumTensor, &maxTensor, srcTensor, tiling, softmaxShapeInfo,
                                             0, "SoftMax", TW_AT);
}
TW_TWIN_M(, void, (typename T1, typename T2, bool isReuseSource = false, bool isBasicBlock = false,
        bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG), SoftMax, (T1, T2,
        isReuseSource, isBasicBlock, isDataFormatNZ, config), (const LocalTensor<T1>& dstTensor,
        const LocalTensor<T2>& sumTensor, const LocalTensor<T2>& maxTensor, const LocalTensor<T1>& srcTensor,
        const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo), (dstTensor, sumTensor, maxTensor,
        srcTensor, tiling, softmaxShapeInfo), )
template <typename T1, typename T2, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T1>& dstTensor, const LocalTensor<T2>& sumTensor, const LocalTensor<T2>& maxTensor,
             const LocalTensor<T1>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
             const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}, TW_SRC) {
    (void)sharedTmpBuffer;
    tw::softmax_rows<T1, T2, isDataFormatNZ>(dstTensor, &sumTensor, &maxTensor, srcTensor, tiling, softmaxShapeInfo,
                                             0, "SoftMax", TW_AT);
}
TW_TWIN_M(, void, (typename T1, typename T2, bool isReuseSource = false, bool isBasicBlock = false,
        bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG), SoftMax, (T1, T2,
        isReuseSource, isBasicBlock, isDataFormatNZ, config), (const LocalTensor<T1>& dstTensor,
        const LocalTensor<T2>& sumTensor, const LocalTensor<T2>& maxTensor, const LocalTensor<T1>& srcTensor,
        const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
        const SoftMaxShapeInfo& softmaxShapeInfo), (dstTensor, sumTensor, maxTensor, srcTensor, sharedTmpBuffer,
        tiling, softmaxShapeInfo), )

// Without the sum/max outputs.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = {}, TW_SRC) {
    tw::softmax_rows<T, T, isDataFormatNZ>(dstTensor, nullptr, nullptr, srcTensor, tiling, softmaxShapeInfo, 1,
                                           "SoftMax", TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
        const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG), SoftMax, (T, isReuseSource, isBasicBlock, isDataFormatNZ,
        config), (const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
        const SoftMaxShapeInfo& softmaxShapeInfo), (dstTensor, srcTensor, tiling, softmaxShapeInfo), )
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
             const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
             const SoftMaxShapeInfo& softmaxShapeInfo = {}, TW_SRC) {
    (void)sharedTmpBuffer;
    tw::softmax_rows<T, T, isDataFormatNZ>(dstTensor, nullptr, nullptr, srcTensor, tiling, softmaxShapeInfo, 1,
                                           "SoftMax", TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
        const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG), SoftMax, (T, isReuseSource, isBasicBlock, isDataFormatNZ,
        config), (const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
        const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
        const SoftMaxShapeInfo& softmaxShapeInfo), (dstTensor, srcTensor, sharedTmpBuffer, tiling, softmaxShapeInfo),
        )

// SimpleSoftMax: the row max and sum come in.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SimpleSoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& inSumTensor,
                   const LocalTensor<T>& inMaxTensor, const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
                   const SoftMaxShapeInfo& softmaxShapeInfo = {}, TW_SRC) {
    tw::softmax_rows<T, T, isDataFormatNZ>(dstTensor, &inSumTensor, &inMaxTensor, srcTensor, tiling,
                                           softmaxShapeInfo, 2, "SimpleSoftMax", TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
        const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG), SimpleSoftMax, (T, isReuseSource, isBasicBlock,
        isDataFormatNZ, config), (const LocalTensor<T>& dstTensor, const LocalTensor<T>& inSumTensor,
        const LocalTensor<T>& inMaxTensor, const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
        const SoftMaxShapeInfo& softmaxShapeInfo), (dstTensor, inSumTensor, inMaxTensor, srcTensor, tiling,
        softmaxShapeInfo), )
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SimpleSoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& inSumTensor,
                   const LocalTensor<T>& inMaxTensor, const LocalTensor<T>& srcTensor,
                   const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                   const SoftMaxShapeInfo& softmaxShapeInfo = {}, TW_SRC) {
    (void)sharedTmpBuffer;
    tw::softmax_rows<T, T, isDataFormatNZ>(dstTensor, &inSumTensor, &inMaxTensor, srcTensor, tiling,
                                           softmaxShapeInfo, 2, "SimpleSoftMax", TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
        const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG), SimpleSoftMax, (T, isReuseSource, isBasicBlock,
        isDataFormatNZ, config), (const LocalTensor<T>& dstTensor, const LocalTensor<T>& inSumTensor,
        const LocalTensor<T>& inMaxTensor, const LocalTensor<T>& srcTensor,
        const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
        const SoftMaxShapeInfo& softmaxShapeInfo), (dstTensor, inSumTensor, inMaxTensor, srcTensor, sharedTmpBuffer,
        tiling, softmaxShapeInfo), )
template <typename T1, typename T2, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SimpleSoftMax(const LocalTensor<T1>& dstTensor, const LocalTensor<T2>& inSumTensor,
                   const LocalTensor<T2>& inMaxTensor, const LocalTensor<T1>& srcTensor, const SoftMaxTiling& tiling,
                   const SoftMaxShapeInfo& softmaxShapeInfo = {}, TW_SRC) {
    tw::softmax_rows<T1, T2, isDataFormatNZ>(dstTensor, &inSumTensor, &inMaxTensor, srcTensor, tiling,
                                             softmaxShapeInfo, 2, "SimpleSoftMax", TW_AT);
}
TW_TWIN_M(, void, (typename T1, typename T2, bool isReuseSource = false, bool isBasicBlock = false,
        bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG), SimpleSoftMax, (T1, T2,
        isReuseSource, isBasicBlock, isDataFormatNZ, config), (const LocalTensor<T1>& dstTensor,
        const LocalTensor<T2>& inSumTensor, const LocalTensor<T2>& inMaxTensor, const LocalTensor<T1>& srcTensor,
        const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo), (dstTensor, inSumTensor, inMaxTensor,
        srcTensor, tiling, softmaxShapeInfo), )
template <typename T1, typename T2, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SimpleSoftMax(const LocalTensor<T1>& dstTensor, const LocalTensor<T2>& inSumTensor,
                   const LocalTensor<T2>& inMaxTensor, const LocalTensor<T1>& srcTensor,
                   const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                   const SoftMaxShapeInfo& softmaxShapeInfo = {}, TW_SRC) {
    (void)sharedTmpBuffer;
    tw::softmax_rows<T1, T2, isDataFormatNZ>(dstTensor, &inSumTensor, &inMaxTensor, srcTensor, tiling,
                                             softmaxShapeInfo, 2, "SimpleSoftMax", TW_AT);
}
TW_TWIN_M(, void, (typename T1, typename T2, bool isReuseSource = false, bool isBasicBlock = false,
        bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG), SimpleSoftMax, (T1, T2,
        isReuseSource, isBasicBlock, isDataFormatNZ, config), (const LocalTensor<T1>& dstTensor,
        const LocalTensor<T2>& inSumTensor, const LocalTensor<T2>& inMaxTensor, const LocalTensor<T1>& srcTensor,
        const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
        const SoftMaxShapeInfo& softmaxShapeInfo), (dstTensor, inSumTensor, inMaxTensor, srcTensor, sharedTmpBuffer,
        tiling, softmaxShapeInfo), )

}  // namespace AscendC
