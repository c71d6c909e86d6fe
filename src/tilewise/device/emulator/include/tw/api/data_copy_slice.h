// Slice forms of DataCopy between GM and UB (the reference's "GM与UB切片数据搬运"): each side is a dimValue-
// dimensional array described by one SliceInfo per dimension, dimension 0 the innermost (contiguous) one. Along a
// dimension the slice takes segments from startIndex to endIndex inclusive: a segment is burstLen 32-byte blocks of
// elements on dimension 0 and one index on any other dimension (burstLen must be 1 there), and consecutive segments
// are `stride` indices apart (the gap between them). shapeValue is the dimension's full length, which gives the
// strides of the outer dimensions. The source's selected elements, in row-major order, land in the destination's
// selected positions in the same order, so both sides must select the same number of elements. Also SetPadValue,
// the register DataCopyPad fills padding from when isPad is false.
#pragma once
#include <cstring>
#include <string>
#include <vector>

#include "tw/api/data_copy.h"

namespace AscendC {

// K_MAX_DIM (tw/api/types.h, beside ShapeInfo) is also the most dimensions a SliceInfo array describes.

struct SliceInfo {
    uint32_t startIndex = 0;
    uint32_t endIndex = 0;
    uint32_t stride = 0;
    uint32_t burstLen = 0;
    uint32_t shapeValue = 0;
};

}  // namespace AscendC

namespace tw {

struct SliceRun {
    uint64_t offset;  // elements from the tensor's start
    uint64_t len;     // elements
};

// The contiguous runs a slice selects, in row-major order (dimension dims-1 outermost).
template <typename T>
inline std::vector<SliceRun> slice_runs(const AscendC::SliceInfo* s, uint32_t dims, const char* side, const char* file,
                                        int line) {
    if (dims == 0 || dims > 8)
        fail("invalid_param", std::string("DataCopy slices: dimValue ") + std::to_string(dims) + " (1 to 8 allowed)",
             file, line);
    // Per dimension, the indices (dimension 0: the starts of its segments) and the segment length.
    std::vector<std::vector<uint64_t>> starts(dims);
    uint64_t seg0 = 0;
    for (uint32_t d = 0; d < dims; ++d) {
        const AscendC::SliceInfo& si = s[d];
        const std::string where = std::string(side) + " slice of dimension " + std::to_string(d);
        if (d > 0 && si.burstLen != 1)
            fail("invalid_param", where + ": burstLen must be 1 beyond dimension 0", file, line);
        if (si.startIndex > si.endIndex || si.endIndex >= si.shapeValue)
            fail("invalid_param",
                 where + ": needs startIndex <= endIndex < shapeValue, has " + std::to_string(si.startIndex) + ", " +
                     std::to_string(si.endIndex) + ", " + std::to_string(si.shapeValue),
                 file, line);
        const uint64_t seg = d == 0 ? uint64_t(si.burstLen) * 32 / sizeof(T) : 1;
        if (seg == 0) fail("invalid_param", where + ": burstLen 0", file, line);
        const uint64_t span = uint64_t(si.endIndex) - si.startIndex + 1;
        if ((span + si.stride) % (seg + si.stride) != 0)
            fail("invalid_param",
                 where + ": endIndex - startIndex + 1 = " + std::to_string(span) +
                     " is not (N - 1) * stride + N * segment for a segment of " + std::to_string(seg) +
                     " elements and stride " + std::to_string(si.stride),
                 file, line);
        for (uint64_t p = si.startIndex; p <= si.endIndex; p += seg + si.stride) starts[d].push_back(p);
        if (d == 0) seg0 = seg;
    }
    std::vector<uint64_t> pitch(dims, 1);  // elements between consecutive indices of each dimension
    for (uint32_t d = 1; d < dims; ++d) pitch[d] = pitch[d - 1] * s[d - 1].shapeValue;
    std::vector<SliceRun> runs;
    std::vector<size_t> at(dims, 0);  // odometer over the outer dimensions, the last one slowest
    while (true) {
        uint64_t base = 0;
        for (uint32_t d = 1; d < dims; ++d) base += starts[d][at[d]] * pitch[d];
        for (uint64_t p : starts[0]) runs.push_back(SliceRun{base + p, seg0});
        uint32_t d = 1;
        while (d < dims && ++at[d] == starts[d].size()) at[d++] = 0;
        if (d == dims) break;
    }
    return runs;
}

template <typename T>
inline uint64_t runs_elems(const std::vector<SliceRun>& r) {
    uint64_t n = 0;
    for (const SliceRun& x : r) n += x.len;
    return n;
}

// Walks both run lists in step, calling move(dst_offset, src_offset, n) for each piece common to a source run and a
// destination run.
template <typename T, typename F>
inline void zip_runs(const std::vector<SliceRun>& dst, const std::vector<SliceRun>& src, const char* file, int line,
                     F move) {
    if (runs_elems<T>(dst) != runs_elems<T>(src))
        fail("invalid_param",
             "DataCopy slices: the source slice selects " + std::to_string(runs_elems<T>(src)) +
                 " elements, the destination slice " + std::to_string(runs_elems<T>(dst)),
             file, line);
    size_t i = 0, j = 0;
    uint64_t di = 0, sj = 0;  // elements already used of dst[i] and src[j]
    while (i < dst.size() && j < src.size()) {
        const uint64_t n = std::min(dst[i].len - di, src[j].len - sj);
        move(dst[i].offset + di, src[j].offset + sj, n);
        di += n;
        sj += n;
        if (di == dst[i].len) ++i, di = 0;
        if (sj == src[j].len) ++j, sj = 0;
    }
}

}  // namespace tw

