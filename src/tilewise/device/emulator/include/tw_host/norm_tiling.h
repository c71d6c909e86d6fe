// tilewise host emulation: the RmsNorm and LayerNorm host tiling functions of AscendC's library (tiling_api.h),
// with the A2/A3 formulas of the library's published tiling (RmsNorm-Tiling.md / LayerNorm-Tiling.md give the
// signatures and the struct fields; the sizes below are the library's):
//
//   GetRmsNormMaxMinTmpSize(shape [B, S, H], typeSize, max, min[, isBasicBlock])
//       in floats: max = B*S*H (twice for half) + B*S rounded up to a 32-byte block of typeSize elements;
//       min = H (twice for half) + 8; times 4 bytes. false for a basic block with an unsuitable shape.
//   GetRmsNormTilingInfo(shape, originShape, stackBufferByteSize, typeSize, tiling[, isBasicBlock])
//       false when the shapes disagree, H is not 32-byte aligned, the basic-block shape is wrong or the buffer is
//       below the minimum; the main block is the most rows whose H (twice for half) plus their block-aligned reduce
//       values fit the buffer, at most 255 rows (a multiple of 8 for basic blocks).
//   GetLayerNormMaxMinTmpSize(shape [B, S, H, originH], typeSize, isReuseSource, max, min)
//       max = 3 (2 reusing a float source) x the 32-byte aligned B*S*H floats + 2 x the aligned B*S floats;
//       min the same with one row (H) in place of B*S*H.
//   GetLayerNormMaxMinTmpSize(shape [A, R], typeSize, isReuseSource, isComputeRstd, isOnlyOutput, max, min)
//       the rstd form: 2 x the aligned A*Rpad floats (min: Rpad) + the aligned A floats, raised to Normalize's
//       needs (max 2 Rpad + 2 A8*Rpad floats, A8 = A rounded up to 8; min the larger of A and 2 Rpad floats).
//   GetLayerNormNDTilingInfo / GetLayerNormNDTillingInfo (deprecated spelling) for either struct: the split of the
//       buffer into its temporary tensors and the rows per round; a buffer too small for one row leaves the tiling
//       untouched (the kernel then reports the unfilled tiling).
#pragma once
#include <cstdint>
#include <cstdio>
#include <vector>

#include "graph/shape.h"
#include "tw/tiling/norm.h"

namespace tw_host {

inline uint32_t norm_align(uint32_t v, uint32_t unit) { return (v + unit - 1) / unit * unit; }

inline bool norm_dims(const ge::Shape& shape, size_t n, const char* api, std::vector<uint32_t>& out) {
    const std::vector<int64_t> d = shape.GetDims();
    if (d.size() < n) {
        std::fprintf(stderr, "tw_host: %s: the shape has %zu dims, %zu expected\n", api, d.size(), n);
        return false;
    }
    out.clear();
    for (int64_t v : d) {
        if (v <= 0) {
            std::fprintf(stderr, "tw_host: %s: the shape has a non-positive dim\n", api);
            return false;
        }
        out.push_back(static_cast<uint32_t>(v));
    }
    return true;
}

inline bool norm_type_ok(uint32_t type_size, const char* api) {
    if (type_size == 2 || type_size == 4) return true;
    std::fprintf(stderr, "tw_host: %s: typeSize %u, only half (2) or float (4) are supported\n", api, type_size);
    return false;
}

inline bool rmsnorm_basic_bad(uint32_t bs, uint32_t h) { return h % 64 != 0 || bs % 8 != 0 || h >= 2048; }

inline uint32_t rmsnorm_min(uint32_t h, uint32_t type_size) { return (h * (type_size == 2 ? 2 : 1) + 8) * 4; }

inline uint32_t layernorm_bsh_min(uint32_t bs, uint32_t h, uint32_t type_size, bool reuse) {
    return (reuse && type_size == 4 ? 2 : 3) * norm_align(h * 4, 32) + 2 * norm_align(bs * 4, 32);
}

}  // namespace tw_host

namespace AscendC {

inline bool GetRmsNormMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                    uint32_t& minValue, const bool isBasicBlock = false) {
    std::vector<uint32_t> d;
    if (!tw_host::norm_dims(srcShape, 3, "GetRmsNormMaxMinTmpSize", d)) return false;
    const uint32_t bs = d[0] * d[1], h = d[2];
    if (isBasicBlock && tw_host::rmsnorm_basic_bad(bs, h)) return false;
    const uint32_t coeff = typeSize == 2 ? 2 : 1;
    maxValue = (bs * h * coeff + tw_host::norm_align(bs, typeSize == 0 ? 1 : 32 / typeSize)) * 4;
    minValue = tw_host::rmsnorm_min(h, typeSize);
    return true;
}

