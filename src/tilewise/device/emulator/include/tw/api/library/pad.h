// Pad and UnPad of the AscendC high-level library, written from the Ascend C API reference (高阶API / 张量变换:
// Pad.md, UnPad.md and their Tiling pages). The shape comes from the tiling (srcHeight x srcWidth, srcOriWidth valid).
//
//   Pad(dst, src, PadParams{leftPad, rightPad, padValue}[, tmp], PadTiling)
//       case 1, srcWidth not 32-byte aligned: the height rows of srcWidth (stored back to back) become rows of the
//       aligned width: leftPad values, the row, rightPad values (left + width + right at most the aligned width;
//       columns beyond are not written).
//       case 2, srcWidth aligned with redundant columns (srcOriWidth < srcWidth): the rows keep their width and the
//       rightPad columns after the valid ones take padValue (leftPad must be 0).
//       An aligned width without redundant columns is refused, as the reference says.
//   UnPad(dst, src, UnPadParams{leftPad, rightPad}[, tmp], UnPadTiling)
//       rows of an aligned srcWidth lose their last rightPad columns (0 < rightPad < one 32-byte block); dst holds
//       the rows back to back. leftPad has no effect, as the reference says.
//
// Types: int16_t, uint16_t, half, int32_t, uint32_t, float. Checked: the unfilled tiling, the source's 32-byte
// aligned size, the pad widths, and Pad's sharedTmpBuffer against GetPadMaxMinTmpSize's minimum (1024 bytes).
// Cost: the trace records the copies that move the rows (DataCopy; GatherMask for UnPad's compaction) and the
// Duplicates of the pad values.
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "tw/api/library/reduce_scan.h"
#include "tw/tiling/pad.h"

namespace tw {

template <typename T>
constexpr bool pad_type_v = std::is_same<T, int16_t>::value || std::is_same<T, uint16_t>::value ||
                            std::is_same<T, half>::value || std::is_same<T, int32_t>::value ||
                            std::is_same<T, uint32_t>::value || std::is_same<T, float>::value;

template <typename T>
inline void pad_rows(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                     const AscendC::PadParams& p, const AscendC::LocalTensor<uint8_t>& tmp,
                     const ::optiling::PadTiling& t, const char* file, int line) {
    static_assert(pad_type_v<T>, "Pad takes int16_t, uint16_t, half, int32_t, uint32_t or float");
    const uint64_t h = t.srcHeight, w = t.srcWidth, ow = t.srcOriWidth, blk = 32 / sizeof(T);
    const uint64_t aw = (w + blk - 1) / blk * blk;
    if (h == 0 || w == 0 || ow == 0 || ow > w)
        fail("invalid_param", "Pad: the tiling gives no usable shape (was it filled by PadTilingFunc?)", file, line);
    if (h * w * sizeof(T) % 32 != 0)
        fail("misaligned", "Pad: the source holds " + std::to_string(h * w * sizeof(T)) + " bytes, not a multiple of "
             "32 (the reference requires it)", file, line);
    if (tmp.GetSize() != 0 && tmp.GetSize() < 1024)
        fail("work_buffer_too_small", "Pad: sharedTmpBuffer holds " + std::to_string(tmp.GetSize()) + " bytes, less "
             "than the minimum 1024 that GetPadMaxMinTmpSize gives", file, line);
    const bool aligned = w == aw;
    if (aligned && ow == w)
        fail("invalid_argument", "Pad: the width is 32-byte aligned and all valid; the reference does not support "
             "padding it", file, line);
    if (aligned && p.leftPad != 0)
        fail("invalid_argument", "Pad: a 32-byte aligned width with redundant columns pads on the right only", file,
             line);
    const uint64_t used = aligned ? ow + p.rightPad : w + p.leftPad + p.rightPad;
    if (used > aw)
        fail("invalid_argument", "Pad: the padded width " + std::to_string(used) + " exceeds the aligned width " +
             std::to_string(aw), file, line);
    const T* x = src.span(0, h * w, "Pad", file, line);
    T* d = dst.span(0, h * aw, "Pad", file, line);
    lib_tmp_apart(tmp, x, h * w, d, h * aw, "Pad", file, line);
    const T v = from_c<T>(static_cast<calc_t<T>>(p.padValue));
    std::vector<T> rows(x, x + h * w);  // src may be dst
    for (uint64_t r = 0; r < h; ++r) {
        T* dr = d + r * aw;
        if (aligned) {
            for (uint64_t c = 0; c < w; ++c) dr[c] = rows[r * w + c];
            for (uint64_t c = ow; c < ow + p.rightPad; ++c) dr[c] = v;
        } else {
            for (uint64_t c = 0; c < p.leftPad; ++c) dr[c] = v;
            for (uint64_t c = 0; c < w; ++c) dr[p.leftPad + c] = rows[r * w + c];
            for (uint64_t c = 0; c < p.rightPad; ++c) dr[p.leftPad + w + c] = v;
        }
    }
    vrec_count<T>("DataCopy", file, line, h * aw);
    vrec_count<T>("Duplicate", file, line, h * (uint64_t(p.leftPad) + p.rightPad));
}

template <typename T>
inline void unpad_rows(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                       const AscendC::UnPadParams& p, const AscendC::LocalTensor<uint8_t>& tmp,
                       const ::optiling::UnPadTiling& t, const char* file, int line) {
    static_assert(pad_type_v<T>, "UnPad takes int16_t, uint16_t, half, int32_t, uint32_t or float");
    const uint64_t h = t.srcHeight, w = t.srcWidth, blk = 32 / sizeof(T);
    if (h == 0 || w == 0)
        fail("invalid_param", "UnPad: the tiling gives no usable shape (was it filled by UnPadTilingFunc?)", file,
             line);
    if (w % blk != 0)
        fail("misaligned", "UnPad: the width " + std::to_string(w) + " is not 32-byte aligned; the reference does not "
             "support unpadding it", file, line);
    if (p.rightPad == 0 || p.rightPad >= blk)
        fail("invalid_argument", "UnPad: rightPad (" + std::to_string(p.rightPad) + ") must be more than 0 and less "
             "than one 32-byte block (" + std::to_string(blk) + " elements)", file, line);
    const uint64_t nw = w - p.rightPad;
    const T* x = src.span(0, h * w, "UnPad", file, line);
    T* d = dst.span(0, h * nw, "UnPad", file, line);
    lib_tmp_apart(tmp, x, h * w, d, h * nw, "UnPad", file, line);
    std::vector<T> rows(x, x + h * w);
    for (uint64_t r = 0; r < h; ++r)
        for (uint64_t c = 0; c < nw; ++c) d[r * nw + c] = rows[r * w + c];
    vrec_count<T>("GatherMask", file, line, h * w);
}

}  // namespace tw

