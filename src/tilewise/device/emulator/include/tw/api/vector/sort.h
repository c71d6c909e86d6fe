// Sorting on the 910B vector core (the Atlas A2 layout, "方式一" of the reference), written from the Ascend C API
// reference:
//
//   Sort32(dst, score, index, repeat)    each repeat sorts 32 (score, index) pairs by score, largest first; equal
//                                        scores keep their input order
//   MrgSort (MrgSort4Info form, and the  merges 2-4 sorted lists (validBit says which) into one, largest first;
//   high-level elementCountList form)    with isExhaustedSuspension it stops when the first list runs out
//   GetMrgSortResult(n1, n2, n3, n4)     how many structures of each list the last MrgSort took
//   Sort<T, isFullSort> (high-level)     Sort32 per 32 elements, and with isFullSort the whole input as one list
//   Concat (high-level)                  the A2 layout sorts plain scores, so Concat copies 16 x repeat of them
//   Extract (high-level)                 splits 32 x repeat sorted structures into values and indices
//
// A sorted element is an 8-byte structure: the index (uint32) in the high 4 bytes, the score in the low 4 bytes
// (half scores use the low 2, the 2 between are reserved and left as they were). Each call is one trace record
// on the vector pipe, over the bytes it writes.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tw/api/vector/core.h"

namespace tw {

// False, but only once T is known: a static_assert on it fires when a template is used, not when it is declared.
template <typename T>
constexpr bool dependent_false = false;

template <typename T>
struct Scored {
    T score;
    uint32_t index;
};

// The element offset (in T) of structure i of a sorted list.
template <typename T>
constexpr uint64_t sorted_at(uint64_t i) { return i * 8 / sizeof(T); }

template <typename T>
inline Scored<T> read_scored(const T* base, uint64_t i) {
    Scored<T> s;
    s.score = base[sorted_at<T>(i)];
    std::memcpy(&s.index, reinterpret_cast<const uint8_t*>(base) + i * 8 + 4, 4);
    return s;
}
template <typename T>
inline void write_scored(T* base, uint64_t i, const Scored<T>& s) {
    base[sorted_at<T>(i)] = s.score;
    std::memcpy(reinterpret_cast<uint8_t*>(base) + i * 8 + 4, &s.index, 4);
}

// Largest score first; stable, so equal scores keep the earlier element first.
template <typename T>
inline void sort_desc(std::vector<Scored<T>>& v) {
    std::stable_sort(v.begin(), v.end(), [](const Scored<T>& a, const Scored<T>& b) {
        return to_c<T>(a.score) > to_c<T>(b.score);
    });
}

template <typename T>
inline void sort_runs(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& score,
                      const AscendC::LocalTensor<uint32_t>& index, uint64_t n, uint64_t run, const char* name,
                      const char* file, int line) {
    const T* s = score.span(0, n, name, file, line);
    const uint32_t* ix = index.span(0, n, name, file, line);
    T* d = dst.span(0, sorted_at<T>(n), name, file, line);
    std::vector<Scored<T>> all(n);
    for (uint64_t i = 0; i < n; ++i) all[i] = {s[i], ix[i]};
    for (uint64_t start = 0; start < n; start += run) {
        std::vector<Scored<T>> part(all.begin() + start, all.begin() + std::min(n, start + run));
        sort_desc(part);
        for (uint64_t i = 0; i < part.size(); ++i) write_scored(d, start + i, part[i]);
    }
    vrec(name, file, line, n, n * 8, static_cast<uint32_t>((n + 31) / 32), sizeof(T), false);
}

}  // namespace tw

