// Scalar-unit and system APIs of the 910B vector core, written from the Ascend C API reference:
//
//   scalar unit        ScalarGetCountOfValue, ScalarCountLeadingZero, ScalarGetSFFValue, CountBitsCntSameAsSignBit,
//                      ScalarCast, and their current names GetBitCount, CountLeadingZero, GetSFFValue, Cast
//   system             SetAtomicType, GetSubBlockNum, GetSystemCycle, DataSyncBarrier, GetDataBlockSizeInBytes,
//                      Trap
//
// The scalar-unit calls compute their answer and append no trace record; SetAtomicType and DataSyncBarrier append one
// PIPE_S record each.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "tw/api/vector/core.h"

namespace AscendC {

// ---- scalar unit: bit counting on 64-bit values ---------------------------------------------------------------

// Number of bits equal to countValue (0 or 1).
template <int countValue>
int64_t ScalarGetCountOfValue(uint64_t valueIn) {
    static_assert(countValue == 0 || countValue == 1, "ScalarGetCountOfValue counts 0 or 1 bits");
    const int64_t ones = __builtin_popcountll(valueIn);
    return countValue == 1 ? ones : 64 - ones;
}

// Leading zero bits (64 for 0).
inline int64_t ScalarCountLeadingZero(uint64_t valueIn) { return valueIn == 0 ? 64 : __builtin_clzll(valueIn); }

// Position of the first bit equal to countValue from the least significant end, or -1 when there is none.
template <int countValue>
int64_t ScalarGetSFFValue(uint64_t valueIn) {
    static_assert(countValue == 0 || countValue == 1, "ScalarGetSFFValue finds a 0 or a 1 bit");
    const uint64_t v = countValue == 1 ? valueIn : ~valueIn;
    return v == 0 ? -1 : __builtin_ctzll(v);
}

// Bits after the sign bit that equal it (the redundant sign bits of a two's-complement value).
inline int64_t CountBitsCntSameAsSignBit(int64_t valueIn) {
    const uint64_t v = static_cast<uint64_t>(valueIn);
    const uint64_t x = (v >> 63) ? ~v : v;  // leading ones become leading zeros
    return (x == 0 ? 64 : __builtin_clzll(x)) - 1;
}

// ScalarCast<float, half / int32_t, roundMode>: one scalar conversion with the given rounding.
template <typename T, typename U, RoundMode roundMode>
U ScalarCast(T valueIn) {
    static_assert(std::is_same<T, float>::value, "ScalarCast converts a float");
    const tw::Round mode = tw::round_of(roundMode);
    if constexpr (std::is_same<U, half>::value) {
        return half::from_bits(tw::float_to_half_bits(valueIn, mode));
    } else {
        static_assert(std::is_same<U, int32_t>::value, "ScalarCast converts to half or int32_t");
        double r = valueIn;
        switch (mode) {
            case tw::Round::Floor: r = std::floor(r); break;
            case tw::Round::Ceil: r = std::ceil(r); break;
            case tw::Round::Round: r = std::round(r); break;
            case tw::Round::Trunc: r = std::trunc(r); break;
            default: r = std::nearbyint(r); break;  // RINT: to nearest, ties to even
        }
        if (std::isnan(r)) return 0;
        if (r >= 2147483647.0) return INT32_MAX;  // saturating, as the scalar unit's conversion
        if (r <= -2147483648.0) return INT32_MIN;
        return static_cast<int32_t>(r);
    }
}

// The reference's current names of the same scalar operations (basic_api/kernel_operator_scalar_intf.h):
// GetBitCount, CountLeadingZero, GetSFFValue and the scalar Cast forms (float -> bfloat16_t rounds to nearest even,
// CAST_RINT; bfloat16_t -> float is exact; Cast<float, half | int32_t, roundMode> is ScalarCast's).
template <int countValue>
int64_t GetBitCount(uint64_t valueIn) { return ScalarGetCountOfValue<countValue>(valueIn); }
inline int64_t CountLeadingZero(uint64_t valueIn) { return ScalarCountLeadingZero(valueIn); }
template <int countValue>
int64_t GetSFFValue(uint64_t valueIn) { return ScalarGetSFFValue<countValue>(valueIn); }
inline bfloat16_t Cast(const float& fVal) { return bfloat16_t(fVal); }
inline float Cast(const bfloat16_t& bVal) { return static_cast<float>(bVal); }
template <typename T, typename U, RoundMode roundMode>
U Cast(T valueIn) { return ScalarCast<T, U, roundMode>(valueIn); }

// ---- system ---------------------------------------------------------------------------------------------------

// SetAtomicType<T>: the element type the atomic operation (set with SetAtomicAdd/Max/Min) accumulates in; the
// emulator's GM writes already accumulate in the copied tensor's own type, so this records the choice only for the
// legacy burst copies (copy_ubuf_to_gm), which move bytes.
template <typename T>
void SetAtomicType(TW_SRC) {
    int code = 2;
    if constexpr (std::is_same<T, half>::value) code = 1;
    else if constexpr (std::is_same<T, int32_t>::value) code = 3;
    else if constexpr (std::is_same<T, int16_t>::value) code = 4;
    else if constexpr (std::is_same<T, int8_t>::value) code = 5;
    else if constexpr (std::is_same<T, bfloat16_t>::value) code = 6;
    tw::cur().atomic_dtype = code;
    tw::record(tw::Rec::Instr, PIPE_S, "SetAtomicType", TW_AT);
}
TW_TWIN_M0(, void, (typename T), SetAtomicType, (T), )

// Vector sub-blocks per AI core as seen by a kernel: each emulated block is a vector core of its own.
inline int64_t GetSubBlockNum() { return 1; }

// The size of one data block, the unit of the vector instructions' block strides: 32 bytes on the A2
// (GetDataBlockSizeInBytes.md: "the data block of the current chip").
constexpr int16_t GetDataBlockSizeInBytes() { return 32; }

// Trap (Trap.md): stops the AI Core on the device and "in CPU mode is an assert", so the block ends with an error.
inline void Trap(TW_SRC) { tw::fail("trap", "Trap() was called: the kernel stopped the AI Core", TW_AT); }
TW_TWIN_N0(, void, Trap, )

// The core's cycle counter: the scalar issue slots this block has used so far, one per trace record, which is
// monotonic and deterministic (the timing model, not this counter, gives the simulated time).
inline int64_t GetSystemCycle() { return static_cast<int64_t>(tw::cur().trace.size()); }

// A memory barrier between the scalar unit's and the pipes' accesses; the emulator executes in program order, so
// the order already holds. The template argument names the memory (DSB_ALL, DSB_DDR, DSB_UB, DSB_SEQ).
enum class MemDsbT : uint8_t { ALL = 0, DDR, UB, SEQ };
template <MemDsbT arg0 = MemDsbT::ALL>
void DataSyncBarrier(TW_SRC) {
    tw::record(tw::Rec::Instr, PIPE_S, "DataSyncBarrier", TW_AT);
}
TW_TWIN_M0(, void, (MemDsbT arg0 = MemDsbT::ALL), DataSyncBarrier, (arg0), )

}  // namespace AscendC
