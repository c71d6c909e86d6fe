// Reductions: ReduceSum / ReduceMax / ReduceMin (whole tensor, optional index), WholeReduceSum / Max / Min (one
// result per repeat), BlockReduceSum / Max / Min (one result per 32-byte block), PairReduceSum (adjacent pairs).
//
// Summation order, as documented for the hardware:
//   - inside a repeat: a binary tree over the repeat's slots (slot 2i + slot 2i+1, then pairs of those ...),
//     unselected slots counting as 0; for BlockReduceSum the tree runs over the block's slots.
//   - every partial result is rounded to T; half results saturate at +-65504 instead of overflowing.
//   - ReduceSum, count form: repeat results added in sequence (A2 "method 2");
//     ReduceSum, mask/repeat form: repeat results reduced again by trees of one repeat each (A2 "method 1").
// Max / Min take the first (lowest-index) slot holding the extreme value; nan inputs never win a comparison.
// Indices stored into a T slot are the index's bits as an unsigned integer of sizeof(T) bytes (reinterpret the
// slot as uint16_t for half, uint32_t for float to read them).
#pragma once
#include <vector>

#include "tw/api/vector/core.h"

namespace tw {

// Pairwise tree over v[0..n) (n a power of two), partials rounded to T. Returns the root.
template <typename T>
inline T tree_sum(T* v, uint32_t n) {
    while (n > 1) {
        for (uint32_t i = 0; i < n / 2; ++i) v[i] = round_sat<T>(to_c<T>(v[2 * i]) + to_c<T>(v[2 * i + 1]));
        n /= 2;
    }
    return v[0];
}

// Reduce the values of one repeat: `vals[s]` holds slot s (unselected slots hold 0). Tree over E slots.
template <typename T>
inline T repeat_sum(T* vals, uint32_t E) { return tree_sum<T>(vals, E); }

template <typename T>
inline bool better(T a, T b, bool is_max) {  // a strictly beats b
    calc_t<T> x = to_c<T>(a), y = to_c<T>(b);
    return is_max ? x > y : x < y;
}

// Max/min over the selected slots of one repeat; returns false if nothing is selected.
template <typename T>
inline bool repeat_ext(const T* x, const Lay& L, uint32_t r, const uint16_t* s, uint32_t k, bool is_max, T& val,
                       uint32_t& idx) {
    bool have = false;
    for (uint32_t i = 0; i < k; ++i) {
        T v = x[L.off(r, s[i])];
        if constexpr (is_fp_v<T>) {
            if (std::isnan(static_cast<float>(to_c<T>(v)))) continue;
        }
        if (!have || better(v, val, is_max)) { val = v; idx = s[i]; have = true; }
    }
    return have;
}

template <typename T>
inline void ext_all(const char* name, const AscendC::LocalTensor<T>& dst, const T* x, const Lay& L,
                    const VMask& m, uint32_t E, bool is_max, bool cal_index, const char* file, int line) {
    T best = lowest_of<T>();
    uint64_t best_idx = 0;
    bool have = false;
    each_repeat(m, E, [&](uint32_t r, const uint16_t* s, uint32_t k) {
        T v = T(0);
        uint32_t i = 0;
        if (repeat_ext(x, L, r, s, k, is_max, v, i) && (!have || better(v, best, is_max))) {
            best = v;
            best_idx = uint64_t(r) * E + i;
            have = true;
        }
    });
    if (!have) best = is_max ? lowest_of<T>() : highest_of<T>();
    T* d = dst.span(0, cal_index ? 2 : 1, name, file, line);
    d[0] = best;
    if (cal_index) d[1] = index_as<T>(best_idx);
}

// ---------------------------------------------------------------------------------------------------------------
// The shared tmp (work) buffer of ReduceMax / ReduceMin / ReduceSum, sized by the reference's formulas ("sharedTmpBuffer
// space"). `first` is the first round's repeat count: repeatTime for the mask forms, count / elementsPerRepeat
// (rounded up: a partial repeat still writes its result) for the count form. Without the index, the first round's
// output (value, index) pairs rounded up to a 32-byte block; with it, each round's output kept, rounded up likewise.

inline uint64_t div_ceil(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

template <typename T>
inline uint64_t reduce_ext_work(uint64_t first, bool cal_index) {
    const uint64_t EB = 32 / sizeof(T), E = 256 / sizeof(T);
    const uint64_t out1 = first * 2;
    if (!cal_index) return div_ceil(out1, EB) * EB;
    const uint64_t start2 = div_ceil(out1, EB) * EB;
    const uint64_t out2 = div_ceil(out1, E) * 2;
    const uint64_t end2 = div_ceil(out2, EB) * EB;
    if (out2 <= 2) return start2 + end2;
    const uint64_t out3 = div_ceil(out2, E) * 2;
    return start2 + end2 + div_ceil(out3, EB) * EB;
}

template <typename T>
inline void check_work(const AscendC::LocalTensor<T>& work, uint64_t need, const char* what, const std::string& why,
                       const char* file, int line) {
    if (need == 0 || work.capacity() >= need) return;
    fail("work_buffer_too_small",
         std::string(what) + " needs a shared tmp buffer of at least " + std::to_string(need) + " elements (" +
             std::to_string(need * sizeof(T)) + " bytes) for " + why + " by the reference's size formula, but the "
             "one passed holds " + std::to_string(work.capacity()) + ": the device would write past its end",
         file, line);
}

}  // namespace tw

namespace AscendC {

// ---------------------------------------------------------------------------------------------------------------
// ReduceSum

template <typename T, bool isSetMask = true>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& workLocal,
               const int32_t count, TW_SRC) {
    (void)workLocal;
    tw::check_count(count, "ReduceSum", TW_AT);
    constexpr uint32_t E = 256 / sizeof(T);
    const T* x = src.span(0, count, "ReduceSum", TW_AT);
    T* d = dst.span(0, 1, "ReduceSum", TW_AT);
    T acc = T(0);
    T vals[E];
    for (int64_t base = 0, r = 0; base < count; base += E, ++r) {
        uint32_t k = static_cast<uint32_t>(std::min<int64_t>(E, count - base));
        for (uint32_t i = 0; i < E; ++i) vals[i] = i < k ? x[base + i] : T(0);
        T part = tw::repeat_sum<T>(vals, E);
        acc = r == 0 ? part : tw::round_sat<T>(tw::to_c<T>(acc) + tw::to_c<T>(part));
    }
    d[0] = acc;
    tw::vrec_count<T>("ReduceSum", TW_AT, count);
}
TW_TWIN_M(, void, (typename T, bool isSetMask = true), ReduceSum, (T, isSetMask), (const LocalTensor<T>& dst,
        const LocalTensor<T>& src, const LocalTensor<T>& workLocal, const int32_t count), (dst, src, workLocal,
        count), )

namespace tw_vec {
template <typename T>
void reduce_sum_mask(const LocalTensor<T>& dst, const LocalTensor<T>& src, const tw::VMask& m, int32_t srcRepStride,
                     const char* file, int line) {
    constexpr uint32_t E = 256 / sizeof(T);
    tw::Lay L = tw::lay<T>(1, srcRepStride);
    const T* x = tw::vspan(src, tw::extent(m, E, L), "ReduceSum", file, line);
    T* d = dst.span(0, 1, "ReduceSum", file, line);
    std::vector<T> parts;
    T vals[E];
    tw::each_repeat(m, E, [&](uint32_t r, const uint16_t* s, uint32_t k) {
        for (uint32_t i = 0; i < E; ++i) vals[i] = T(0);
        for (uint32_t i = 0; i < k; ++i) vals[s[i]] = x[L.off(r, s[i])];
        parts.push_back(tw::repeat_sum<T>(vals, E));
    });
    while (parts.size() > 1) {  // further rounds: one tree per E partial results
        std::vector<T> next;
        for (size_t b = 0; b < parts.size(); b += E) {
            for (uint32_t i = 0; i < E; ++i) vals[i] = b + i < parts.size() ? parts[b + i] : T(0);
            next.push_back(tw::repeat_sum<T>(vals, E));
        }
        parts.swap(next);
    }
    d[0] = parts.empty() ? T(0) : parts[0];
    tw::vrec("ReduceSum", file, line, m.elements(), m.elements() * sizeof(T), m.issued(E), sizeof(T), true);
}
}  // namespace tw_vec

template <typename T>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& workLocal,
               const uint64_t mask[], const int32_t repeatTimes, const int32_t srcRepStride, TW_SRC) {
    tw::check_work(workLocal, tw::div_ceil(uint64_t(repeatTimes > 0 ? repeatTimes : 0), 32 / sizeof(T)) * (32 / sizeof(T)),
                   "ReduceSum", std::to_string(repeatTimes) + " repeats", TW_AT);
    tw_vec::reduce_sum_mask(dst, src, tw::mask_bits(mask, repeatTimes, 256 / sizeof(T), true), srcRepStride, TW_AT);
}
TW_TWIN_MASK(, void, (typename T), ReduceSum, (T), (const LocalTensor<T>& dst, const LocalTensor<T>& src,
        const LocalTensor<T>& workLocal, uint64_t mask[], const int32_t repeatTimes, const int32_t srcRepStride),
        (dst, src, workLocal, static_cast<const uint64_t*>(mask), repeatTimes, srcRepStride), )
