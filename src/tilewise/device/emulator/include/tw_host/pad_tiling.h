// tilewise host emulation: the Pad / UnPad host tiling functions of AscendC's library (Pad-Tiling.md,
// UnPad-Tiling.md give the signatures; the sizes are the library's A2 formulas):
//
//   GetPadMaxMinTmpSize(shape [h, w], typeSize, max, min)
//       min = 16 x (32 / typeSize) x 2 x typeSize bytes (1024); max the same per 16 elements of h x w, rounded up.
//   PadTilingFunc(shape, oriShape, stackBufferSize, typeSize, tiling)
//       the shape fields, the 255-row height split, and (for a non-zero buffer) the split of the buffer into two
//       halves of 16-row blocks and the width / Brcb splits derived from it.
//   GetUnPadMaxMinTmpSize(platform, shape, typeSize, max, min)    0 and 0 on the A2 / A3 (no scratch), else as Pad
//   UnPadTilingFunc(shape, stackBufferSize, typeSize, tiling)      the shape, buffer and width splits
//
// A shape that is not 2-D or a type size other than 2 or 4 is reported on stderr, as the library's host checks do.
#pragma once
#include <cstdint>
#include <cstdio>
#include <vector>

#include "graph/shape.h"
#include "tiling/platform/platform_ascendc.h"
#include "tw/tiling/pad.h"

namespace tw_host {

constexpr uint32_t kPadRows = 16;  // the 16-address lists of the library's transposes
constexpr uint32_t kPadBlock = 32;

inline bool pad_args(const ge::Shape& shape, uint32_t type_size, const char* api, uint32_t& h, uint32_t& w) {
    const std::vector<int64_t> d = shape.GetDims();
    if ((type_size != 2 && type_size != 4) || d.size() != 2 || d[0] <= 0 || d[1] <= 0) {
        std::fprintf(stderr, "tw_host: %s: needs a 2-D shape and typeSize 2 or 4 (got %zu dims, typeSize %u)\n", api,
                     d.size(), type_size);
        return false;
    }
    h = static_cast<uint32_t>(d[0]);
    w = static_cast<uint32_t>(d[1]);
    return true;
}

inline void pad_tmp_sizes(uint32_t h, uint32_t w, uint32_t type_size, uint32_t& max, uint32_t& min) {
    min = kPadRows * (kPadBlock / type_size) * 2 * type_size;
    max = ((h * w - 1) / kPadRows + 1) * min;
}

}  // namespace tw_host

namespace AscendC {

inline void GetPadMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                uint32_t& minValue) {
    uint32_t h = 0, w = 0;
    if (!tw_host::pad_args(srcShape, typeSize, "GetPadMaxMinTmpSize", h, w)) return;
    tw_host::pad_tmp_sizes(h, w, typeSize, maxValue, minValue);
}