namespace AscendC {

// Elements of T that `elemCount` sorted structures occupy (8 bytes each): the size to allocate for a Sort result.
template <typename T>
constexpr uint32_t GetSortLen(const uint32_t elemCount) { return static_cast<uint32_t>(elemCount * 8 / sizeof(T)); }

template <typename T>
void Sort32(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& src1,
            const int32_t repeatTime, TW_SRC) {
    tw::check_count(repeatTime, "Sort32", TW_AT);
    tw::sort_runs(dst, src0, src1, uint64_t(repeatTime) * 32, 32, "Sort32", TW_AT);
}
TW_TWIN_M(, void, (typename T), Sort32, (T), (const LocalTensor<T>& dst, const LocalTensor<T>& src0,
        const LocalTensor<uint32_t>& src1, const int32_t repeatTime), (dst, src0, src1, repeatTime), )

template <typename T>
struct MrgSortSrcList {
    MrgSortSrcList() = default;
    MrgSortSrcList(const LocalTensor<T>& a, const LocalTensor<T>& b, const LocalTensor<T>& c, const LocalTensor<T>& d)
        : src1(a), src2(b), src3(c), src4(d) {}
    LocalTensor<T> src1, src2, src3, src4;
};

struct MrgSort4Info {
    MrgSort4Info() = default;
    MrgSort4Info(const uint16_t lengths[4], bool exhausted, uint16_t valid, uint16_t repeat)
        : ifExhaustedSuspension(exhausted), validBit(valid), repeatTimes(repeat) {
        for (int i = 0; i < 4; ++i) elementLengths[i] = lengths[i];
    }
    uint16_t elementLengths[4] = {0, 0, 0, 0};
    bool ifExhaustedSuspension = false;
    uint16_t validBit = 0;
    uint16_t repeatTimes = 1;
};

namespace tw_vec {
// How many structures of each list the core's last MrgSort took (GetMrgSortResult reads it back).
inline uint16_t* mrgsort_taken() {
    thread_local uint16_t taken[4] = {0, 0, 0, 0};  // each emulated core runs on a thread of its own
    return taken;
}

// Merges the valid lists into dst; returns how many of each list went out (and keeps them for GetMrgSortResult).
template <typename T>
void merge_lists(const LocalTensor<T>& dst, const MrgSortSrcList<T>& lists, const uint16_t lengths[4],
                 uint16_t validBit, bool exhausted, uint16_t repeat, uint32_t taken[4], const char* file, int line) {
    if (repeat != 1)
        tw::fail("unsupported", "MrgSort with repeatTimes " + std::to_string(repeat) + ": the emulator merges one "
                 "group of lists per call (repeatTimes 1)", file, line);
    if (validBit != 0x3 && validBit != 0x7 && validBit != 0xF)
        tw::fail("invalid_argument", "MrgSort validBit " + std::to_string(validBit) + ": 0b11, 0b111 or 0b1111 "
                 "(two, three or four lists)", file, line);
    const LocalTensor<T>* src[4] = {&lists.src1, &lists.src2, &lists.src3, &lists.src4};
    const T* p[4] = {nullptr, nullptr, nullptr, nullptr};
    uint64_t total = 0;
    for (int k = 0; k < 4; ++k) {
        taken[k] = 0;
        if (validBit >> k & 1) {
            p[k] = src[k]->span(0, tw::sorted_at<T>(lengths[k]), "MrgSort", file, line);
            total += lengths[k];
        }
    }
    std::vector<tw::Scored<T>> out;
    out.reserve(total);
    while (true) {
        int best = -1;
        tw::Scored<T> pick{};
        bool ran_out = false;
        for (int k = 0; k < 4; ++k) {
            if (!(validBit >> k & 1)) continue;
            if (taken[k] >= lengths[k]) { ran_out = true; continue; }
            tw::Scored<T> c = tw::read_scored(p[k], taken[k]);
            if (best < 0 || tw::to_c<T>(c.score) > tw::to_c<T>(pick.score)) { best = k; pick = c; }
        }
        if (best < 0 || (exhausted && ran_out)) break;
        out.push_back(pick);
        ++taken[best];
    }
    for (int k = 0; k < 4; ++k) mrgsort_taken()[k] = static_cast<uint16_t>(taken[k]);
    T* d = dst.span(0, tw::sorted_at<T>(out.size()), "MrgSort", file, line);
    for (uint64_t i = 0; i < out.size(); ++i) tw::write_scored(d, i, out[i]);
    tw::vrec("MrgSort", file, line, out.size(), out.size() * 8, static_cast<uint32_t>((out.size() + 31) / 32),
             sizeof(T), false);
}
}  // namespace tw_vec

template <typename T>
void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& params, TW_SRC) {
    uint32_t taken[4];
    tw_vec::merge_lists(dst, src, params.elementLengths, params.validBit, params.ifExhaustedSuspension,
                        params.repeatTimes, taken, TW_AT);
}
TW_TWIN_M(, void, (typename T), MrgSort, (T), (const LocalTensor<T>& dst, const MrgSortSrcList<T>& src,
        const MrgSort4Info& params), (dst, src, params), )