template <typename T>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& workLocal,
               const int32_t mask, const int32_t repeatTimes, const int32_t srcRepStride, TW_SRC) {
    tw::check_work(workLocal, tw::div_ceil(uint64_t(repeatTimes > 0 ? repeatTimes : 0), 32 / sizeof(T)) * (32 / sizeof(T)),
                   "ReduceSum", std::to_string(repeatTimes) + " repeats", TW_AT);
    tw_vec::reduce_sum_mask(dst, src, tw::mask_cont(mask, repeatTimes, 256 / sizeof(T), true), srcRepStride, TW_AT);
}
TW_TWIN_M(, void, (typename T), ReduceSum, (T), (const LocalTensor<T>& dst, const LocalTensor<T>& src,
        const LocalTensor<T>& workLocal, const int32_t mask, const int32_t repeatTimes, const int32_t srcRepStride),
        (dst, src, workLocal, mask, repeatTimes, srcRepStride), )

// ---------------------------------------------------------------------------------------------------------------
// ReduceMax / ReduceMin: dst[0] = extreme value, dst[1] = its index (when calIndex) as integer bits.

#define TW_REDUCE_EXT(NAME, IS_MAX)                                                                                \
    template <typename T>                                                                                          \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& workLocal,               \
              const int32_t count, bool calIndex = false, TW_SRC) {                                                \
        tw::check_count(count, #NAME, TW_AT);                                                                      \
        constexpr uint32_t E = 256 / sizeof(T);                                                                    \
        tw::check_work(workLocal, tw::reduce_ext_work<T>(tw::div_ceil(uint64_t(count), E), calIndex), #NAME,      \
                       std::to_string(count) + " elements" + (calIndex ? " with the index" : ""), TW_AT);          \
        const T* x = src.span(0, count, #NAME, TW_AT);                                                             \
        tw::VMask m;                                                                                               \
        m.counter = true;                                                                                          \
        m.n = static_cast<uint64_t>(count);                                                                        \
        tw::ext_all(#NAME, dst, x, tw::lay<T>(1, 8), m, E, IS_MAX, calIndex, TW_AT);                               \
        tw::vrec_count<T>(#NAME, TW_AT, count);                                                                    \
    }                                                                                                              \
    TW_TWIN_M(, void, (typename T), NAME, (T), (const LocalTensor<T>& dst, const LocalTensor<T>& src,              \
            const LocalTensor<T>& workLocal, const int32_t count, bool calIndex), (dst, src, workLocal, count,     \
            calIndex), )                                                                                           \
    template <typename T>                                                                                          \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& workLocal,               \
              const uint64_t mask[], const int32_t repeatTimes, const int32_t srcRepStride, bool calIndex = false, \
              TW_SRC) {                                                                                            \
        constexpr uint32_t E = 256 / sizeof(T);                                                                    \
        tw::check_work(workLocal, tw::reduce_ext_work<T>(uint64_t(repeatTimes > 0 ? repeatTimes : 0), calIndex),   \
                       #NAME, std::to_string(repeatTimes) + " repeats" + (calIndex ? " with the index" : ""), TW_AT); \
        tw::VMask m = tw::mask_bits(mask, repeatTimes, E, true);                                                   \
        tw::Lay L = tw::lay<T>(1, srcRepStride);                                                                   \
        const T* x = tw::vspan(src, tw::extent(m, E, L), #NAME, TW_AT);                                            \
        tw::ext_all(#NAME, dst, x, L, m, E, IS_MAX, calIndex, TW_AT);                                              \
        tw::vrec(#NAME, TW_AT, m.elements(), m.elements() * sizeof(T), m.issued(E), sizeof(T), true);              \
    }                                                                                                              \
    template <typename T>                                                                                          \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& workLocal,               \
              const int32_t mask, const int32_t repeatTimes, const int32_t srcRepStride, bool calIndex = false,    \
              TW_SRC) {                                                                                            \
        constexpr uint32_t E = 256 / sizeof(T);                                                                    \
        tw::check_work(workLocal, tw::reduce_ext_work<T>(uint64_t(repeatTimes > 0 ? repeatTimes : 0), calIndex),   \
                       #NAME, std::to_string(repeatTimes) + " repeats" + (calIndex ? " with the index" : ""), TW_AT); \
        tw::VMask m = tw::mask_cont(mask, repeatTimes, E, true);                                                   \
        tw::Lay L = tw::lay<T>(1, srcRepStride);                                                                   \
        const T* x = tw::vspan(src, tw::extent(m, E, L), #NAME, TW_AT);                                            \
        tw::ext_all(#NAME, dst, x, L, m, E, IS_MAX, calIndex, TW_AT);                                              \
        tw::vrec(#NAME, TW_AT, m.elements(), m.elements() * sizeof(T), m.issued(E), sizeof(T), true);              \
    }

TW_REDUCE_EXT(ReduceMax, true)
TW_REDUCE_EXT(ReduceMin, false)

#undef TW_REDUCE_EXT

// ---------------------------------------------------------------------------------------------------------------
// WholeReduceSum: one sum per repeat at dst[r * dstRepStride] (dstRepStride in elements of T).

namespace tw_vec {
template <typename T>
void whole_sum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const tw::VMask& m, int32_t dstRepStride,
               int32_t srcBlkStride, int32_t srcRepStride, const char* file, int line) {
    constexpr uint32_t E = 256 / sizeof(T);
    tw::Lay L = tw::lay<T>(srcBlkStride, srcRepStride);
    const T* x = tw::vspan(src, tw::extent(m, E, L), "WholeReduceSum", file, line);
    const uint32_t R = m.issued(E);
    T* d = tw::vspan(dst, R ? uint64_t(R - 1) * dstRepStride + 1 : 0, "WholeReduceSum", file, line);
    std::vector<T> out;
    T vals[E];
    tw::each_repeat(m, E, [&](uint32_t r, const uint16_t* s, uint32_t k) {
        for (uint32_t i = 0; i < E; ++i) vals[i] = T(0);
        for (uint32_t i = 0; i < k; ++i) vals[s[i]] = x[L.off(r, s[i])];
        out.push_back(tw::repeat_sum<T>(vals, E));
    });
    for (uint32_t r = 0; r < out.size(); ++r) d[uint64_t(r) * dstRepStride] = out[r];
    tw::vrec("WholeReduceSum", file, line, m.elements(), m.elements() * sizeof(T), R, sizeof(T), true);
}

// WholeReduceMax/Min: per repeat (value, index) in the requested order; the index is the slot in the repeat.
// dstRepStride counts pairs (2 x sizeof(T)) for the value+index orders, elements for ORDER_ONLY_VALUE and
// uint32_t for ORDER_ONLY_INDEX.
template <typename T>
void whole_ext(const char* name, const LocalTensor<T>& dst, const LocalTensor<T>& src, const tw::VMask& m,
               int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, ReduceOrder order, bool is_max,
               const char* file, int line) {
    constexpr uint32_t E = 256 / sizeof(T);
    tw::Lay L = tw::lay<T>(srcBlkStride, srcRepStride);
    const T* x = tw::vspan(src, tw::extent(m, E, L), name, file, line);
    const uint32_t R = m.issued(E);
    uint64_t unit, width;  // in T elements: step per dstRepStride unit, elements one result occupies
    switch (order) {
        case ReduceOrder::ORDER_ONLY_VALUE: unit = 1; width = 1; break;
        case ReduceOrder::ORDER_ONLY_INDEX: unit = 4 / sizeof(T) ? 4 / sizeof(T) : 1; width = unit; break;
        default: unit = 2; width = 2; break;
    }
    T* d = tw::vspan(dst, R ? uint64_t(R - 1) * dstRepStride * unit + width : 0, name, file, line);
    struct Res { T v; uint32_t i; bool ok; };
    std::vector<Res> out;
    tw::each_repeat(m, E, [&](uint32_t r, const uint16_t* s, uint32_t k) {
        Res res{T(0), 0, false};
        res.ok = tw::repeat_ext(x, L, r, s, k, is_max, res.v, res.i);
        if (!res.ok) res.v = is_max ? tw::lowest_of<T>() : tw::highest_of<T>();
        out.push_back(res);
    });
    for (uint32_t r = 0; r < out.size(); ++r) {
        T* p = d + uint64_t(r) * dstRepStride * unit;
        switch (order) {
            case ReduceOrder::ORDER_VALUE_INDEX: p[0] = out[r].v; p[1] = tw::index_as<T>(out[r].i); break;
            case ReduceOrder::ORDER_INDEX_VALUE: p[0] = tw::index_as<T>(out[r].i); p[1] = out[r].v; break;
            case ReduceOrder::ORDER_ONLY_VALUE: p[0] = out[r].v; break;
            case ReduceOrder::ORDER_ONLY_INDEX: {
                uint32_t idx = out[r].i;
                std::memcpy(static_cast<void*>(p), &idx, 4);
                break;
            }
        }
    }
    tw::vrec(name, file, line, m.elements(), m.elements() * sizeof(T), R, sizeof(T), true);
}
}  // namespace tw_vec

template <typename T, bool isSetMask = true>
void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                    const int32_t repeatTimes, const int32_t dstRepStride, const int32_t srcBlkStride,
                    const int32_t srcRepStride, TW_SRC) {
    tw_vec::whole_sum(dst, src, tw::mask_bits(mask, repeatTimes, 256 / sizeof(T), isSetMask), dstRepStride,
                      srcBlkStride, srcRepStride, TW_AT);
}
TW_TWIN_MASK(, void, (typename T, bool isSetMask = true), WholeReduceSum, (T, isSetMask), (const LocalTensor<T>& dst,
        const LocalTensor<T>& src, uint64_t mask[], const int32_t repeatTimes, const int32_t dstRepStride,
        const int32_t srcBlkStride, const int32_t srcRepStride), (dst, src, static_cast<const uint64_t*>(mask),
        repeatTimes, dstRepStride, srcBlkStride, srcRepStride), )
template <typename T, bool isSetMask = true>
void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                    const int32_t repeatTimes, const int32_t dstRepStride, const int32_t srcBlkStride,
                    const int32_t srcRepStride, TW_SRC) {
    tw_vec::whole_sum(dst, src, tw::mask_cont(mask, repeatTimes, 256 / sizeof(T), isSetMask), dstRepStride,
                      srcBlkStride, srcRepStride, TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isSetMask = true), WholeReduceSum, (T, isSetMask), (const LocalTensor<T>& dst,
        const LocalTensor<T>& src, const int32_t mask, const int32_t repeatTimes, const int32_t dstRepStride,
        const int32_t srcBlkStride, const int32_t srcRepStride), (dst, src, mask, repeatTimes, dstRepStride,
        srcBlkStride, srcRepStride), )

#define TW_WHOLE_EXT(NAME, IS_MAX)                                                                                 \
    template <typename T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],                         \
              const int32_t repeatTimes, const int32_t dstRepStride, const int32_t srcBlkStride,                   \
              const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, TW_SRC) {            \
        tw_vec::whole_ext(#NAME, dst, src, tw::mask_bits(mask, repeatTimes, 256 / sizeof(T), isSetMask),           \
                          dstRepStride, srcBlkStride, srcRepStride, order, IS_MAX, TW_AT);                         \
    }                                                                                                              \
    TW_TWIN_MASK(, void, (typename T, bool isSetMask = true), NAME, (T, isSetMask),                                \
            (const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask[], const int32_t repeatTimes,     \
            const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,                    \
            ReduceOrder order), (dst, src, static_cast<const uint64_t*>(mask), repeatTimes, dstRepStride,          \
            srcBlkStride, srcRepStride, order), )                                                                  \
    template <typename T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask, const int32_t repeatTimes, \
              const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,                  \
              ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, TW_SRC) {                                        \
        tw_vec::whole_ext(#NAME, dst, src, tw::mask_cont(mask, repeatTimes, 256 / sizeof(T), isSetMask),           \
                          dstRepStride, srcBlkStride, srcRepStride, order, IS_MAX, TW_AT);                         \
    }                                                                                                              \
    TW_TWIN_M(, void, (typename T, bool isSetMask = true), NAME, (T, isSetMask), (const LocalTensor<T>& dst,       \
            const LocalTensor<T>& src, const int32_t mask, const int32_t repeatTimes,                              \
            const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,                    \
            ReduceOrder order), (dst, src, mask, repeatTimes, dstRepStride, srcBlkStride, srcRepStride,            \
            order), )

TW_WHOLE_EXT(WholeReduceMax, true)
TW_WHOLE_EXT(WholeReduceMin, false)

#undef TW_WHOLE_EXT

// ---------------------------------------------------------------------------------------------------------------
// BlockReduceSum / Max / Min: 8 results per repeat (one per 32-byte block) at dst[r * dstRepStride * 8 + k]
// (dstRepStride counts the 8 results of a repeat: 16 bytes for half, 32 for float). A block with no selected
// slot yields 0 (sum), -inf / lowest (max) or +inf / highest (min).
// PairReduceSum: E/2 results per repeat (slot 2i + slot 2i+1) at dst[r * dstRepStride * E/2 + i].

namespace tw_vec {
enum class BlockKind { Sum, Max, Min, Pair };

template <typename T>
void block_reduce(const char* name, const LocalTensor<T>& dst, const LocalTensor<T>& src, const tw::VMask& m,
                  int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, BlockKind kind, const char* file,
                  int line) {
    constexpr uint32_t E = 256 / sizeof(T);
    constexpr uint32_t EB = 32 / sizeof(T);
    const uint32_t group = kind == BlockKind::Pair ? 2 : EB;  // slots per result
    const uint32_t per_rep = E / group;                       // results per repeat
    tw::Lay L = tw::lay<T>(srcBlkStride, srcRepStride);
    const T* x = tw::vspan(src, tw::extent(m, E, L), name, file, line);
    const uint32_t R = m.issued(E);
    T* d = tw::vspan(dst, R ? uint64_t(R - 1) * dstRepStride * per_rep + per_rep : 0, name, file, line);
    std::vector<T> out;
    T vals[E];
    bool sel[E];
    tw::each_repeat(m, E, [&](uint32_t r, const uint16_t* s, uint32_t k) {
        for (uint32_t i = 0; i < E; ++i) { vals[i] = T(0); sel[i] = false; }
        for (uint32_t i = 0; i < k; ++i) { vals[s[i]] = x[L.off(r, s[i])]; sel[s[i]] = true; }
        for (uint32_t g = 0; g < per_rep; ++g) {
            T* v = vals + g * group;
            if (kind == BlockKind::Sum || kind == BlockKind::Pair) {
                out.push_back(tw::tree_sum<T>(v, group));
            } else {
                bool is_max = kind == BlockKind::Max;
                T best = is_max ? tw::lowest_of<T>() : tw::highest_of<T>();
                for (uint32_t i = 0; i < group; ++i)
                    if (sel[g * group + i] && tw::better(v[i], best, is_max)) best = v[i];
                out.push_back(best);
            }
        }
    });
    for (size_t i = 0; i < out.size(); ++i)
        d[uint64_t(i / per_rep) * dstRepStride * per_rep + i % per_rep] = out[i];
    tw::vrec(name, file, line, m.elements(), m.elements() * sizeof(T), R, sizeof(T), true);
}
}  // namespace tw_vec

#define TW_BLOCK_REDUCE(NAME, KIND)                                                                                \
    template <typename T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTimes,                     \
              const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,                       \
              const int32_t srcRepStride, TW_SRC) {                                                                \
        tw_vec::block_reduce(#NAME, dst, src, tw::mask_bits(mask, repeatTimes, 256 / sizeof(T), isSetMask),        \
                             dstRepStride, srcBlkStride, srcRepStride, tw_vec::BlockKind::KIND, TW_AT);            \
    }                                                                                                              \
    TW_TWIN_MASK(, void, (typename T, bool isSetMask = true), NAME, (T, isSetMask),                                \
            (const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTimes, uint64_t mask[],     \
            const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride), (dst, src,        \
            repeatTimes, static_cast<const uint64_t*>(mask), dstRepStride, srcBlkStride, srcRepStride), )          \
    template <typename T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTimes, const int32_t mask, \
              const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride, TW_SRC) {        \
        tw_vec::block_reduce(#NAME, dst, src, tw::mask_cont(mask, repeatTimes, 256 / sizeof(T), isSetMask),        \
                             dstRepStride, srcBlkStride, srcRepStride, tw_vec::BlockKind::KIND, TW_AT);            \
    }                                                                                                              \
    TW_TWIN_M(, void, (typename T, bool isSetMask = true), NAME, (T, isSetMask), (const LocalTensor<T>& dst,       \
            const LocalTensor<T>& src, const int32_t repeatTimes, const int32_t mask,                              \
            const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride), (dst, src,        \
            repeatTimes, mask, dstRepStride, srcBlkStride, srcRepStride), )

TW_BLOCK_REDUCE(BlockReduceSum, Sum)
TW_BLOCK_REDUCE(BlockReduceMax, Max)
TW_BLOCK_REDUCE(BlockReduceMin, Min)
TW_BLOCK_REDUCE(PairReduceSum, Pair)

#undef TW_BLOCK_REDUCE

}  // namespace AscendC
