// tilewise host emulation: the SoftMax / SimpleSoftMax host tiling functions of AscendC's library (tiling_api.h).
//
//   GetSoftMaxMaxTmpSize(shape, typeSize, isReuseSource)  bytes of scratch for the fastest split: every row at once
//   GetSoftMaxMinTmpSize(shape, typeSize, isReuseSource)  bytes of scratch for one row at a time
//   SoftMaxTilingFunc(shape, typeSize, workSize, tiling)  fills the SoftMaxTiling (tw/tiling/softmax.h)
//
// The shape is read as [m, k]: k the last axis, m the product of the others. Scratch is counted in floats: a row
// needs its k elements, one 32-byte block of typeSize elements for its reduced value, and 64 more (the library's
// basic-block unit), so the maximum is m rows of that and the minimum one row, times 4 bytes. The tiling splits the
// rows into ranges of splitM = the rows the work space holds (at most m; a multiple of 8 when more than 8 and fewer
// than m), adjusted for basic blocks (m a multiple of 8 and k of 64: splitM a multiple of 8 dividing m, halved while
// splitM * k reaches 64 * 256). These formulas are the A2/A3 ones of the library's published tiling. Invalid input
// (a type size other than 2 or 4, an empty shape) is reported on stderr and gives 0 / an untouched tiling, as the
// library's host checks do.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "graph/shape.h"
#include "tw/tiling/softmax.h"

namespace tw_host {

constexpr uint32_t kSoftmaxBlock = 32;
constexpr uint32_t kSoftmaxBasicUnit = 64;    // the library's basic-block unit, in elements
constexpr uint32_t kSoftmaxBasicMinRows = 256;
constexpr uint32_t kSoftmaxRowsPerBlock = 8;  // floats in a 32-byte block

// [m, k] of a shape, or false (with a message) when the arguments are not usable.
inline bool softmax_mk(const ge::Shape& shape, uint32_t type_size, const char* api, uint32_t& m, uint32_t& k) {
    const std::vector<int64_t> dims = shape.GetDims();
    if (type_size != 2 && type_size != 4) {
        std::fprintf(stderr, "tw_host: %s: dataTypeSize %u, only half (2) or float (4) are supported\n", api, type_size);
        return false;
    }
    int64_t total = 1;
    for (int64_t d : dims) total *= d;
    if (dims.empty() || total <= 0 || dims.back() <= 0) {
        std::fprintf(stderr, "tw_host: %s: the source shape must have elements\n", api);
        return false;
    }
    k = static_cast<uint32_t>(dims.back());
    m = static_cast<uint32_t>(total / dims.back());
    if (uint64_t(k) * type_size % kSoftmaxBlock != 0)
        std::fprintf(stderr, "tw_host: %s: the last axis (%u elements of %u bytes) is not 32-byte aligned\n", api, k,
                     type_size);
    return true;
}

inline uint32_t softmax_row_floats(uint32_t k, uint32_t type_size) {
    return kSoftmaxBlock / type_size + k + kSoftmaxBasicUnit;
}

}  // namespace tw_host

namespace AscendC {

inline uint32_t GetSoftMaxMaxTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize, const bool isReuseSource) {
    (void)isReuseSource;  // reserved in the reference
    uint32_t m = 0, k = 0;
    if (!tw_host::softmax_mk(srcShape, dataTypeSize, "GetSoftMaxMaxTmpSize", m, k)) return 0;
    return m * tw_host::softmax_row_floats(k, dataTypeSize) * sizeof(float);
}

inline uint32_t GetSoftMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize, const bool isReuseSource) {
    (void)isReuseSource;
    uint32_t m = 0, k = 0;
    if (!tw_host::softmax_mk(srcShape, dataTypeSize, "GetSoftMaxMinTmpSize", m, k)) return 0;
    return tw_host::softmax_row_floats(k, dataTypeSize) * sizeof(float);
}

inline void SoftMaxTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                              const uint32_t localWorkSpaceSize, optiling::SoftMaxTiling& softmaxTiling) {
    using namespace tw_host;
    uint32_t m = 0, k = 0;
    if (!softmax_mk(srcShape, dataTypeSize, "SoftMaxTilingFunc", m, k)) return;
    const uint32_t blk = kSoftmaxBlock / dataTypeSize;
    uint32_t split = std::min(localWorkSpaceSize / uint32_t(sizeof(float)) / softmax_row_floats(k, dataTypeSize), m);
    if (split == 0)
        std::fprintf(stderr, "tw_host: SoftMaxTilingFunc: a work space of %u bytes holds no row (GetSoftMaxMinTmpSize "
                     "gives the least)\n", localWorkSpaceSize);
    if (split < m && split > kSoftmaxRowsPerBlock) split = split / kSoftmaxRowsPerBlock * kSoftmaxRowsPerBlock;
    if (split > kSoftmaxRowsPerBlock && m % kSoftmaxRowsPerBlock == 0 && k % kSoftmaxBasicUnit == 0) {
        split = split / kSoftmaxRowsPerBlock * kSoftmaxRowsPerBlock;  // basic blocks: whole groups of 8 rows
        while (m % split != 0) split -= kSoftmaxRowsPerBlock;         // ... that divide the rows
        while (split * k >= kSoftmaxBasicUnit * kSoftmaxBasicMinRows) split /= 2;  // a repeat count the ISA takes
    }
    softmaxTiling.set_srcM(m);
    softmaxTiling.set_srcK(k);
    softmaxTiling.set_srcSize(m * k);
    softmaxTiling.set_outMaxM(m);
    softmaxTiling.set_outMaxK(blk);
    softmaxTiling.set_outMaxSize(m * blk);
    softmaxTiling.set_splitM(split);
    softmaxTiling.set_splitK(k);
    softmaxTiling.set_splitSize(split * k);
    softmaxTiling.set_reduceM(split);
    softmaxTiling.set_reduceK(blk);
    softmaxTiling.set_reduceSize(split * blk);
    const uint32_t tail = split != 0 ? m % split : 0;
    if (split != 0) softmaxTiling.set_rangeM(m / split);
    softmaxTiling.set_tailM(tail);
    softmaxTiling.set_tailSplitSize(tail * k);
    softmaxTiling.set_tailReduceSize(tail * blk);
}

}  // namespace AscendC