template <typename T, bool isExhaustedSuspension = false>
void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& sortList, const uint16_t elementCountList[4],
             uint32_t sortedNum[4], uint16_t validBit, const int32_t repeatTime, TW_SRC) {
    tw_vec::merge_lists(dst, sortList, elementCountList, validBit, isExhaustedSuspension,
                        static_cast<uint16_t>(repeatTime), sortedNum, TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isExhaustedSuspension = false), MrgSort, (T, isExhaustedSuspension),
        (const LocalTensor<T>& dst, const MrgSortSrcList<T>& sortList, const uint16_t elementCountList[4],
        uint32_t sortedNum[4], uint16_t validBit, const int32_t repeatTime), (dst, sortList, elementCountList,
        sortedNum, validBit, repeatTime), )

// GetMrgSortResult: how many structures of each list the last MrgSort merged out (with ifExhaustedSuspension, where
// it stopped). A scalar read of the vector unit's result register.
inline void GetMrgSortResult(uint16_t& mrgSortList1, uint16_t& mrgSortList2, uint16_t& mrgSortList3,
                             uint16_t& mrgSortList4, TW_SRC) {
    const uint16_t* t = tw_vec::mrgsort_taken();
    mrgSortList1 = t[0];
    mrgSortList2 = t[1];
    mrgSortList3 = t[2];
    mrgSortList4 = t[3];
    tw::record(tw::Rec::Scalar, PIPE_S, "GetMrgSortResult", TW_AT);
}
TW_TWIN_N(, void, GetMrgSortResult, (uint16_t& mrgSortList1, uint16_t& mrgSortList2, uint16_t& mrgSortList3,
        uint16_t& mrgSortList4), (mrgSortList1, mrgSortList2, mrgSortList3, mrgSortList4), )

template <typename T, bool isFullSort>
void Sort(const LocalTensor<T>& dst, const LocalTensor<T>& concat, const LocalTensor<uint32_t>& index,
          const LocalTensor<T>& tmp, const int32_t repeatTime, TW_SRC) {
    (void)tmp;
    tw::check_count(repeatTime, "Sort", TW_AT);
    const uint64_t n = uint64_t(repeatTime) * 32;
    tw::sort_runs(dst, concat, index, n, isFullSort ? (n ? n : 1) : 32, "Sort", TW_AT);
}
TW_TWIN_M(, void, (typename T, bool isFullSort), Sort, (T, isFullSort), (const LocalTensor<T>& dst,
        const LocalTensor<T>& concat, const LocalTensor<uint32_t>& index, const LocalTensor<T>& tmp,
        const int32_t repeatTime), (dst, concat, index, tmp, repeatTime), )

template <typename T>
void Concat(LocalTensor<T>& concat, const LocalTensor<T>& src, const LocalTensor<T>& tmp, const int32_t repeatTime,
            TW_SRC) {
    (void)tmp;
    tw::check_count(repeatTime, "Concat", TW_AT);
    const uint64_t n = uint64_t(repeatTime) * 16;
    const T* s = src.span(0, n, "Concat", TW_AT);
    T* d = concat.span(0, n, "Concat", TW_AT);
    std::memmove(static_cast<void*>(d), s, n * sizeof(T));
    tw::vrec_count<T>("Concat", TW_AT, n);
}
TW_TWIN_M(, void, (typename T), Concat, (T), (LocalTensor<T>& concat, const LocalTensor<T>& src,
        const LocalTensor<T>& tmp, const int32_t repeatTime), (concat, src, tmp, repeatTime), )

