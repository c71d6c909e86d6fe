// The AscendC C API's vector instructions (c_api/asc_simd.h, `asc_*` on `__ubuf__ T*` addresses) for the 910B vector
// core. Each documented instruction comes in up to three forms:
//
//   asc_add(dst, src0, src1, count)                       the first `count` elements, packed
//   asc_add(dst, src0, src1, repeat, dst_block_stride, src0_block_stride, src1_block_stride,
//           dst_repeat_stride, src0_repeat_stride, src1_repeat_stride)
//                                                         repeats of 8 32-byte blocks, lanes from the mask register
//   asc_add_sync(dst, src0, src1, count)                  the count form, then a wait for every pipe
//
// The count form is the repeat form issued in counter mode: the mask register is set to (0, count) in counter mode and
// the mode goes back to normal afterwards, leaving the register as it was set (as the device's C API does). Every form
// is the emulator's AscendC instruction of the same name (Add, Adds, Exp, ...) with isSetMask = false on views of the
// UB addresses (tw::ub_view), so its semantics, bounds / alignment checks, racecheck and trace record (PIPE_V, costed
// per instruction by the timing model) are that instruction's. Types outside the reference's list for an instruction
// are a compile error naming it.
#pragma once
#include <cstdint>
#include <type_traits>

#include "tw/api/cce/intrinsics.h"
#include "tw/api/vector.h"
#include "tw/api/vector/fused_index_scatter.h"

namespace tw::capi {

template <typename T, typename... Ts>
inline constexpr bool one_of = (std::is_same<T, Ts>::value || ...);

// The count form: counter mode with `count` elements, the repeat form's default strides, then normal mode again.
template <typename F>
inline void counted(uint64_t count, F&& issue) {
    AscendC::SetMaskCount();
    AscendC::SetVectorMask<uint8_t>(0, count);
    issue();
    AscendC::SetMaskNorm();
}

// What the `_sync` forms add after the instruction: a barrier on every pipe.
inline void sync_all(const char* file, int line) { AscendC::pipe_barrier(PIPE_ALL, file, line); }

}  // namespace tw::capi