inline bool GetRmsNormTilingInfo(const ge::Shape& srcShape, const ge::Shape& originSrcShape,
                                 const uint32_t stackBufferByteSize, const uint32_t typeSize,
                                 optiling::RmsNormTiling& tiling, const bool isBasicBlock = false) {
    std::vector<uint32_t> d, o;
    if (!tw_host::norm_dims(srcShape, 3, "GetRmsNormTilingInfo", d) ||
        !tw_host::norm_dims(originSrcShape, 3, "GetRmsNormTilingInfo", o) || d.size() != 3 || o.size() != 3)
        return false;
    const uint32_t b = d[0], s = d[1], h = d[2];
    if (b != o[0] || s != o[1] || h < o[2] || h * typeSize % 32 != 0) return false;
    if (isBasicBlock && tw_host::rmsnorm_basic_bad(b * s, h)) return false;
    if (stackBufferByteSize < tw_host::rmsnorm_min(h, typeSize)) return false;
    tiling.set_bLength(b);
    tiling.set_sLength(s);
    tiling.set_hLength(h);
    tiling.set_originalHLength(o[2]);
    tiling.set_reciprocalOfHLength(1.0f / static_cast<float>(o[2]));
    const uint32_t floats = stackBufferByteSize / 4, coeff = typeSize == 4 ? 1 : 2, total = b * s * h;
    uint32_t rows = 1;
    while (floats >= (rows + 1) * h * coeff + tw_host::norm_align(rows + 1, 8)) ++rows;
    uint32_t main = rows * h < total ? rows * h : total;
    rows = main / h;
    if (isBasicBlock) rows = rows < 8 ? rows : rows / 8 * 8;
    else if (rows > 255) rows = 255;
    main = rows * h;
    tiling.set_mainBshLength(main);
    tiling.set_mainBsLength(rows);
    tiling.set_mainBsLengthAlign(tw_host::norm_align(rows, 8));
    tiling.set_loopRound(total / main);
    const uint32_t tail = total % main;
    tiling.set_tailBshLength(tail);
    tiling.set_inputTailPos(total - tail);
    tiling.set_tailBsLength(tail / h);
    return true;
}

inline void GetLayerNormMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                      uint32_t& maxValue, uint32_t& minValue) {
    std::vector<uint32_t> d;
    if (!tw_host::norm_dims(srcShape, 3, "GetLayerNormMaxMinTmpSize", d) ||
        !tw_host::norm_type_ok(typeSize, "GetLayerNormMaxMinTmpSize"))
        return;
    const uint32_t bs = d[0] * d[1], h = d[2], n = isReuseSource && typeSize == 4 ? 2 : 3;
    maxValue = n * tw_host::norm_align(bs * h * 4, 32) + 2 * tw_host::norm_align(bs * 4, 32);
    minValue = tw_host::layernorm_bsh_min(bs, h, typeSize, isReuseSource);
}

inline void GetLayerNormMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                      const bool isComputeRstd, const bool isOnlyOutput, uint32_t& maxValue,
                                      uint32_t& minValue) {
    (void)isReuseSource;
    (void)isComputeRstd;
    std::vector<uint32_t> d;
    if (isOnlyOutput) {
        std::fprintf(stderr, "tw_host: GetLayerNormMaxMinTmpSize: isOnlyOutput supports false only\n");
        return;
    }
    if (!tw_host::norm_dims(srcShape, 2, "GetLayerNormMaxMinTmpSize", d) ||
        !tw_host::norm_type_ok(typeSize, "GetLayerNormMaxMinTmpSize"))
        return;
    const uint32_t a = d[0], rp = tw_host::norm_align(d[1], 32 / typeSize);
    const uint32_t mv = tw_host::norm_align(a * 4, 32), row = tw_host::norm_align(rp * 4, 32);
    maxValue = 2 * tw_host::norm_align(a * rp * 4, 32) + mv;
    minValue = 2 * row + mv;
    // Normalize, which the rstd form runs, needs 2 R + 2 A8 R floats at most and max(A, 2 R (4 R for 16-bit
    // gamma)) at least; gamma's type is taken as inputX's here, as the library's call does
    const uint32_t norm_max = 2 * row + 2 * tw_host::norm_align(tw_host::norm_align(a, 8) * rp * 4, 32);
    const uint32_t nr = (typeSize == 4 ? 2 : 4) * row;
    const uint32_t norm_min = mv >= nr ? mv : nr;
    if (minValue - mv <= norm_min) minValue = norm_min + mv;
    if (maxValue - mv <= norm_max) maxValue = norm_max + mv;
}

