// Data movement between GM and UB: DataCopy (count and strided forms) and DataCopyPad, with the alignment and
// bounds checks msSanitizer would make, and atomic accumulation for SetAtomicAdd.
#pragma once
#include <cstring>
#include <string>

#include "tw/api/tensor.h"

namespace tw {

TW_RUNTIME_FN void check_ub_aligned(const void* p, const char* what, const char* file, int line)
#ifdef TW_RUNTIME_EXTERN
;  // in the runtime object (tw/runtime/out_of_line.h)
#else
{
    uint64_t off = static_cast<uint64_t>(static_cast<const uint8_t*>(p) - cur().ub.data());
    if (off % 32 != 0)
        fail("misaligned", std::string(what) + " uses a UB address at byte offset " + std::to_string(off) +
                               ", which is not 32-byte aligned", file, line);
}
#endif

// A count-form DataCopy moves whole 32-byte blocks: the device rounds a length that is not a multiple of 32 bytes
// down and leaves the tail uncopied. The emulator does the same and warns at the call, so the run goes on and the
// output check decides whether the kernel is right. Returns the elements actually moved. A screening (a tuner's
// check before it pays for a run) stops at a GM<->UB copy like this instead: the tiling that asks for it is refused.
template <typename T>
inline uint32_t whole_blocks(uint32_t count, const char* what, const char* file, int line, bool gm_side = true) {
    const uint64_t bytes = uint64_t(count) * sizeof(T);
    if (bytes % 32 == 0) return count;
    const uint64_t kept = bytes / 32 * 32;
    if (gm_side && launch()->screening)
        fail("unaligned_copy",
             std::string(what) + " moves " + std::to_string(bytes) + " bytes between GM and UB, not a multiple of 32: "
                 "the device would copy only the first " + std::to_string(kept) + " and drop the last " +
                 std::to_string(bytes - kept),
             file, line);
    warn("misaligned",
         std::string(what) + " moves " + std::to_string(bytes) + " bytes, not a multiple of 32: the device copies only "
             "the first " + std::to_string(kept) + " (whole 32-byte blocks) and drops the last " +
             std::to_string(bytes - kept) + "; use DataCopyPad for lengths that are not 32-byte multiples",
         file, line);
    return static_cast<uint32_t>(kept / sizeof(T));
}

template <typename T>
inline void gm_write(T* dst, const T* src, uint64_t n) {
    Core& c = cur();
    if (c.atomic == 0) {
        std::memcpy(dst, src, n * sizeof(T));
        return;
    }
    std::lock_guard<std::mutex> lock(launch()->atomic_mu);  // blocks accumulate into the same GM concurrently
    for (uint64_t i = 0; i < n; ++i) {
        float a = static_cast<float>(dst[i]), b = static_cast<float>(src[i]);
        float r = c.atomic == 1 ? a + b : c.atomic == 2 ? (a > b ? a : b) : (a < b ? a : b);
        if constexpr (std::is_integral<T>::value) {
            T ai = dst[i], bi = src[i];
            dst[i] = c.atomic == 1 ? static_cast<T>(ai + bi) : c.atomic == 2 ? (ai > bi ? ai : bi) : (ai < bi ? ai : bi);
        } else {
            dst[i] = static_cast<T>(r);
        }
    }
}

}  // namespace tw

namespace AscendC {

// GM -> UB
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count, TW_SRC) {
    count = tw::whole_blocks<T>(count, "DataCopy", TW_AT);
    tw::check_ub_aligned(dst.data(), "DataCopy", TW_AT);
    T* d = dst.span(0, count, "DataCopy", TW_AT);
    const tw::GmRegion& region = tw::gm_check(src.data(), uint64_t(count) * sizeof(T), "DataCopy", TW_AT);
    tw::race_mte2_write(d, uint64_t(count) * sizeof(T), TW_AT);
    std::memcpy(d, src.data(), uint64_t(count) * sizeof(T));
    tw::record(tw::Rec::Instr, PIPE_MTE2, "DataCopy", TW_AT, uint64_t(count) * sizeof(T), count, 1, 0, 1, sizeof(T));
    tw::note_gm(region, src.data(), 0, tw::extra_segments(region, src.data(), uint64_t(count) * sizeof(T)), src.keeps_in_l2());
}
TW_TWIN_M(, void, (typename T), DataCopy, (T), (const LocalTensor<T>& dst, const GlobalTensor<T>& src,
        uint32_t count), (dst, src, count), )

