// Data rearrangement: Gather (byte offsets), GatherMask (pattern-driven compaction), Brcb (broadcast each of 8
// elements to a 32-byte block) and Transpose (16 x 16 of 2-byte elements).
#pragma once
#include <vector>

#include "tw/api/vector/core.h"

namespace tw {

// Source element for Gather: src + srcBaseAddr + offset bytes, which must be a whole element inside src.
template <typename T>
inline T gather_one(const AscendC::LocalTensor<T>& src, uint64_t byte_off, const char* file, int line) {
    if (byte_off % sizeof(T) != 0)
        fail("misaligned",
             "Gather reads at byte offset " + std::to_string(byte_off) + " of its source, not a multiple of the " +
                 std::to_string(sizeof(T)) + "-byte element size",
             file, line);
    return *src.span(byte_off / sizeof(T), 1, "Gather", file, line);
}

// GatherMask built-in patterns (1..7): is element i of a repeat kept?
inline bool gm_pattern(uint8_t p, uint64_t i) {
    switch (p) {
        case 1: return i % 2 == 0;
        case 2: return i % 2 == 1;
        case 3: return i % 4 == 0;
        case 4: return i % 4 == 1;
        case 5: return i % 4 == 2;
        case 6: return i % 4 == 3;
        case 7: return true;
        default: return false;
    }
}

// GatherMask. Normal mode (reduceMode false): params.repeatTimes repeats of 256 bytes of src0 (block / repeat
// strides from the params; mask ignored). Counter mode (reduceMode true): each of params.repeatTimes repeats
// covers `mask` elements (the A2 reading; with repeatTimes 1 this is "mask = total element count").
// Kept elements are packed contiguously from dst[0]. A user pattern is read as bits (bit i of byte i/8), `per`
// bits per repeat with repeats src1RepeatStride x 32 bytes apart; built-in patterns restart every repeat.
template <typename T, typename Keep>
inline uint64_t gather_mask(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
                            bool reduce_mode, uint32_t mask, const AscendC::GatherMaskParams& p, Keep keep,
                            const char* file, int line) {
    constexpr uint32_t E = 256 / sizeof(T);
    constexpr uint32_t EB = 32 / sizeof(T);
    const uint32_t R = p.repeatTimes;
    const uint64_t per = reduce_mode ? mask : E;
    Lay L = lay<T>(p.src0BlockStride, p.src0RepeatStride);
    uint64_t ext = 0;
    if (R && per) ext = L.rep(R - 1) + ((per - 1) / EB) * L.blk_bytes / sizeof(T) + (per - 1) % EB + 1;
    const T* x = vspan(src0, ext, "GatherMask", file, line);
    std::vector<T> kept;
    for (uint32_t r = 0; r < R; ++r)
        for (uint64_t i = 0; i < per; ++i)
            if (keep(r, i)) kept.push_back(x[L.rep(r) + (i / EB) * L.blk_bytes / sizeof(T) + i % EB]);
    T* d = vspan(dst, kept.size(), "GatherMask", file, line);
    if (!kept.empty()) std::memcpy(d, kept.data(), kept.size() * sizeof(T));
    cur().counter_mode = false;  // documented: the instruction leaves the mask mode at Normal
    vrec("GatherMask", file, line, uint64_t(R) * per, uint64_t(R) * per * sizeof(T),
         static_cast<uint32_t>((uint64_t(R) * per * sizeof(T) + 255) / 256), sizeof(T), true);
    return kept.size();
}

}  // namespace tw

namespace AscendC {

// ---------------------------------------------------------------------------------------------------------------
// Gather: dst[i] = element at byte (srcBaseAddr + srcOffset[i]) of src.

template <typename T>
void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
            const uint32_t srcBaseAddr, const uint32_t count, TW_SRC) {
    T* d = dst.span(0, count, "Gather", TW_AT);
    const uint32_t* off = srcOffset.span(0, count, "Gather", TW_AT);
    std::vector<T> tmp(count);
    for (uint32_t i = 0; i < count; ++i) tmp[i] = tw::gather_one(src, uint64_t(srcBaseAddr) + off[i], TW_AT);
    if (count) std::memcpy(d, tmp.data(), count * sizeof(T));
    tw::vrec_count<T>("Gather", TW_AT, count);
}
TW_TWIN_M(, void, (typename T), Gather, (T), (const LocalTensor<T>& dst, const LocalTensor<T>& src,
        const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr, const uint32_t count), (dst, src,
        srcOffset, srcBaseAddr, count), )