namespace AscendC {

template <typename T>
void Pad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, PadParams& padParams,
         const LocalTensor<uint8_t>& sharedTmpBuffer, PadTiling& tiling, TW_SRC) {
    tw::pad_rows(dstTensor, srcTensor, padParams, sharedTmpBuffer, tiling, TW_AT);
}
TW_TWIN_M(, void, (typename T), Pad, (T), (const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
        PadParams& padParams, const LocalTensor<uint8_t>& sharedTmpBuffer, PadTiling& tiling), (dstTensor, srcTensor,
        padParams, sharedTmpBuffer, tiling), )
template <typename T>
void Pad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, PadParams& padParams, PadTiling& tiling,
         TW_SRC) {
    tw::pad_rows(dstTensor, srcTensor, padParams, LocalTensor<uint8_t>(), tiling, TW_AT);
}
TW_TWIN_M(, void, (typename T), Pad, (T), (const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
        PadParams& padParams, PadTiling& tiling), (dstTensor, srcTensor, padParams, tiling), )

template <typename T>
void UnPad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, UnPadParams& unPadParams,
           LocalTensor<uint8_t>& sharedTmpBuffer, UnPadTiling& tiling, TW_SRC) {
    tw::unpad_rows(dstTensor, srcTensor, unPadParams, sharedTmpBuffer, tiling, TW_AT);
}
TW_TWIN_M(, void, (typename T), UnPad, (T), (const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
        UnPadParams& unPadParams, LocalTensor<uint8_t>& sharedTmpBuffer, UnPadTiling& tiling), (dstTensor, srcTensor,
        unPadParams, sharedTmpBuffer, tiling), )
template <typename T>
void UnPad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, UnPadParams& unPadParams,
           UnPadTiling& tiling, TW_SRC) {
    tw::unpad_rows(dstTensor, srcTensor, unPadParams, LocalTensor<uint8_t>(), tiling, TW_AT);
}
TW_TWIN_M(, void, (typename T), UnPad, (T), (const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
        UnPadParams& unPadParams, UnPadTiling& tiling), (dstTensor, srcTensor, unPadParams, tiling), )

}  // namespace AscendC
