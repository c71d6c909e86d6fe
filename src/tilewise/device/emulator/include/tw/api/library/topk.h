// TopK of the AscendC high-level library (the MERGE_SORT algorithm of the A2), written from the Ascend C API
// reference (高阶API / 排序操作: TopK.md, TopK-Tiling.md):
//
//   TopK<T, isInitIndex, isHasfinish, isReuseSrc, topkMode[, config]>(dstValue, dstIndex, src, srcIndex, finish
//        [, tmp], k, tiling, TopKInfo{outter, inner, n}, isLargest)
//       per row of [outter, inner]: the k largest (isLargest) or smallest values, best first, and their indices.
//       Ties keep the lower position first; NaN sorts first in either order; inf is the largest value. The indices
//       are srcIndex's (isInitIndex: one row of inner shared by all rows in Normal mode, one per row in Small mode)
//       or the positions 0..inner-1. A row whose finish flag is set (isHasfinish) gets the invalid index n for all k.
//       Normal mode writes rows of k rounded up to 32 bytes (k_pad values, kpad_index = k rounded up to 8 indices);
//       Small mode (inner = 32) writes rows of k. Only the first k of a row are written.
//
// Checked: 1 <= k <= n <= inner, inner a multiple of 32 (Normal at most 4096, Small exactly 32), no overlap of the
// source with a destination, tmpLocal against GetTopKMaxMinTmpSize's A2 minimum, RADIX_SELECT (Ascend 950 only),
// and a padding element (position >= n) chosen among the k, which means the source was padded with values that do
// not sort last. config.order LARGEST / SMALLEST overrides isLargest; UNSET keeps it.
//
// Cost: the trace records the reference's MERGE_SORT steps: the index Arange (without isInitIndex), Muls by -1 around
// an ascending sort, Sort32, one MrgSort per four-way merge level (Normal mode), and the GatherMasks taking k values
// and indices.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "tw/api/library/reduce_scan.h"
#include "tw/tiling/topk.h"

namespace tw {

inline uint32_t topk_min_tmp(int32_t inner, int32_t outter, bool init_index, bool small, bool largest) {
    const uint32_t io = uint32_t(inner) * uint32_t(outter);
    if (!small) return (init_index ? 16u : 20u) * uint32_t(inner);
    uint32_t m = io * 8 + 64;
    if (!largest) m += io * 4;
    if (!init_index) m += io * 4;
    return m;
}

// true when a comes before b in the output order (positions pa < pb break ties).
template <typename C>
inline bool topk_before(C a, C b, bool largest) {
    const bool na = std::isnan(static_cast<double>(a)), nb = std::isnan(static_cast<double>(b));
    if (na || nb) return na && !nb;
    return largest ? a > b : a < b;
}

template <typename T, bool isInitIndex, bool isHasfinish, AscendC::TopKMode mode, const AscendC::TopKConfig& config>
inline void topk(const AscendC::LocalTensor<T>& dst_value, const AscendC::LocalTensor<int32_t>& dst_index,
                 const AscendC::LocalTensor<T>& src, const AscendC::LocalTensor<int32_t>& src_index,
                 const AscendC::LocalTensor<bool>& finish, const AscendC::LocalTensor<uint8_t>& tmp, int32_t k,
                 const AscendC::TopKInfo& info, bool is_largest, const char* file, int line) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "TopK takes half or float on the A2");
    if (config.algo == AscendC::TopKAlgo::RADIX_SELECT)
        fail("unsupported", "TopK: the RADIX_SELECT algorithm is an Ascend 950 feature; the A2 has MERGE_SORT", file,
             line);
    const bool small = mode == AscendC::TopKMode::TOPK_NSMALL;
    const bool largest = config.order == AscendC::TopKOrder::UNSET ? is_largest
                                                                    : config.order == AscendC::TopKOrder::LARGEST;
    const int64_t m = info.outter, in = info.inner, n = info.n;
    if (m <= 0 || in <= 0 || in % 32 != 0 || n < 1 || n > in)
        fail("invalid_argument", "TopK: TopKInfo needs outter > 0, inner a multiple of 32 and 1 <= n <= inner (outter "
             + std::to_string(m) + ", inner " + std::to_string(in) + ", n " + std::to_string(n) + ")", file, line);
    if (small ? in != 32 : in > 4096)
        fail("invalid_argument", std::string("TopK: ") + (small ? "Small mode needs inner = 32" :
             "Normal mode allows inner up to 4096") + " (inner " + std::to_string(in) + ")", file, line);
    if (k < 1 || k > n)
        fail("invalid_argument", "TopK: k (" + std::to_string(k) + ") must satisfy 1 <= k <= n (" + std::to_string(n) +
             ")", file, line);
    const uint32_t need = topk_min_tmp(int32_t(in), int32_t(m), isInitIndex, small, largest);
    if (tmp.GetSize() != 0 && tmp.GetSize() < need)
        fail("work_buffer_too_small", "TopK: tmpLocal holds " + std::to_string(tmp.GetSize()) + " bytes, less than "
             "the minimum " + std::to_string(need) + " that GetTopKMaxMinTmpSize gives", file, line);
    const int64_t vstride = small ? k : (k + int64_t(32 / sizeof(T)) - 1) / int64_t(32 / sizeof(T)) *
                                            int64_t(32 / sizeof(T));
    const int64_t istride = small ? k : (k + 7) / 8 * 8;
    const T* x = src.span(0, m * in, "TopK", file, line);
    T* dv = dst_value.span(0, (m - 1) * vstride + k, "TopK", file, line);
    int32_t* di = dst_index.span(0, (m - 1) * istride + k, "TopK", file, line);
    lib_no_overlap(x, m * in * sizeof(T), dv, ((m - 1) * vstride + k) * sizeof(T), "TopK",
                   "the source and dstValueLocal", file, line);
    lib_no_overlap(x, m * in * sizeof(T), di, ((m - 1) * istride + k) * 4, "TopK", "the source and dstIndexLocal",
                   file, line);
    lib_tmp_apart(tmp, x, m * in, dv, (m - 1) * vstride + k, "TopK", file, line);
    const int32_t* si = isInitIndex ? src_index.span(0, small ? m * in : in, "TopK", file, line) : nullptr;
    const bool* fin = isHasfinish ? finish.span(0, m, "TopK", file, line) : nullptr;
    std::vector<int64_t> order(in);
    for (int64_t r = 0; r < m; ++r) {
        const T* xr = x + r * in;
        for (int64_t j = 0; j < in; ++j) order[j] = j;
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
            return topk_before(to_c<T>(xr[a]), to_c<T>(xr[b]), largest);
        });
        for (int64_t q = 0; q < k; ++q) {
            const int64_t j = order[q];
            if (j >= n)
                fail("invalid_argument", "TopK: row " + std::to_string(r) + " selects padding element " +
                     std::to_string(j) + " (n = " + std::to_string(n) + "); pad the source with values that sort "
                     "last", file, line);
            dv[r * vstride + q] = xr[j];
            const int32_t idx = isInitIndex ? si[(small ? r * in : 0) + j] : int32_t(j);
            di[r * istride + q] = (fin != nullptr && fin[r]) ? int32_t(n) : idx;
        }
    }
    const uint64_t all = uint64_t(m) * in;
    if (!isInitIndex) vrec_count<int32_t>("ArithProgression", file, line, small ? all : in);
    if (!largest) vrec_count<T>("Muls", file, line, all);
    vrec("Sort32", file, line, all, all * 8, static_cast<uint32_t>((all + 31) / 32), sizeof(T), false);
    if (!small)
        for (int64_t run = 32; run < in; run *= 4)
            vrec("MrgSort", file, line, all, all * 8, static_cast<uint32_t>((all + 31) / 32), sizeof(T), false);
    vrec_count<T>("GatherMask", file, line, uint64_t(m) * vstride);
    vrec_count<int32_t>("GatherMask", file, line, uint64_t(m) * istride);
    if (!largest) vrec_count<T>("Muls", file, line, uint64_t(m) * vstride);
}

}  // namespace tw