// UB -> GM
template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count, TW_SRC) {
    count = tw::whole_blocks<T>(count, "DataCopy", TW_AT);
    tw::check_ub_aligned(src.data(), "DataCopy", TW_AT);
    const T* s = src.span(0, count, "DataCopy", TW_AT);
    const tw::GmRegion& region = tw::gm_check(dst.data(), uint64_t(count) * sizeof(T), "DataCopy", TW_AT);
    tw::race_mte3_read(s, uint64_t(count) * sizeof(T), TW_AT);
    tw::gm_write(dst.data(), s, count);
    tw::record(tw::Rec::Instr, PIPE_MTE3, "DataCopy", TW_AT, uint64_t(count) * sizeof(T), count, 1, 0, 1, sizeof(T),
               tw::cur().atomic ? 2 : 0);
    tw::note_gm(region, dst.data(), 0, tw::extra_segments(region, dst.data(), uint64_t(count) * sizeof(T)), dst.keeps_in_l2());
}
TW_TWIN_M(, void, (typename T), DataCopy, (T), (const GlobalTensor<T>& dst, const LocalTensor<T>& src,
        uint32_t count), (dst, src, count), )

// UB -> UB (runs on the vector side's copy path)
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count, TW_SRC) {
    count = tw::whole_blocks<T>(count, "DataCopy", TW_AT, false);
    T* d = dst.span(0, count, "DataCopy", TW_AT);
    const T* s = src.span(0, count, "DataCopy", TW_AT);
    std::memmove(d, s, uint64_t(count) * sizeof(T));
    tw::record(tw::Rec::Instr, PIPE_V, "DataCopy", TW_AT, uint64_t(count) * sizeof(T), count,
               static_cast<uint32_t>((uint64_t(count) * sizeof(T) + 255) / 256), 0, 0, sizeof(T));
}
TW_TWIN_M(, void, (typename T), DataCopy, (T), (const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count),
        (dst, src, count), )

// Strided forms: blockLen and strides in 32-byte blocks; strides are gaps between consecutive blocks.
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p, TW_SRC) {
    tw::check_ub_aligned(dst.data(), "DataCopy", TW_AT);
    const uint64_t blk = uint64_t(p.blockLen) * 32 / sizeof(T);
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.data());
    const uint8_t* s = reinterpret_cast<const uint8_t*>(src.data());
    uint32_t extra = 0;
    const tw::GmRegion* first = nullptr;
    for (uint16_t i = 0; i < p.blockCount; ++i) {
        uint64_t doff = uint64_t(i) * (p.blockLen + p.dstStride) * 32;
        uint64_t soff = uint64_t(i) * (p.blockLen + p.srcStride) * 32;
        dst.span(doff / sizeof(T), blk, "DataCopy", TW_AT);
        const tw::GmRegion& region = tw::gm_check(s + soff, uint64_t(p.blockLen) * 32, "DataCopy", TW_AT);
        if (i == 0) first = &region;
        extra += tw::extra_segments(region, s + soff, uint64_t(p.blockLen) * 32);
        tw::race_mte2_write(d + doff, uint64_t(p.blockLen) * 32, TW_AT);
        std::memcpy(d + doff, s + soff, uint64_t(p.blockLen) * 32);
    }
    uint64_t bytes = uint64_t(p.blockCount) * p.blockLen * 32;
    tw::record(tw::Rec::Instr, PIPE_MTE2, "DataCopy", TW_AT, bytes, static_cast<uint32_t>(bytes / sizeof(T)),
               p.blockCount, 0, 1, sizeof(T));
    if (first) tw::note_gm(*first, s, uint64_t(p.blockLen + p.srcStride) * 32, extra, src.keeps_in_l2());
}
TW_TWIN_M(, void, (typename T), DataCopy, (T), (const LocalTensor<T>& dst, const GlobalTensor<T>& src,
        const DataCopyParams& p), (dst, src, p), )

