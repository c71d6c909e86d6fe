// Lower-case intrinsics beyond tw/api/cce/intrinsics.h that framework kernels call: the byte-granular burst copies
// between GM and UB, the forms the AscendC DataCopyPad API is built on (one per element width), and the vcadd form
// with its accumulate operand with get_acc_val, vcmax / vcmin with their Order_t operand, and the block_idx /
// block_num variables (at the end of this file):
//
//   copy_gm_to_ubuf_align_b8/b16/b32(dst, src, sid, nBurst, lenBurst, leftPaddingNum, rightPaddingNum, srcGap,
//                                    dstGap)
//       nBurst rows of lenBurst bytes; GM rows srcGap bytes apart (gap after each row), UB rows each padded to a
//       32-byte boundary and dstGap 32-byte blocks apart; leftPaddingNum / rightPaddingNum elements of padding
//   copy_ubuf_to_gm_align_b8/b16/b32(dst, src, sid, nBurst, lenBurst, leftPaddingNum, rightPaddingNum, srcGap,
//                                    dstGap)
//       nBurst rows of lenBurst bytes; UB rows at 32-byte boundaries, srcGap blocks apart; GM rows dstGap bytes apart
//   set_mov_pad_val(value)   the pad register the GM -> UB padding and filler take (SetPadValue)
//
// Each is the emulator's DataCopyPad with those parameters (isPad false: padding and filler come from the pad
// register, or repeat the row's first element when there is no padding), so that bounds checks, sanitizer findings
// and trace records are DataCopyPad's. `sid` does not affect the data. Under atomic mode a copy out accumulates
// elements of the type set_atomic_<type> chose when it has the copy's width.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "tw/api/data_copy.h"
#include "tw/api/data_copy_slice.h"
#include "tw/api/cce/intrinsics.h"

namespace tw {

template <typename E>
inline void copy_align_in(void* dst, const void* src, uint16_t nBurst, uint32_t lenBurst, uint8_t left, uint8_t right,
                          uint32_t srcGap, uint32_t dstGap, const char* what, const char* file, int line) {
    if (lenBurst % sizeof(E) != 0)
        fail("misaligned", std::string(what) + ": lenBurst " + std::to_string(lenBurst) + " bytes is not a whole " +
             "number of " + std::to_string(sizeof(E)) + "-byte elements", file, line);
    AscendC::DataCopyPad(ub_view<E>(dst, what, file, line), gm_view<E>(src),
                         AscendC::DataCopyExtParams(nBurst, lenBurst, srcGap, dstGap, 0),
                         AscendC::DataCopyPadExtParams<E>(false, left, right, E()), file, line);
}

template <typename E>
inline void copy_align_out(void* dst, const void* src, uint16_t nBurst, uint32_t lenBurst, uint8_t left,
                           uint8_t right, uint32_t srcGap, uint32_t dstGap, const char* what, const char* file,
                           int line) {
    if (left != 0 || right != 0)
        fail("unsupported", std::string(what) + ": padding on a copy out to GM", file, line);
    if (lenBurst % sizeof(E) != 0)
        fail("misaligned", std::string(what) + ": lenBurst " + std::to_string(lenBurst) + " bytes is not a whole " +
             "number of " + std::to_string(sizeof(E)) + "-byte elements", file, line);
    auto copy = [&](auto zero) {
        using A = decltype(zero);
        AscendC::DataCopyPad(gm_view<A>(dst), ub_view<A>(src, what, file, line),
                             AscendC::DataCopyExtParams(nBurst, lenBurst, srcGap, dstGap, 0), file, line);
    };
    const int code = cur().atomic ? cur().atomic_dtype : 0;
    bool done = false;
    if (code != 0) {
        with_atomic_type(code, [&](auto zero) {
            if constexpr (sizeof(zero) == sizeof(E)) {
                copy(zero);
                done = true;
            }
        });
    }
    if (!done) copy(E());
}

}  // namespace tw