// Mask/repeat form: repeat r writes 256 bytes of dst at r * dstRepStride * 32 bytes; slot s of repeat r uses
// srcOffset[r * E + s].
namespace tw_vec {
template <typename T>
void gather_mask_form(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                      uint32_t base, const tw::VMask& m, uint16_t dstRepStride, const char* file, int line) {
    constexpr uint32_t E = 256 / sizeof(T);
    tw::Lay ld = tw::lay<T>(1, dstRepStride);
    tw::Lay lo;  // offsets: contiguous, E per repeat
    lo.EB = E; lo.es = 4; lo.blk_bytes = 0; lo.rep_bytes = uint64_t(E) * 4;
    T* d = tw::vspan(dst, tw::extent(m, E, ld), "Gather", file, line);
    const uint32_t* off = tw::vspan(srcOffset, tw::extent(m, E, lo), "Gather", file, line);
    T tmp[tw::kMaxSlots];
    tw::each_repeat(m, E, [&](uint32_t r, const uint16_t* s, uint32_t k) {
        for (uint32_t i = 0; i < k; ++i) tmp[i] = tw::gather_one(src, uint64_t(base) + off[lo.off(r, s[i])], file, line);
        for (uint32_t i = 0; i < k; ++i) d[ld.off(r, s[i])] = tmp[i];
    });
    tw::vrec("Gather", file, line, m.elements(), m.elements() * sizeof(T), m.issued(E), sizeof(T), true);
}
}  // namespace tw_vec

template <typename T>
void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
            const uint32_t srcBaseAddr, const uint64_t mask[], const uint8_t repeatTimes, const uint16_t dstRepStride,
            TW_SRC) {
    tw_vec::gather_mask_form(dst, src, srcOffset, srcBaseAddr, tw::mask_bits(mask, repeatTimes, 256 / sizeof(T), true),
                             dstRepStride, TW_AT);
}
TW_TWIN_MASK(, void, (typename T), Gather, (T), (const LocalTensor<T>& dst, const LocalTensor<T>& src,
        const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr, uint64_t mask[],
        const uint8_t repeatTimes, const uint16_t dstRepStride), (dst, src, srcOffset, srcBaseAddr,
        static_cast<const uint64_t*>(mask), repeatTimes, dstRepStride), )
template <typename T>
void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
            const uint32_t srcBaseAddr, const uint64_t mask, const uint8_t repeatTimes, const uint16_t dstRepStride,
            TW_SRC) {
    tw_vec::gather_mask_form(dst, src, srcOffset, srcBaseAddr, tw::mask_cont(mask, repeatTimes, 256 / sizeof(T), true),
                             dstRepStride, TW_AT);
}
TW_TWIN_M(, void, (typename T), Gather, (T), (const LocalTensor<T>& dst, const LocalTensor<T>& src,
        const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr, const uint64_t mask,
        const uint8_t repeatTimes, const uint16_t dstRepStride), (dst, src, srcOffset, srcBaseAddr, mask, repeatTimes,
        dstRepStride), )

// ---------------------------------------------------------------------------------------------------------------
// GatherMask

enum class GatherMaskMode : uint8_t { DEFAULT = 0, V1, V2 };
constexpr GatherMaskMode defaultGatherMaskMode = GatherMaskMode::DEFAULT;
constexpr GatherMaskMode defaultGahterMaskMode = GatherMaskMode::DEFAULT;  // spelling used by older releases

template <typename T, typename U, GatherMaskMode mode = defaultGatherMaskMode>
void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>& src1Pattern,
                const bool reduceMode, const uint32_t mask, const GatherMaskParams& p, uint64_t& rsvdCnt, TW_SRC) {
    constexpr uint32_t E = 256 / sizeof(T);
    const uint64_t per = reduceMode ? mask : E;
    const uint64_t rstride = uint64_t(p.src1RepeatStride) * 32;  // bytes between repeats' patterns
    uint64_t nbytes = p.repeatTimes && per ? uint64_t(p.repeatTimes - 1) * rstride + (per + 7) / 8 : 0;
    const uint8_t* bits = tw::mask_bytes(src1Pattern, nbytes, "GatherMask", TW_AT);
    rsvdCnt = tw::gather_mask(
        dst, src0, reduceMode, mask, p,
        [&](uint32_t r, uint64_t i) { return tw::get_bit(bits + uint64_t(r) * rstride, i); }, TW_AT);
}
TW_TWIN_M(, void, (typename T, typename U, GatherMaskMode mode = defaultGatherMaskMode), GatherMask, (T, U, mode),
        (const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>& src1Pattern,
        const bool reduceMode, const uint32_t mask, const GatherMaskParams& p, uint64_t& rsvdCnt), (dst, src0,
        src1Pattern, reduceMode, mask, p, rsvdCnt), )