// ---- two vector sources: dst = src0 op src1 ----------------------------------------------------------------------
#define TW_CAPI_BINARY(NAME, API, ...)                                                                               \
    template <typename T>                                                                                            \
    inline void NAME(T* dst, T* src0, T* src1, uint8_t repeat, uint8_t dst_block_stride, uint8_t src0_block_stride,  \
                     uint8_t src1_block_stride, uint8_t dst_repeat_stride, uint8_t src0_repeat_stride,               \
                     uint8_t src1_repeat_stride, TW_SRC) {                                                           \
        static_assert(tw::capi::one_of<T, __VA_ARGS__>, #NAME ": the C API offers it for " #__VA_ARGS__ " only");    \
        AscendC::API<T, false>(tw::ub_view<T>(dst, #NAME, TW_AT), tw::ub_view<T>(src0, #NAME, TW_AT),                \
                               tw::ub_view<T>(src1, #NAME, TW_AT), AscendC::MASK_PLACEHOLDER, repeat,                \
                               AscendC::BinaryRepeatParams(dst_block_stride, src0_block_stride, src1_block_stride,   \
                                                           dst_repeat_stride, src0_repeat_stride,                    \
                                                           src1_repeat_stride),                                      \
                               TW_AT);                                                                               \
    }                                                                                                                \
    TW_TWIN_M(, void, (typename T), NAME, (T), (T* dst, T* src0, T* src1, uint8_t repeat,                          \
            uint8_t dst_block_stride, uint8_t src0_block_stride, uint8_t src1_block_stride,                        \
            uint8_t dst_repeat_stride, uint8_t src0_repeat_stride, uint8_t src1_repeat_stride), (dst, src0,        \
            src1, repeat, dst_block_stride, src0_block_stride, src1_block_stride, dst_repeat_stride,               \
            src0_repeat_stride, src1_repeat_stride), )                                                             \
    template <typename T>                                                                                            \
    inline void NAME(T* dst, T* src0, T* src1, uint32_t count, TW_SRC) {                                             \
        tw::capi::counted(count, [&] { NAME(dst, src0, src1, 1, 1, 1, 1, 8, 8, 8, TW_AT); });                        \
    }                                                                                                                \
    TW_TWIN_M(, void, (typename T), NAME, (T), (T* dst, T* src0, T* src1, uint32_t count), (dst, src0, src1,       \
            count), )                                                                                              \
    template <typename T>                                                                                            \
    inline void NAME##_sync(T* dst, T* src0, T* src1, uint32_t count, TW_SRC) {                                      \
        NAME(dst, src0, src1, count, TW_AT);                                                                         \
        tw::capi::sync_all(TW_AT);                                                                                   \
    }                                                                                                              \
    TW_TWIN_M(, void, (typename T), NAME##_sync, (T), (T* dst, T* src0, T* src1, uint32_t count), (dst, src0,      \
            src1, count), )

TW_CAPI_BINARY(asc_add, Add, int16_t, half, int32_t, float)
TW_CAPI_BINARY(asc_sub, Sub, int16_t, half, int32_t, float)
TW_CAPI_BINARY(asc_mul, Mul, int16_t, half, int32_t, float)
TW_CAPI_BINARY(asc_div, Div, half, float)
TW_CAPI_BINARY(asc_max, Max, int16_t, half, int32_t, float)
TW_CAPI_BINARY(asc_min, Min, int16_t, half, int32_t, float)
TW_CAPI_BINARY(asc_and, And, int16_t, uint16_t)
TW_CAPI_BINARY(asc_or, Or, int16_t, uint16_t)
TW_CAPI_BINARY(asc_add_relu, AddRelu, int8_t, int16_t, half, float)
TW_CAPI_BINARY(asc_sub_relu, SubRelu, int8_t, int16_t, half, float)
TW_CAPI_BINARY(asc_mul_add, FusedMulAdd, half, float)          // dst = src0 * dst + src1
TW_CAPI_BINARY(asc_mul_add_relu, FusedMulAddRelu, half, float) // dst = relu(src0 * dst + src1)
TW_CAPI_BINARY(asc_fma, MulAddDst, half, float)                // dst = src0 * src1 + dst (same-type forms)
#undef TW_CAPI_BINARY

// ---- a vector and a scalar: dst = src op value -------------------------------------------------------------------
// ROUND: the shifts' mask form takes a roundEn flag before the call site (false: no rounding).
#define TW_CAPI_NO_ROUND false,
#define TW_CAPI_SCALAR(NAME, API, V, ROUND, ...)                                                                            \
    template <typename T>                                                                                            \
    inline void NAME(T* dst, T* src, V value, uint8_t repeat, uint16_t dst_block_stride, uint16_t src_block_stride,  \
                     uint16_t dst_repeat_stride, uint16_t src_repeat_stride, TW_SRC) {                               \
        static_assert(tw::capi::one_of<T, __VA_ARGS__>, #NAME ": the C API offers it for " #__VA_ARGS__ " only");    \
        AscendC::API<T, false>(tw::ub_view<T>(dst, #NAME, TW_AT), tw::ub_view<T>(src, #NAME, TW_AT),                 \
                               static_cast<T>(value), AscendC::MASK_PLACEHOLDER, repeat,                             \
                               AscendC::UnaryRepeatParams(dst_block_stride, src_block_stride,                        \
                                                          static_cast<uint8_t>(dst_repeat_stride),                   \
                                                          static_cast<uint8_t>(src_repeat_stride)),                  \
                               ROUND TW_AT);                                                                         \
    }                                                                                                                \
    TW_TWIN_M(, void, (typename T), NAME, (T), (T* dst, T* src, V value, uint8_t repeat,                           \
            uint16_t dst_block_stride, uint16_t src_block_stride, uint16_t dst_repeat_stride,                      \
            uint16_t src_repeat_stride), (dst, src, value, repeat, dst_block_stride, src_block_stride,             \
            dst_repeat_stride, src_repeat_stride), )                                                               \
    template <typename T>                                                                                            \
    inline void NAME(T* dst, T* src, V value, uint32_t count, TW_SRC) {                                              \
        tw::capi::counted(count, [&] { NAME(dst, src, value, 1, 1, 1, 8, 8, TW_AT); });                              \
    }                                                                                                                \
    TW_TWIN_M(, void, (typename T), NAME, (T), (T* dst, T* src, V value, uint32_t count), (dst, src, value,        \
            count), )                                                                                              \
    template <typename T>                                                                                            \
    inline void NAME##_sync(T* dst, T* src, V value, uint32_t count, TW_SRC) {                                       \
        NAME(dst, src, value, count, TW_AT);                                                                         \
        tw::capi::sync_all(TW_AT);                                                                                   \
    }                                                                                                              \
    TW_TWIN_M(, void, (typename T), NAME##_sync, (T), (T* dst, T* src, V value, uint32_t count), (dst, src,        \
            value, count), )

TW_CAPI_SCALAR(asc_add_scalar, Adds, tw::nd_t<T>, , int16_t, half, int32_t, float)
TW_CAPI_SCALAR(asc_mul_scalar, Muls, tw::nd_t<T>, , int16_t, half, int32_t, float)
TW_CAPI_SCALAR(asc_max_scalar, Maxs, tw::nd_t<T>, , int16_t, half, int32_t, float)
TW_CAPI_SCALAR(asc_min_scalar, Mins, tw::nd_t<T>, , int16_t, half, int32_t, float)
TW_CAPI_SCALAR(asc_leakyrelu, LeakyRelu, tw::nd_t<T>, , half, float)
TW_CAPI_SCALAR(asc_shiftleft, ShiftLeft, uint32_t, TW_CAPI_NO_ROUND, int16_t, uint16_t, int32_t, uint32_t)   // value: the bit count
TW_CAPI_SCALAR(asc_shiftright, ShiftRight, uint32_t, TW_CAPI_NO_ROUND, int16_t, uint16_t, int32_t, uint32_t)
#undef TW_CAPI_SCALAR
#undef TW_CAPI_NO_ROUND

// ---- one vector source: dst = f(src) -----------------------------------------------------------------------------
#define TW_CAPI_UNARY(NAME, API, ...)                                                                                \
    template <typename T>                                                                                            \
    inline void NAME(T* dst, T* src, uint8_t repeat, uint16_t dst_block_stride, uint16_t src_block_stride,           \
                     uint16_t dst_repeat_stride, uint16_t src_repeat_stride, TW_SRC) {                               \
        static_assert(tw::capi::one_of<T, __VA_ARGS__>, #NAME ": the C API offers it for " #__VA_ARGS__ " only");    \
        AscendC::API<T, false>(tw::ub_view<T>(dst, #NAME, TW_AT), tw::ub_view<T>(src, #NAME, TW_AT),                 \
                               AscendC::MASK_PLACEHOLDER, repeat,                                                    \
                               AscendC::UnaryRepeatParams(dst_block_stride, src_block_stride,                        \
                                                          static_cast<uint8_t>(dst_repeat_stride),                   \
                                                          static_cast<uint8_t>(src_repeat_stride)),                  \
                               TW_AT);                                                                               \
    }                                                                                                                \
    TW_TWIN_M(, void, (typename T), NAME, (T), (T* dst, T* src, uint8_t repeat, uint16_t dst_block_stride,         \
            uint16_t src_block_stride, uint16_t dst_repeat_stride, uint16_t src_repeat_stride), (dst, src,         \
            repeat, dst_block_stride, src_block_stride, dst_repeat_stride, src_repeat_stride), )                   \
    template <typename T>                                                                                            \
    inline void NAME(T* dst, T* src, uint32_t count, TW_SRC) {                                                       \
        tw::capi::counted(count, [&] { NAME(dst, src, 1, 1, 1, 8, 8, TW_AT); });                                     \
    }                                                                                                                \
    TW_TWIN_M(, void, (typename T), NAME, (T), (T* dst, T* src, uint32_t count), (dst, src, count), )              \
    template <typename T>                                                                                            \
    inline void NAME##_sync(T* dst, T* src, uint32_t count, TW_SRC) {                                                \
        NAME(dst, src, count, TW_AT);                                                                                \
        tw::capi::sync_all(TW_AT);                                                                                   \
    }                                                                                                              \
    TW_TWIN_M(, void, (typename T), NAME##_sync, (T), (T* dst, T* src, uint32_t count), (dst, src, count), )

TW_CAPI_UNARY(asc_exp, Exp, half, float)
TW_CAPI_UNARY(asc_log, Ln, half, float)
TW_CAPI_UNARY(asc_abs, Abs, half, float)
TW_CAPI_UNARY(asc_rcp, Reciprocal, half, float)
TW_CAPI_UNARY(asc_sqrt, Sqrt, half, float)
TW_CAPI_UNARY(asc_rsqrt, Rsqrt, half, float)
TW_CAPI_UNARY(asc_relu, Relu, half, int32_t, float)
TW_CAPI_UNARY(asc_not, Not, int16_t, uint16_t)
#undef TW_CAPI_UNARY

// ---- asc_duplicate: dst = value in every selected lane ----------------------------------------------------------
template <typename T>
inline void asc_duplicate(T* dst, tw::nd_t<T> value, uint8_t repeat, uint16_t dst_block_stride,
                          uint8_t dst_repeat_stride, TW_SRC) {
    static_assert(tw::capi::one_of<T, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float>,
                  "asc_duplicate: the C API offers it for 16- and 32-bit types only");
    AscendC::Duplicate<T, false>(tw::ub_view<T>(dst, "asc_duplicate", TW_AT), value, AscendC::MASK_PLACEHOLDER,
                                 repeat, dst_block_stride, dst_repeat_stride, TW_AT);
}
TW_TWIN_M(, void, (typename T), asc_duplicate, (T), (T* dst, tw::nd_t<T> value, uint8_t repeat,
        uint16_t dst_block_stride, uint8_t dst_repeat_stride), (dst, value, repeat, dst_block_stride,
        dst_repeat_stride), )
template <typename T>
inline void asc_duplicate(T* dst, tw::nd_t<T> value, uint32_t count, TW_SRC) {
    tw::capi::counted(count, [&] { asc_duplicate(dst, value, 1, 1, 8, TW_AT); });
}
TW_TWIN_M(, void, (typename T), asc_duplicate, (T), (T* dst, tw::nd_t<T> value, uint32_t count), (dst, value, count),
        )
template <typename T>
inline void asc_duplicate_sync(T* dst, tw::nd_t<T> value, uint32_t count, TW_SRC) {
    asc_duplicate(dst, value, count, TW_AT);
    tw::capi::sync_all(TW_AT);
}
TW_TWIN_M(, void, (typename T), asc_duplicate_sync, (T), (T* dst, tw::nd_t<T> value, uint32_t count), (dst, value,
        count), )

// ---- mask register ------------------------------------------------------------------------------------------------
// asc_set_vector_mask(mask1, mask0): normal mode, the high and low 64 lanes; counter mode, mask0 is the element count.
inline void asc_set_vector_mask(uint64_t mask1, uint64_t mask0) { AscendC::SetVectorMask<uint8_t>(mask1, mask0); }
inline void asc_set_mask_count() { AscendC::SetMaskCount(); }
inline void asc_set_mask_norm() { AscendC::SetMaskNorm(); }
