// Kernel-side API that framework kernels (Ascend Transformer Boost's norm kernels among them) call beside the
// documented vector and copy APIs:
//
//   AscendCUtils::SetMask<T, isSetMask>(len)        the mask register selects the first `len` lanes of a repeat
//                                                   (64 lanes per 64-bit half; 128 or more: all of them)
//   AscendCUtils::SetMask<T, isSetMask>(hi, lo)     the mask register's two halves as given
//   AscendCUtils::ResetMask<isSetMask>()            every lane
//   AscendCUtils::SetMaskCount<T>() / SetMaskNorm<T>()   counter / normal mask mode
//   AscendCUtils::GetBitSize(bytes), GetC0Size(), GetC0Count(typeSize), GetDefaultBlockNum()
//                                                   bits in `bytes`; a 32-byte block; elements per block; the 8
//                                                   blocks of a 256-byte repeat
//   AscendCUtils::InitSocStateImpl()                as InitSocState()
//   InitOutput<T>(gm, size, value = 0)              the deprecated form of a GM fill: `size` elements of `value`
//                                                   (duplicated in UB by the vector unit, then copied out by MTE3)
//   __bf16                                          the device compiler's name of the bfloat16 type
//
// With isSetMask = false the SetMask forms leave the register alone, as the API forms with that flag do.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>

#include "tw/api/data_copy.h"
#include "tw/api/half.h"
#include "tw/api/sync.h"
#include "tw/api/vector/core.h"

// g++ 13 and later have a native __bf16 (and then define __BFLT16_MANT_DIG__); older ones know no such name.
#if !defined(__BFLT16_MANT_DIG__)
using __bf16 = bfloat16_t;
#endif

namespace AscendC {

class AscendCUtils {
public:
    static int32_t GetBitSize(int32_t byteSize) { return byteSize * 8; }
    static int32_t GetC0Size() { return 32; }
    static int32_t GetC0Count(const int32_t dtypeSize, TW_SRC) {
        if (dtypeSize <= 0)
            tw::fail("invalid_argument", "AscendCUtils::GetC0Count: dtypeSize " + std::to_string(dtypeSize) +
                     " (it must be positive)", TW_AT);
        return GetC0Size() / dtypeSize;
    }
    TW_TWIN_N(static, int32_t, GetC0Count, (const int32_t dtypeSize), (dtypeSize), )
    static int32_t GetDefaultBlockNum() { return 8; }

    template <typename T, bool isSetMask = true>
    static void SetMask(const uint64_t& maskHigh, const uint64_t& maskLow) {
        if constexpr (isSetMask) SetVectorMask<T>(maskHigh, maskLow);
    }
    // The first `len` lanes: 64 sets the low half only, 128 or more (or a whole repeat of T) both halves.
    template <typename T, bool isSetMask = true>
    static void SetMask(int32_t len) {
        if constexpr (isSetMask) SetVectorMask<T, MaskMode::NORMAL>(len);
    }
    template <bool isSetMask = true>
    static void ResetMask() {
        if constexpr (isSetMask) AscendC::ResetMask();
    }
    template <typename T>
    static void SetMaskCount() {
        AscendC::SetMaskCount();
    }
    template <typename T>
    static void SetMaskNorm() {
        AscendC::SetMaskNorm();
    }
    static void InitSocStateImpl(TW_SRC) { InitSocState(TW_AT); }
    TW_TWIN_N0(static, void, InitSocStateImpl, )
};

// The vector unit duplicates `value` into UB, MTE3 copies it out over the `size` elements: both are recorded.
template <typename T>
void InitOutput(GlobalTensor<T> gmWorkspaceAddr, uint32_t size, T value = T(0), TW_SRC) {
    T* d = gmWorkspaceAddr.data();
    if (size == 0) return;
    tw::gm_check(d, uint64_t(size) * sizeof(T), "InitOutput", TW_AT);
    for (uint32_t i = 0; i < size; ++i) d[i] = value;
    const uint64_t bytes = uint64_t(size) * sizeof(T);
    // The UB chunk the reference fills once: at most 255 repeats' worth of blocks.
    const uint64_t chunk = std::min<uint64_t>(size, 255 * 32 / sizeof(T));
    tw::vrec_count<T>("Duplicate", TW_AT, static_cast<int64_t>(chunk));
    tw::record(tw::Rec::Instr, PIPE_MTE3, "InitOutput", TW_AT, bytes, size, 1, 0, 1, sizeof(T));
}
TW_TWIN_M(, void, (typename T), InitOutput, (T), (GlobalTensor<T> gmWorkspaceAddr, uint32_t size, T value),
        (gmWorkspaceAddr, size, value), )

}  // namespace AscendC