template <typename T, GatherMaskMode mode = defaultGatherMaskMode>
void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern,
                const bool reduceMode, const uint32_t mask, const GatherMaskParams& p, uint64_t& rsvdCnt, TW_SRC) {
    if (src1Pattern < 1 || src1Pattern > 7)
        tw::fail("invalid_argument",
                 "GatherMask built-in pattern " + std::to_string(src1Pattern) + " is not one of 1..7", TW_AT);
    rsvdCnt = tw::gather_mask(dst, src0, reduceMode, mask, p,
                              [src1Pattern](uint32_t, uint64_t i) { return tw::gm_pattern(src1Pattern, i); }, TW_AT);
}
TW_TWIN_M(, void, (typename T, GatherMaskMode mode = defaultGatherMaskMode), GatherMask, (T, mode),
        (const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern, const bool reduceMode,
        const uint32_t mask, const GatherMaskParams& p, uint64_t& rsvdCnt), (dst, src0, src1Pattern, reduceMode, mask,
        p, rsvdCnt), )

// ---------------------------------------------------------------------------------------------------------------
// Brcb: repeat r takes src0[8r .. 8r+7]; element k fills dst block k (32 bytes) at
// r * dstRepStride * 32 + k * dstBlkStride * 32 bytes. The reference treats dstBlkStride 0 as 1 (Brcb.md: "if
// repeatParams.dstBlkStride == 0: repeatParams.dstBlkStride = 1").

template <typename T>
void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t repeatTimes,
          const BrcbRepeatParams& p, TW_SRC) {
    constexpr uint32_t EB = 32 / sizeof(T);
    const uint32_t R = repeatTimes;
    const T* x = tw::vspan(src0, uint64_t(R) * 8, "Brcb", TW_AT);
    tw::Lay ld = tw::lay<T>(p.dstBlkStride == 0 ? 1 : p.dstBlkStride, p.dstRepStride);
    uint64_t ext = 0;
    if (R) {
        for (uint32_t k = 0; k < 8; ++k) ext = std::max(ext, ld.slot(k * EB + EB - 1));
        ext += ld.rep(R - 1) + 1;
    }
    T* d = tw::vspan(dst, ext, "Brcb", TW_AT);
    std::vector<T> v(x, x + uint64_t(R) * 8);
    for (uint32_t r = 0; r < R; ++r)
        for (uint32_t k = 0; k < 8; ++k)
            for (uint32_t j = 0; j < EB; ++j) d[ld.off(r, k * EB + j)] = v[uint64_t(r) * 8 + k];
    tw::vrec("Brcb", TW_AT, uint64_t(R) * 8 * EB, uint64_t(R) * 256, R, sizeof(T), true);
}
TW_TWIN_M(, void, (typename T), Brcb, (T), (const LocalTensor<T>& dst, const LocalTensor<T>& src0,
        const uint8_t repeatTimes, const BrcbRepeatParams& p), (dst, src0, repeatTimes, p), )

// ---------------------------------------------------------------------------------------------------------------
// Transpose: one 16 x 16 matrix of 2-byte elements.

template <typename T>
void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, TW_SRC) {
    static_assert(sizeof(T) == 2, "Transpose(dst, src) transposes a 16 x 16 matrix of 2-byte elements");
    T* d = dst.span(0, 256, "Transpose", TW_AT);
    const T* x = src.span(0, 256, "Transpose", TW_AT);
    T tmp[256];
    for (uint32_t i = 0; i < 16; ++i)
        for (uint32_t j = 0; j < 16; ++j) tmp[j * 16 + i] = x[i * 16 + j];
    std::memcpy(d, tmp, sizeof(tmp));
    tw::vrec("Transpose", TW_AT, 256, 512, 2, sizeof(T), false);
}
TW_TWIN_M(, void, (typename T), Transpose, (T), (const LocalTensor<T>& dst, const LocalTensor<T>& src), (dst, src), )

// ---------------------------------------------------------------------------------------------------------------
// TransDataTo5HD: per repeat, 16 source data blocks (32 bytes each, given by address) are read column by column.
//   16-bit: step i (16 steps) gathers element i of the 16 source blocks into destination block i.
//   32-bit: step i (8 steps) gathers element i of source blocks 0-7 into destination block 2i and of blocks 8-15
//           into block 2i+1.
//   8-bit:  step i (16 steps) gathers byte i (i + 16 with srcHighHalf) of the 16 source blocks into the low half of
//           destination block i (its high half with dstHighHalf).
// Repeat r moves every source address by r * srcRepStride blocks and every destination address by r * dstRepStride
// blocks. Addresses are UB byte addresses, as LocalTensor::GetPhyAddr() returns them.