inline void PadTilingFunc(const ge::Shape srcShape, const ge::Shape oriSrcShape, const uint32_t stackBufferSize,
                          const uint32_t typeSize, optiling::PadTiling& tiling) {
    uint32_t h = 0, w = 0, oh = 0, ow = 0;
    if (!tw_host::pad_args(srcShape, typeSize, "PadTilingFunc", h, w) ||
        !tw_host::pad_args(oriSrcShape, typeSize, "PadTilingFunc", oh, ow))
        return;
    if (uint64_t(oh) * ow > uint64_t(h) * w)
        std::fprintf(stderr, "tw_host: PadTilingFunc: oriSrcShape is larger than srcShape\n");
    const uint32_t blk = tw_host::kPadBlock / typeSize;
    tiling.set_srcHeight(h);
    tiling.set_srcWidth(w);
    tiling.set_srcOriWidth(ow);
    tiling.set_widthWithoutLastBlock(w - blk);
    tiling.set_blocksPerRow(w * typeSize / tw_host::kPadBlock);
    tiling.set_heightTiling(255);
    tiling.set_heightFractal(h / 255);
    tiling.set_heightFractalTail(h % 255);
    tiling.set_mainLoopOffset(255 * w);
    tiling.set_tailBlockOffset(h / 255 * 255 * w + (w - blk));
    if (stackBufferSize == 0) return;
    const uint32_t base = tw_host::kPadRows * tw_host::kPadBlock / typeSize;  // elements of a 16-block unit
    const uint32_t blocks = stackBufferSize / typeSize / base / 2;
    const uint32_t width_tiling = tw_host::kPadRows * blocks;
    tiling.set_tmpBuffer1RowNum(width_tiling);
    tiling.set_tmpBuffer1BlockNum(blocks);
    tiling.set_tmpBuffer2Offset(blocks * base);
    if (width_tiling == 0) return;
    const uint32_t wtail = w % width_tiling;
    tiling.set_widthTiling(width_tiling);
    tiling.set_widthFractal(w / width_tiling);
    tiling.set_widthFractalTail(wtail);
    tiling.set_widthFractalTailAlingned(wtail == 0 ? 0 : ((wtail - 1) / blk + 1) * blk);
    const uint32_t total = h * w, bf_tail = total % width_tiling;
    tiling.set_brcbTiling(width_tiling);
    tiling.set_brcbFractal(total / width_tiling);
    tiling.set_brcbFractalTail(bf_tail);
    const uint32_t max_rep = 254;  // 255 x 8 elements is not 32-byte aligned
    tiling.set_maxRepeatTimes(max_rep);
    tiling.set_brcbTilingRepeatTimes(width_tiling / 8 / max_rep);
    tiling.set_brcbTilingRepeatTimesTail(width_tiling / 8 % max_rep);
    tiling.set_brcbFractalTailRepeatTimes(bf_tail / 8 / max_rep);
    tiling.set_brcbFractalTailRepeatTimesTail(bf_tail / 8 % max_rep);
}

inline void GetUnPadMaxMinTmpSize(const platform_ascendc::PlatformAscendC& ascendcPlatform, const ge::Shape& srcShape,
                                  const uint32_t typeSize, uint32_t& maxValue, uint32_t& minValue) {
    uint32_t h = 0, w = 0;
    if (!tw_host::pad_args(srcShape, typeSize, "GetUnPadMaxMinTmpSize", h, w)) return;
    const auto soc = ascendcPlatform.GetSocVersion();
    if (soc == platform_ascendc::SocVersion::ASCEND910B || soc == platform_ascendc::SocVersion::ASCEND910_93 ||
        soc == platform_ascendc::SocVersion::ASCEND910_95) {
        maxValue = 0;
        minValue = 0;
        return;
    }
    tw_host::pad_tmp_sizes(h, w, typeSize, maxValue, minValue);
}

inline void UnPadTilingFunc(const ge::Shape srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                            optiling::UnPadTiling& tiling) {
    uint32_t h = 0, w = 0;
    if (!tw_host::pad_args(srcShape, typeSize, "UnPadTilingFunc", h, w)) return;
    tiling.set_srcHeight(h);
    tiling.set_srcWidth(w);
    if (stackBufferSize == 0) return;
    const uint32_t base = tw_host::kPadRows * tw_host::kPadBlock / typeSize;
    const uint32_t blocks = stackBufferSize / typeSize / base / 2;
    const uint32_t width_tiling = tw_host::kPadRows * blocks;
    tiling.set_tmpBuffer1BlockNum(blocks);
    tiling.set_tmpBuffer1RowNum(width_tiling);
    tiling.set_tmpBuffer2Offset(blocks * base);
    if (width_tiling == 0) return;
    uint32_t fractal = w / width_tiling, tail = w % width_tiling;
    if (tail != 0) ++fractal;
    else tail = width_tiling;
    tiling.set_widthTiling(width_tiling);
    tiling.set_widthFractal(fractal);
    tiling.set_widthFractalTail(tail);
}

}  // namespace AscendC