template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p, TW_SRC) {
    tw::check_ub_aligned(src.data(), "DataCopy", TW_AT);
    const uint64_t blk = uint64_t(p.blockLen) * 32 / sizeof(T);
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.data());
    const uint8_t* s = reinterpret_cast<const uint8_t*>(src.data());
    uint32_t extra = 0;
    const tw::GmRegion* first = nullptr;
    for (uint16_t i = 0; i < p.blockCount; ++i) {
        uint64_t soff = uint64_t(i) * (p.blockLen + p.srcStride) * 32;
        uint64_t doff = uint64_t(i) * (p.blockLen + p.dstStride) * 32;
        src.span(soff / sizeof(T), blk, "DataCopy", TW_AT);
        const tw::GmRegion& region = tw::gm_check(d + doff, uint64_t(p.blockLen) * 32, "DataCopy", TW_AT);
        if (i == 0) first = &region;
        extra += tw::extra_segments(region, d + doff, uint64_t(p.blockLen) * 32);
        tw::race_mte3_read(s + soff, uint64_t(p.blockLen) * 32, TW_AT);
        tw::gm_write(reinterpret_cast<T*>(d + doff), reinterpret_cast<const T*>(s + soff), blk);
    }
    uint64_t bytes = uint64_t(p.blockCount) * p.blockLen * 32;
    tw::record(tw::Rec::Instr, PIPE_MTE3, "DataCopy", TW_AT, bytes, static_cast<uint32_t>(bytes / sizeof(T)),
               p.blockCount, 0, 1, sizeof(T), tw::cur().atomic ? 2 : 0);
    if (first) tw::note_gm(*first, d, uint64_t(p.blockLen + p.dstStride) * 32, extra, dst.keeps_in_l2());
}
TW_TWIN_M(, void, (typename T), DataCopy, (T), (const GlobalTensor<T>& dst, const LocalTensor<T>& src,
        const DataCopyParams& p), (dst, src, p), )

template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p, TW_SRC) {
    const uint64_t blk = uint64_t(p.blockLen) * 32 / sizeof(T);
    for (uint16_t i = 0; i < p.blockCount; ++i) {
        uint64_t soff = uint64_t(i) * (p.blockLen + p.srcStride) * 32 / sizeof(T);
        uint64_t doff = uint64_t(i) * (p.blockLen + p.dstStride) * 32 / sizeof(T);
        std::memmove(dst.span(doff, blk, "DataCopy", TW_AT), src.span(soff, blk, "DataCopy", TW_AT), blk * sizeof(T));
    }
    uint64_t bytes = uint64_t(p.blockCount) * p.blockLen * 32;
    tw::record(tw::Rec::Instr, PIPE_V, "DataCopy", TW_AT, bytes, static_cast<uint32_t>(bytes / sizeof(T)),
               p.blockCount, 0, 0, sizeof(T));
}
TW_TWIN_M(, void, (typename T), DataCopy, (T), (const LocalTensor<T>& dst, const LocalTensor<T>& src,
        const DataCopyParams& p), (dst, src, p), )