namespace AscendC {

// GM -> UB (MTE2): one burst per source run.
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const SliceInfo dstSliceInfo[],
              const SliceInfo srcSliceInfo[], const uint32_t dimValue = 1, TW_SRC) {
    tw::check_ub_aligned(dst.data(), "DataCopy", TW_AT);
    const auto druns = tw::slice_runs<T>(dstSliceInfo, dimValue, "destination", TW_AT);
    const auto sruns = tw::slice_runs<T>(srcSliceInfo, dimValue, "source", TW_AT);
    tw::zip_runs<T>(druns, sruns, TW_AT, [&](uint64_t doff, uint64_t soff, uint64_t n) {
        T* d = dst.span(doff, n, "DataCopy", TW_AT);
        tw::gm_check(src.data() + soff, n * sizeof(T), "DataCopy", TW_AT);
        tw::race_mte2_write(d, n * sizeof(T), TW_AT);
        std::memcpy(d, src.data() + soff, n * sizeof(T));
    });
    const uint64_t elems = tw::runs_elems<T>(sruns);
    tw::record(tw::Rec::Instr, PIPE_MTE2, "DataCopy", TW_AT, elems * sizeof(T), static_cast<uint32_t>(elems),
               static_cast<uint32_t>(sruns.size()), 0, 1, sizeof(T));
}
TW_TWIN_M(, void, (typename T), DataCopy, (T), (const LocalTensor<T>& dst, const GlobalTensor<T>& src,
        const SliceInfo dstSliceInfo[], const SliceInfo srcSliceInfo[], const uint32_t dimValue), (dst, src,
        dstSliceInfo, srcSliceInfo, dimValue), )

// UB -> GM (MTE3): one burst per destination run; atomic accumulation applies as for the other forms.
template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const SliceInfo dstSliceInfo[],
              const SliceInfo srcSliceInfo[], const uint32_t dimValue = 1, TW_SRC) {
    tw::check_ub_aligned(src.data(), "DataCopy", TW_AT);
    const auto druns = tw::slice_runs<T>(dstSliceInfo, dimValue, "destination", TW_AT);
    const auto sruns = tw::slice_runs<T>(srcSliceInfo, dimValue, "source", TW_AT);
    tw::zip_runs<T>(druns, sruns, TW_AT, [&](uint64_t doff, uint64_t soff, uint64_t n) {
        const T* s = src.span(soff, n, "DataCopy", TW_AT);
        tw::gm_check(dst.data() + doff, n * sizeof(T), "DataCopy", TW_AT);
        tw::race_mte3_read(s, n * sizeof(T), TW_AT);
        tw::gm_write(dst.data() + doff, s, n);
    });
    const uint64_t elems = tw::runs_elems<T>(druns);
    tw::record(tw::Rec::Instr, PIPE_MTE3, "DataCopy", TW_AT, elems * sizeof(T), static_cast<uint32_t>(elems),
               static_cast<uint32_t>(druns.size()), 0, 1, sizeof(T), tw::cur().atomic ? 2 : 0);
}
TW_TWIN_M(, void, (typename T), DataCopy, (T), (const GlobalTensor<T>& dst, const LocalTensor<T>& src,
        const SliceInfo dstSliceInfo[], const SliceInfo srcSliceInfo[], const uint32_t dimValue), (dst, src,
        dstSliceInfo, srcSliceInfo, dimValue), )

// SetPadValue: the value DataCopyPad (GM -> UB) writes into the left/right padding and the filler when its
// DataCopyPadExtParams say isPad = false. It is a register (the scalar pipe writes it) that holds until set again.
template <typename T, TPosition pos = TPosition::MAX>
void SetPadValue(T paddingValue, TW_SRC) {
    static_assert(sizeof(T) <= 8, "SetPadValue takes a value of at most 8 bytes");
    tw::Core& c = tw::cur();
    c.pad_reg = 0;
    std::memcpy(&c.pad_reg, &paddingValue, sizeof(T));
    c.pad_set = true;
    tw::record(tw::Rec::Instr, PIPE_S, "SetPadValue", TW_AT);
}
TW_TWIN_M(, void, (typename T, TPosition pos = TPosition::MAX), SetPadValue, (T, pos), (T paddingValue),
        (paddingValue), )

}  // namespace AscendC
