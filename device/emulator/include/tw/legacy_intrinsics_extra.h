// Lower-case intrinsics beyond tw/legacy_intrinsics.h that framework kernels call: the byte-granular burst copies
// between GM and UB, the forms the AscendC DataCopyPad API is built on (one per element width), and the vcadd form
// with its mode operand (at the end of this file):
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
#include <cstdint>
#include <string>

#include "tw/copy.h"
#include "tw/copy_slice.h"
#include "tw/legacy_intrinsics.h"

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
// Non-zero: one running sum across the repeats into the accumulator register that get_acc_val reads, which the
// emulator does not model, so the run stops there rather than compute something else.
template <typename T>
inline void vcadd(T* dst, const T* src, uint8_t repeat, uint16_t dstRep, uint16_t srcBlk, uint16_t srcRep,
                  int32_t accumulate, TW_SRC) {
    if (accumulate != 0)
        tw::fail("unsupported", "vcadd with the accumulate operand set (the sum goes to the accumulator register "
                 "get_acc_val reads, which the emulator does not model): use WholeReduceSum or ReduceSum", TW_AT);
    vcadd(dst, src, repeat, dstRep, srcBlk, srcRep, TW_AT);
}