// DataCopyPad GM -> UB: blockCount rows of blockLen bytes; GM rows are srcStride bytes apart (gap after each row).
// Each UB row is leftPadding elements, the row's data, rightPadding elements, then filler ("dummy") up to the next
// 32-byte boundary; UB rows are dstStride extra 32-byte blocks apart. What the padding and the filler hold follows the
// reference (GMToUB DataCopyPad, "parameter notes"): with leftPadding and rightPadding both 0 the filler repeats the
// row's first element; otherwise padding and filler are paddingValue when isPad is true, and unspecified ("random")
// when it is false, which the emulator makes a poison pattern (all bits set) so that a kernel reading them fails,
// unless SetPadValue has set the pad register, whose value then fills them (the reference's SetPadValue scenario).
// The padding counts apply whatever isPad says (isPad only chooses the value).
template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                 const DataCopyPadExtParams<T>& pad, TW_SRC) {
    tw::check_ub_aligned(dst.data(), "DataCopyPad", TW_AT);
    if (p.blockCount == 0 || p.blockLen == 0) return;  // documented as a NOP on A2/A3
    const uint64_t row_bytes = p.blockLen, es = sizeof(T);
    const uint64_t left = pad.leftPadding, right = pad.rightPadding;
    const uint64_t ub_row = tw::align32(row_bytes + (left + right) * es);
    const uint64_t row_elems = ub_row / es, data_elems = row_bytes / es;
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.data());
    const uint8_t* s = reinterpret_cast<const uint8_t*>(src.data());
    uint32_t extra = 0;
    const tw::GmRegion* first = nullptr;
    for (uint16_t i = 0; i < p.blockCount; ++i) {
        uint64_t soff = uint64_t(i) * (row_bytes + p.srcStride);
        uint64_t doff = uint64_t(i) * (ub_row + uint64_t(p.dstStride) * 32);
        dst.span(doff / es, row_elems, "DataCopyPad", TW_AT);
        const tw::GmRegion& region = tw::gm_check(s + soff, row_bytes, "DataCopyPad", TW_AT);
        if (i == 0) first = &region;
        extra += tw::extra_segments(region, s + soff, row_bytes);
        T* row = reinterpret_cast<T*>(d + doff);
        tw::race_mte2_write(row, ub_row, TW_AT);
        std::memcpy(row + left, s + soff, row_bytes);
        if (left == 0 && right == 0) {
            if (data_elems > 0)
                for (uint64_t k = data_elems; k < row_elems; ++k) row[k] = row[0];
        } else if (pad.isPad) {
            for (uint64_t k = 0; k < left; ++k) row[k] = pad.paddingValue;
            for (uint64_t k = left + data_elems; k < row_elems; ++k) row[k] = pad.paddingValue;
        } else if (tw::cur().pad_set) {  // isPad false after SetPadValue: the register's value (tw/api/data_copy_slice.h)
            T v;
            std::memcpy(&v, &tw::cur().pad_reg, es);
            for (uint64_t k = 0; k < left; ++k) row[k] = v;
            for (uint64_t k = left + data_elems; k < row_elems; ++k) row[k] = v;
        } else {
            std::memset(row, 0xFF, left * es);
            std::memset(row + left + data_elems, 0xFF, (row_elems - left - data_elems) * es);
        }
    }
    tw::record(tw::Rec::Instr, PIPE_MTE2, "DataCopyPad", TW_AT, uint64_t(p.blockCount) * row_bytes,
               static_cast<uint32_t>(uint64_t(p.blockCount) * row_bytes / sizeof(T)), p.blockCount, 0, 1, sizeof(T), 1);
    if (first) tw::note_gm(*first, s, row_bytes + p.srcStride, extra, src.keeps_in_l2());
}
TW_TWIN_M(, void, (typename T), DataCopyPad, (T), (const LocalTensor<T>& dst, const GlobalTensor<T>& src,
        const DataCopyExtParams& p, const DataCopyPadExtParams<T>& pad), (dst, src, p, pad), )

template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                 const DataCopyPadParams& pad, TW_SRC) {
    DataCopyPadExtParams<T> ext(pad.isPad, pad.leftPadding, pad.rightPadding, static_cast<T>(pad.paddingValue));
    DataCopyPad(dst, src, DataCopyExtParams(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0), ext, TW_AT);
}
TW_TWIN_M(, void, (typename T), DataCopyPad, (T), (const LocalTensor<T>& dst, const GlobalTensor<T>& src,
        const DataCopyParams& p, const DataCopyPadParams& pad), (dst, src, p, pad), )