namespace AscendC {

template <typename T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
          enum TopKMode topkMode = TopKMode::TOPK_NORMAL, const TopKConfig& config = defaultTopKConfig>
void TopK(const LocalTensor<T>& dstValueLocal, const LocalTensor<int32_t>& dstIndexLocal,
          const LocalTensor<T>& srcLocal, const LocalTensor<int32_t>& srcIndexLocal,
          const LocalTensor<bool>& finishLocal, const LocalTensor<uint8_t>& tmpLocal, const int32_t k,
          const TopkTiling& tilling, const TopKInfo& topKInfo, const bool isLargest = true, TW_SRC) {
    (void)tilling;  // the library's buffer offsets and masks; the emulator needs only topKInfo
    tw::topk<T, isInitIndex, isHasfinish, topkMode, config>(dstValueLocal, dstIndexLocal, srcLocal, srcIndexLocal,
                                                            finishLocal, tmpLocal, k, topKInfo, isLargest, TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
        enum TopKMode topkMode = TopKMode::TOPK_NORMAL, const TopKConfig& config = defaultTopKConfig), TopK, (T,
        isInitIndex, isHasfinish, isReuseSrc, topkMode, config), (const LocalTensor<T>& dstValueLocal,
        const LocalTensor<int32_t>& dstIndexLocal, const LocalTensor<T>& srcLocal,
        const LocalTensor<int32_t>& srcIndexLocal, const LocalTensor<bool>& finishLocal,
        const LocalTensor<uint8_t>& tmpLocal, const int32_t k, const TopkTiling& tilling, const TopKInfo& topKInfo,
        const bool isLargest), (dstValueLocal, dstIndexLocal, srcLocal, srcIndexLocal, finishLocal, tmpLocal, k,
        tilling, topKInfo, isLargest), )
template <typename T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
          enum TopKMode topkMode = TopKMode::TOPK_NORMAL, const TopKConfig& config = defaultTopKConfig>
void TopK(const LocalTensor<T>& dstValueLocal, const LocalTensor<int32_t>& dstIndexLocal,
          const LocalTensor<T>& srcLocal, const LocalTensor<int32_t>& srcIndexLocal,
          const LocalTensor<bool>& finishLocal, const int32_t k, const TopkTiling& tilling, const TopKInfo& topKInfo,
          const bool isLargest = true, TW_SRC) {
    (void)tilling;
    tw::topk<T, isInitIndex, isHasfinish, topkMode, config>(dstValueLocal, dstIndexLocal, srcLocal, srcIndexLocal,
                                                            finishLocal, LocalTensor<uint8_t>(), k, topKInfo,
                                                            isLargest, TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
        enum TopKMode topkMode = TopKMode::TOPK_NORMAL, const TopKConfig& config = defaultTopKConfig), TopK, (T,
        isInitIndex, isHasfinish, isReuseSrc, topkMode, config), (const LocalTensor<T>& dstValueLocal,
        const LocalTensor<int32_t>& dstIndexLocal, const LocalTensor<T>& srcLocal,
        const LocalTensor<int32_t>& srcIndexLocal, const LocalTensor<bool>& finishLocal, const int32_t k,
        const TopkTiling& tilling, const TopKInfo& topKInfo, const bool isLargest), (dstValueLocal, dstIndexLocal,
        srcLocal, srcIndexLocal, finishLocal, k, tilling, topKInfo, isLargest), )

}  // namespace AscendC