template <typename T>
void Extract(const LocalTensor<T>& dstValue, const LocalTensor<uint32_t>& dstIndex, const LocalTensor<T>& sorted,
             const int32_t repeatTime, TW_SRC) {
    tw::check_count(repeatTime, "Extract", TW_AT);
    const uint64_t n = uint64_t(repeatTime) * 32;
    const T* s = sorted.span(0, tw::sorted_at<T>(n), "Extract", TW_AT);
    std::vector<tw::Scored<T>> all(n);
    for (uint64_t i = 0; i < n; ++i) all[i] = tw::read_scored(s, i);
    T* v = dstValue.span(0, n, "Extract", TW_AT);
    uint32_t* ix = dstIndex.span(0, n, "Extract", TW_AT);
    for (uint64_t i = 0; i < n; ++i) {
        v[i] = all[i].score;
        ix[i] = all[i].index;
    }
    tw::vrec("Extract", TW_AT, n, n * 8, static_cast<uint32_t>((n + 31) / 32), sizeof(T), false);
}
TW_TWIN_M(, void, (typename T), Extract, (T), (const LocalTensor<T>& dstValue, const LocalTensor<uint32_t>& dstIndex,
        const LocalTensor<T>& sorted, const int32_t repeatTime), (dstValue, dstIndex, sorted, repeatTime), )

// The region-proposal instructions (ProposalConcat, ProposalExtract, RpSort16, MrgSort4, and Concat / Extract with a
// mode number, their earlier names) belong to the Atlas training and inference series; the reference marks each as
// unsupported on the Atlas A2 this emulator models. A kernel calling one is written for another chip, so the call is
// a compile error that says so (the A2's device compiler has none of them), not a "no matching function".
#define TW_REGION_PROPOSAL(name)                                                                                       \
    name " is a region-proposal instruction of the Atlas training / inference series, which the Atlas A2 (910B) does " \
         "not have: build this kernel for its own chip, or sort with Sort32 / MrgSort / Sort (or the TopK library)"

template <typename T>
void ProposalConcat(const LocalTensor<T>&, const LocalTensor<T>&, int32_t, int32_t) {
    static_assert(tw::dependent_false<T>, TW_REGION_PROPOSAL("ProposalConcat"));
}
template <typename T>
void Concat(const LocalTensor<T>&, const LocalTensor<T>&, int32_t, int32_t) {
    static_assert(tw::dependent_false<T>, TW_REGION_PROPOSAL("Concat(dst, src, repeatTime, modeNumber)"));
}
template <typename T>
void ProposalExtract(const LocalTensor<T>&, const LocalTensor<T>&, int32_t, int32_t) {
    static_assert(tw::dependent_false<T>, TW_REGION_PROPOSAL("ProposalExtract"));
}
template <typename T>
void Extract(const LocalTensor<T>&, const LocalTensor<T>&, int32_t, int32_t) {
    static_assert(tw::dependent_false<T>, TW_REGION_PROPOSAL("Extract(dst, src, repeatTime, modeNumber)"));
}
template <typename T>
void RpSort16(const LocalTensor<T>&, const LocalTensor<T>&, int32_t) {
    static_assert(tw::dependent_false<T>, TW_REGION_PROPOSAL("RpSort16"));
}
template <typename T>
void MrgSort4(const LocalTensor<T>&, const MrgSortSrcList<T>&, const MrgSort4Info&) {
    static_assert(tw::dependent_false<T>, TW_REGION_PROPOSAL("MrgSort4"));
}
#undef TW_REGION_PROPOSAL

}  // namespace AscendC