// DataCopyPad UB -> GM: UB rows start at 32-byte boundaries (srcStride extra blocks apart); GM rows are
// dstStride bytes apart.
template <typename T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p, TW_SRC) {
    tw::check_ub_aligned(src.data(), "DataCopyPad", TW_AT);
    const uint64_t row_bytes = p.blockLen;
    const uint64_t ub_row = tw::align32(row_bytes);
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.data());
    const uint8_t* s = reinterpret_cast<const uint8_t*>(src.data());
    uint32_t extra = 0;
    const tw::GmRegion* first = nullptr;
    for (uint16_t i = 0; i < p.blockCount; ++i) {
        uint64_t soff = uint64_t(i) * (ub_row + uint64_t(p.srcStride) * 32);
        uint64_t doff = uint64_t(i) * (row_bytes + p.dstStride);
        src.span(soff / sizeof(T), row_bytes / sizeof(T), "DataCopyPad", TW_AT);
        const tw::GmRegion& region = tw::gm_check(d + doff, row_bytes, "DataCopyPad", TW_AT);
        if (i == 0) first = &region;
        extra += tw::extra_segments(region, d + doff, row_bytes);
        tw::race_mte3_read(s + soff, row_bytes, TW_AT);
        tw::gm_write(reinterpret_cast<T*>(d + doff), reinterpret_cast<const T*>(s + soff), row_bytes / sizeof(T));
    }
    tw::record(tw::Rec::Instr, PIPE_MTE3, "DataCopyPad", TW_AT, uint64_t(p.blockCount) * row_bytes,
               static_cast<uint32_t>(uint64_t(p.blockCount) * row_bytes / sizeof(T)), p.blockCount, 0, 1, sizeof(T),
               static_cast<uint8_t>(1 | (tw::cur().atomic ? 2 : 0)));
    if (first) tw::note_gm(*first, d, row_bytes + p.dstStride, extra, dst.keeps_in_l2());
}
TW_TWIN_M(, void, (typename T), DataCopyPad, (T), (const GlobalTensor<T>& dst, const LocalTensor<T>& src,
        const DataCopyExtParams& p), (dst, src, p), )

template <typename T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p, TW_SRC) {
    DataCopyPad(dst, src, DataCopyExtParams(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0), TW_AT);
}
TW_TWIN_M(, void, (typename T), DataCopyPad, (T), (const GlobalTensor<T>& dst, const LocalTensor<T>& src,
        const DataCopyParams& p), (dst, src, p), )

template <typename T>
void SetAtomicAdd(TW_SRC) {
    tw::Core& c = tw::cur();
    c.atomic = 1;
    tw::record(tw::Rec::Instr, PIPE_S, "SetAtomicAdd", TW_AT);
}
TW_TWIN_M0(, void, (typename T), SetAtomicAdd, (T), )
template <typename T>
void SetAtomicMax(TW_SRC) { tw::cur().atomic = 2; tw::record(tw::Rec::Instr, PIPE_S, "SetAtomicMax", TW_AT); }
TW_TWIN_M0(, void, (typename T), SetAtomicMax, (T), )
template <typename T>
void SetAtomicMin(TW_SRC) { tw::cur().atomic = 3; tw::record(tw::Rec::Instr, PIPE_S, "SetAtomicMin", TW_AT); }
TW_TWIN_M0(, void, (typename T), SetAtomicMin, (T), )
inline void SetAtomicNone(TW_SRC) { tw::cur().atomic = 0; tw::record(tw::Rec::Instr, PIPE_S, "SetAtomicNone", TW_AT); }
TW_TWIN_N0(, void, SetAtomicNone, )

}  // namespace AscendC