inline void GetLayerNormNDTilingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize,
                                     const uint32_t typeSize, const bool isReuseSource,
                                     optiling::LayerNormTiling& tiling) {
    std::vector<uint32_t> d;
    if (!tw_host::norm_dims(srcShape, 4, "GetLayerNormNDTilingInfo", d) ||
        !tw_host::norm_type_ok(typeSize, "GetLayerNormNDTilingInfo"))
        return;
    const uint32_t b = d[0], s = d[1], h = d[2], oh = d[3], x_size = b * s * h, mv_size = b * s;
    const uint32_t nbuf = isReuseSource && typeSize == 4 ? 2 : 3;
    const uint32_t mv_tmp = tw_host::norm_align(mv_size, 8);
    const uint32_t mv_total = typeSize == 4 ? 0 : 2 * mv_tmp;
    const uint32_t floats = stackBufferSize / 4;
    if (floats < mv_total) return;
    uint32_t one = (floats - mv_total) / nbuf / h * h;
    if (one > x_size) one = x_size;
    if (one == 0) return;
    tiling.set_bLength(b);
    tiling.set_sLength(s);
    tiling.set_hLength(h);
    tiling.set_originalHLength(oh);
    tiling.set_inputXSize(x_size);
    tiling.set_meanVarSize(mv_size);
    tiling.set_numberOfTmpBuf(nbuf);
    tiling.set_meanTmpTensorPos(0);
    tiling.set_meanTmpTensorSize(mv_tmp);
    tiling.set_varianceTmpTensorPos(mv_tmp);
    tiling.set_varianceTmpTensorSize(mv_tmp);
    tiling.set_tmpBufSize(floats);
    tiling.set_oneTmpSize(one);
    tiling.set_firstTmpStartPos(mv_total);
    tiling.set_secondTmpStartPos(mv_total + one);
    tiling.set_thirdTmpStartPos(mv_total + 2 * one);
    tiling.set_loopRound(x_size / one);
    tiling.set_inputRoundSize(one);
    tiling.set_inputTailSize(x_size % one);
    tiling.set_inputTailPos(x_size - x_size % one);
    tiling.set_meanVarRoundSize(one / h);
    tiling.set_meanVarTailSize(x_size % one / h);
    tiling.set_meanVarTailPos(mv_size - x_size % one / h);
    tiling.set_bshCurLength(one);
    tiling.set_bsCurLength(one / h);
    tiling.set_lastDimValueBack(1.0f / static_cast<float>(oh));
}

inline void GetLayerNormNDTillingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize,
                                      const uint32_t typeSize, const bool isReuseSource,
                                      optiling::LayerNormTiling& tilling) {
    GetLayerNormNDTilingInfo(srcShape, stackBufferSize, typeSize, isReuseSource, tilling);
}

inline void GetLayerNormNDTilingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize,
                                     const uint32_t typeSize, const bool isReuseSource, const bool isComputeRstd,
                                     optiling::LayerNormSeparateTiling& tiling) {
    (void)isReuseSource;
    (void)isComputeRstd;
    std::vector<uint32_t> d;
    if (!tw_host::norm_dims(srcShape, 2, "GetLayerNormNDTilingInfo", d) ||
        !tw_host::norm_type_ok(typeSize, "GetLayerNormNDTilingInfo"))
        return;
    const uint32_t a = d[0], r = d[1], rp = tw_host::norm_align(r, 32 / typeSize), x_size = a * rp;
    const uint32_t var_tmp = tw_host::norm_align(a, 8), floats = stackBufferSize / 4;
    if (floats < var_tmp) return;
    uint32_t one = (floats - var_tmp) / 2 / rp * rp;
    if (one > x_size) one = x_size;
    if (one == 0) return;
    tiling.set_aLength(a);
    tiling.set_rLength(r);
    tiling.set_inputXSize(x_size);
    tiling.set_meanVarSize(a);
    tiling.set_numberOfTmpBuf(2);
    tiling.set_varianceTmpTensorPos(0);
    tiling.set_varianceTmpTensorSize(var_tmp);
    tiling.set_tmpBufSize(floats);
    tiling.set_oneTmpSize(one);
    tiling.set_firstTmpStartPos(var_tmp);
    tiling.set_secondTmpStartPos(var_tmp + one);
    tiling.set_loopRound(x_size / one);
    tiling.set_inputRoundSize(one);
    tiling.set_inputTailSize(x_size % one);
    tiling.set_inputTailPos(x_size - x_size % one);
    tiling.set_meanVarRoundSize(one / rp);
    tiling.set_meanVarTailSize(x_size % one / rp);
    tiling.set_meanVarTailPos(a - x_size % one / rp);
    tiling.set_arCurLength(one);
    tiling.set_aCurLength(one / rp);
    tiling.set_rValueBack(1.0f / static_cast<float>(r));
}

}  // namespace AscendC