#define TW_COPY_ALIGN(BITS, E)                                                                                      \
    inline void copy_gm_to_ubuf_align_b##BITS(void* dst, const void* src, uint8_t sid, uint16_t nBurst,             \
                                              uint32_t lenBurst, uint8_t leftPaddingNum, uint8_t rightPaddingNum,    \
                                              uint32_t srcGap, uint32_t dstGap, TW_SRC) {                            \
        (void)sid;                                                                                                   \
        tw::copy_align_in<E>(dst, src, nBurst, lenBurst, leftPaddingNum, rightPaddingNum, srcGap, dstGap,            \
                             "copy_gm_to_ubuf_align_b" #BITS, TW_AT);                                               \
    }                                                                                                                \
    inline void copy_ubuf_to_gm_align_b##BITS(void* dst, const void* src, uint8_t sid, uint16_t nBurst,             \
                                              uint32_t lenBurst, uint8_t leftPaddingNum, uint8_t rightPaddingNum,    \
                                              uint32_t srcGap, uint32_t dstGap, TW_SRC) {                            \
        (void)sid;                                                                                                   \
        tw::copy_align_out<E>(dst, src, nBurst, lenBurst, leftPaddingNum, rightPaddingNum, srcGap, dstGap,           \
                              "copy_ubuf_to_gm_align_b" #BITS, TW_AT);                                              \
    }
TW_COPY_ALIGN(8, uint8_t)
TW_COPY_ALIGN(16, uint16_t)
TW_COPY_ALIGN(32, uint32_t)
#undef TW_COPY_ALIGN

inline void set_mov_pad_val(uint64_t value, TW_SRC) { AscendC::SetPadValue<uint64_t>(value, TW_AT); }

// vcadd(dst, src, repeat, dstRepStride, srcBlkStride, srcRepStride, accumulate): the form whose last operand chooses
// where the sums go. 0 (how WholeReduceSum issues it): one sum per repeat into dst, as the six-operand form.
// Non-zero (how ReduceSum issues it): one sum over every lane the mask selects in every repeat goes to the core's
// accumulator register, which get_acc_val() reads back (the value's bits in the low bytes); dst is not written.
// In counter mode the mask register's count is the number of elements, taken repeat after repeat.
namespace tw {
inline uint64_t& acc_register() {
    thread_local uint64_t acc = 0;  // each emulated core runs on a thread of its own
    return acc;
}
}  // namespace tw

template <typename T>
inline void vcadd(tw::nd_t<T>* dst, const T* src, uint8_t repeat, uint16_t dstRep, uint16_t srcBlk, uint16_t srcRep,
                  int32_t accumulate, TW_SRC) {  // dst not deduced: the accumulating form is called with nullptr
    if (accumulate == 0) {
        vcadd(dst, src, repeat, dstRep, srcBlk, srcRep, TW_AT);
        return;
    }
    constexpr uint32_t lanes = 256 / sizeof(T), per_block = 32 / sizeof(T);
    tw::Core& c = tw::cur();
    const uint64_t count = c.counter_mode ? c.vector_mask[0] : 0;
    const uint32_t repeats = c.counter_mode ? static_cast<uint32_t>((count + lanes - 1) / lanes) : repeat;
    auto lane_on = [&](uint32_t r, uint32_t i) {
        if (c.counter_mode) return uint64_t(r) * lanes + i < count;
        return ((c.vector_mask[i / 64] >> (i % 64)) & 1) != 0;
    };
    auto index = [&](uint32_t r, uint32_t i) {
        return uint64_t(r) * srcRep * per_block + uint64_t(i / per_block) * srcBlk * per_block + i % per_block;
    };
    uint64_t extent = 0, used = 0;
    for (uint32_t r = 0; r < repeats; ++r)
        for (uint32_t i = 0; i < lanes; ++i)
            if (lane_on(r, i)) extent = std::max<uint64_t>(extent, index(r, i) + 1), ++used;
    const T* s = tw::ub_view<T>(src, "vcadd", TW_AT).span(0, extent, "vcadd", TW_AT);
    float sum = 0.0f;
    for (uint32_t r = 0; r < repeats; ++r)
        for (uint32_t i = 0; i < lanes; ++i)
            if (lane_on(r, i)) sum += static_cast<float>(s[index(r, i)]);
    const T result = static_cast<T>(sum);
    uint64_t bits = 0;
    std::memcpy(&bits, &result, sizeof(T));
    tw::acc_register() = bits;
    tw::vrec("ReduceSum", TW_AT, used, used * sizeof(T), repeats, sizeof(T), true);
}

// The accumulator register an accumulating vcadd wrote.
inline int64_t get_acc_val() { return static_cast<int64_t>(tw::acc_register()); }

// block_idx / block_num: the device compiler's built-in variables for this core's index and the launch's block count
// (what get_block_idx() / get_block_num() return), read where a kernel names them.
struct TwBlockIdxVariable {
    operator int64_t() const { return AscendC::GetBlockIdx(); }  // NOLINT: converts wherever the variable is used
};
struct TwBlockNumVariable {
    operator int64_t() const { return AscendC::GetBlockNum(); }  // NOLINT
};
inline const TwBlockIdxVariable block_idx{};
inline const TwBlockNumVariable block_num{};

// get_imm(imm0_15[, imm16_31[, imm32_47[, imm48_63]]]): the 64-bit immediate made of up to four 16-bit pieces, lowest
// first (AscendC's GetImm is this intrinsic). Kernels use it as a number, and old tiling macros cast it to a UB
// pointer (`(__ubuf__ uint8_t*)get_imm(0)`: UB address 0) and dereference that. The value converts to an integer
// wherever one is needed; the explicit pointer conversion (a cast) gives that address in the emulated UB.
class TwImmediate {
  public:
    explicit constexpr TwImmediate(uint64_t v) : v_(v) {}
    constexpr operator uint64_t() const { return v_; }  // NOLINT: a number wherever the kernel uses one
    template <typename T>
    explicit operator T*() const {
        tw::Core& c = tw::cur();
        if (v_ >= c.ub.size())
            tw::fail("ub_out_of_bounds", "a pointer cast of get_imm(" + std::to_string(v_) +
                     ") is past the end of the " + std::to_string(c.ub.size()) + "-byte Unified Buffer", nullptr, 0);
        return reinterpret_cast<T*>(c.ub.data() + v_);
    }

  private:
    uint64_t v_;
};
inline TwImmediate get_imm(uint64_t imm0_15, uint64_t imm16_31 = 0, uint64_t imm32_47 = 0, uint64_t imm48_63 = 0) {
    return TwImmediate((imm0_15 & 0xFFFF) | (imm16_31 & 0xFFFF) << 16 | (imm32_47 & 0xFFFF) << 32 |
                       (imm48_63 & 0xFFFF) << 48);
}

// vcmax / vcmin(dst, src, repeat, dstRepStride, srcBlkStride, srcRepStride, order): the form with the result order
// operand, as WholeReduceMax / WholeReduceMin issue it (Order_t numbers the orders as AscendC's ReduceOrder does).
enum class Order_t : uint8_t { VALUE_INDEX = 0, INDEX_VALUE = 1, ONLY_VALUE = 2, ONLY_INDEX = 3 };
template <typename T>
inline void vcmax(T* dst, const T* src, uint8_t repeat, uint16_t dstRep, uint16_t srcBlk, uint16_t srcRep,
                  Order_t order, TW_SRC) {
    AscendC::WholeReduceMax<T, false>(tw::ub_view<T>(dst, "vcmax", TW_AT), tw::ub_view<T>(src, "vcmax", TW_AT),
                                      AscendC::MASK_PLACEHOLDER, repeat, dstRep, srcBlk, srcRep,
                                      static_cast<AscendC::ReduceOrder>(order), TW_AT);
}
template <typename T>
inline void vcmin(T* dst, const T* src, uint8_t repeat, uint16_t dstRep, uint16_t srcBlk, uint16_t srcRep,
                  Order_t order, TW_SRC) {
    AscendC::WholeReduceMin<T, false>(tw::ub_view<T>(dst, "vcmin", TW_AT), tw::ub_view<T>(src, "vcmin", TW_AT),
                                      AscendC::MASK_PLACEHOLDER, repeat, dstRep, srcBlk, srcRep,
                                      static_cast<AscendC::ReduceOrder>(order), TW_AT);
}

// PRELOAD(len): the toolchain's spelling of the instruction-cache prefetch AscendC names ICachePreLoad (ATB kernels
// call it first thing, "icache预取"), the same length in 2 KiB units.
inline void PRELOAD(const int64_t preFetchLen, TW_SRC) { AscendC::ICachePreLoad(preFetchLen, TW_AT); }