struct TransDataTo5HDParams {
    bool dstHighHalf = false;
    bool srcHighHalf = false;
    uint8_t repeatTimes = 1;
    uint16_t dstRepStride = 0;
    uint16_t srcRepStride = 0;
    TransDataTo5HDParams() = default;
    TransDataTo5HDParams(bool dstHigh, bool srcHigh, uint8_t repeat, uint16_t dstStride, uint16_t srcStride)
        : dstHighHalf(dstHigh), srcHighHalf(srcHigh), repeatTimes(repeat), dstRepStride(dstStride),
          srcRepStride(srcStride) {}
};

constexpr int32_t NCHW_CONV_ADDR_LIST_SIZE = 16;

namespace tw_vec {
inline uint8_t* ub_block(uint64_t addr, const char* file, int line) {
    tw::Core& c = tw::cur();
    if (addr % 32 != 0)
        tw::fail("misaligned", "TransDataTo5HD address " + std::to_string(addr) + " is not 32-byte aligned", file, line);
    if (addr + 32 > c.ub.size())
        tw::fail("ub_out_of_bounds", "TransDataTo5HD touches UB bytes [" + std::to_string(addr) + ", " +
                 std::to_string(addr + 32) + "), past the " + std::to_string(c.ub.size()) + "-byte Unified Buffer",
                 file, line);
    return c.ub.data() + addr;
}

template <typename T>
void trans_5hd(const uint64_t* dst, const uint64_t* src, const TransDataTo5HDParams& p, const char* file, int line) {
    constexpr uint32_t N = NCHW_CONV_ADDR_LIST_SIZE;
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        uint8_t* s[N];
        uint8_t* d[N];
        for (uint32_t k = 0; k < N; ++k) {
            s[k] = ub_block(src[k] + uint64_t(r) * p.srcRepStride * 32, file, line);
            d[k] = ub_block(dst[k] + uint64_t(r) * p.dstRepStride * 32, file, line);
        }
        uint8_t out[N][32];  // every source is read before any destination is written
        for (uint32_t k = 0; k < N; ++k) std::memcpy(out[k], d[k], 32);
        if constexpr (sizeof(T) == 2) {
            for (uint32_t i = 0; i < 16; ++i)
                for (uint32_t k = 0; k < 16; ++k) std::memcpy(out[i] + 2 * k, s[k] + 2 * i, 2);
        } else if constexpr (sizeof(T) == 4) {
            for (uint32_t i = 0; i < 8; ++i)
                for (uint32_t k = 0; k < 16; ++k) std::memcpy(out[2 * i + k / 8] + 4 * (k % 8), s[k] + 4 * i, 4);
        } else {
            static_assert(sizeof(T) == 1, "TransDataTo5HD takes 8-, 16- or 32-bit elements");
            const uint32_t from = p.srcHighHalf ? 16 : 0, to = p.dstHighHalf ? 16 : 0;
            for (uint32_t i = 0; i < 16; ++i)
                for (uint32_t k = 0; k < 16; ++k) out[i][to + k] = s[k][from + i];
        }
        for (uint32_t k = 0; k < N; ++k) std::memcpy(d[k], out[k], 32);
    }
    tw::vrec("TransDataTo5HD", file, line, uint64_t(p.repeatTimes) * 512 / sizeof(T), uint64_t(p.repeatTimes) * 512,
             p.repeatTimes, sizeof(T), true);
}
}  // namespace tw_vec

template <typename T>
void TransDataTo5HD(const uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE], const uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                    const TransDataTo5HDParams& nchwconvParams, TW_SRC) {
    tw_vec::trans_5hd<T>(dstList, srcList, nchwconvParams, TW_AT);
}
TW_TWIN_M(, void, (typename T), TransDataTo5HD, (T), (const uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE],
        const uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE], const TransDataTo5HDParams& nchwconvParams), (dstList,
        srcList, nchwconvParams), )

template <typename T>
void TransDataTo5HD(const LocalTensor<T> (&dstList)[NCHW_CONV_ADDR_LIST_SIZE],
                    const LocalTensor<T> (&srcList)[NCHW_CONV_ADDR_LIST_SIZE], const TransDataTo5HDParams& nchwconvParams,
                    TW_SRC) {
    uint64_t d[NCHW_CONV_ADDR_LIST_SIZE], s[NCHW_CONV_ADDR_LIST_SIZE];
    for (int32_t k = 0; k < NCHW_CONV_ADDR_LIST_SIZE; ++k) {
        dstList[k].check(0, 1, "TransDataTo5HD", TW_AT);
        srcList[k].check(0, 1, "TransDataTo5HD", TW_AT);
        d[k] = dstList[k].GetPhyAddr();
        s[k] = srcList[k].GetPhyAddr();
    }
    tw_vec::trans_5hd<T>(d, s, nchwconvParams, TW_AT);
}

}  // namespace AscendC
