// The AscendC C API (c_api/asc_simd.h) beside the vector instructions of tw/api/c_api/vector.h: core state and system
// variables, synchronisation, data movement between GM and UB, atomic mode and the scalar unit's bit operations, for
// the 910B vector core.
//
// Each function is the emulator's implementation of the instruction the device's C API issues for it (DataCopy with
// burst parameters for asc_copy_gm2ub, DataCopyPad for the _align copies, SetFlag / WaitFlag for asc_sync_notify /
// asc_sync_wait, PipeBarrier for asc_sync_pipe, ...), so its checks, racecheck effects and trace record (the pipe the
// reference names: MTE2, MTE3, V or S) are that instruction's. `_sync` forms end with a barrier on every pipe.
#pragma once
#include <cstdint>
#include <string>

#include "tw/api/c_api/vector.h"
#include "tw/api/data_copy.h"
#include "tw/api/cce/intrinsics.h"
#include "tw/api/cce/align_copy_reduce.h"
#include "tw/api/sync.h"
#include "tw/runtime/ubuf_arrays.h"
#include "tw/api/vector/fused_index_scatter.h"
#include "tw/api/scalar_system.h"

namespace tw::capi {

// The `size` forms move whole 32-byte blocks: the reference requires size to be a multiple of 32, and the device
// moves size / 32 blocks, dropping the rest, which the sanitizer reports.
inline uint16_t blocks_of(uint32_t size, const char* what, const char* file, int line) {
    if (size % 32 != 0)
        warn("misaligned",
             std::string(what) + " of " + std::to_string(size) + " bytes: the size must be a multiple of 32 bytes; the "
             "device moves " + std::to_string(size / 32 * 32) + " and drops the last " + std::to_string(size % 32),
             file, line);
    return static_cast<uint16_t>(size / 32);
}

}  // namespace tw::capi

// ---- core state and system variables -----------------------------------------------------------------------------
// asc_init: atomic mode off, normal mask mode, every lane of the mask register on.
inline void asc_init(TW_SRC) { AscendC::InitSocState(TW_AT); }
TW_TWIN_N0(, void, asc_init, )
inline int64_t asc_get_block_idx() { return AscendC::GetBlockIdx(); }
inline int64_t asc_get_block_num() { return AscendC::GetBlockNum(); }
// Every emulated block is one vector core on its own (sub-block 0 of 1).
inline int64_t asc_get_sub_block_id() { return AscendC::GetSubBlockIdx(); }
inline int64_t asc_get_sub_block_num() { return AscendC::GetSubBlockNum(); }
inline int64_t asc_get_system_cycle() { return AscendC::GetSystemCycle(); }

// ---- synchronisation ---------------------------------------------------------------------------------------------
// asc_sync_notify / asc_sync_wait: set / wait the hardware event `id` from pipe `pipe` to pipe `tpipe`.
inline void asc_sync_notify(pipe_t pipe, pipe_t tpipe, event_t id, TW_SRC) { tw::flag_rt(true, pipe, tpipe, id, TW_AT); }
TW_TWIN_N(, void, asc_sync_notify, (pipe_t pipe, pipe_t tpipe, event_t id), (pipe, tpipe, id), )
inline void asc_sync_wait(pipe_t pipe, pipe_t tpipe, event_t id, TW_SRC) { tw::flag_rt(false, pipe, tpipe, id, TW_AT); }
TW_TWIN_N(, void, asc_sync_wait, (pipe_t pipe, pipe_t tpipe, event_t id), (pipe, tpipe, id), )
// asc_sync_pipe: the earlier instructions of `pipe` (every pipe for PIPE_ALL) finish before later ones start.
inline void asc_sync_pipe(pipe_t pipe, TW_SRC) {
    if (pipe == PIPE_S)
        tw::fail("unsupported", "asc_sync_pipe(PIPE_S): scalar instructions are ordered by the hardware; the reference "
                 "does not allow PIPE_S here", TW_AT);
    AscendC::pipe_barrier(pipe, TW_AT);
}
TW_TWIN_N(, void, asc_sync_pipe, (pipe_t pipe), (pipe), )
// asc_sync / asc_sync_vec: wait for every pipe.
inline void asc_sync(TW_SRC) { AscendC::pipe_barrier(PIPE_ALL, TW_AT); }
TW_TWIN_N0(, void, asc_sync, )
inline void asc_sync_vec(TW_SRC) { AscendC::pipe_barrier(PIPE_ALL, TW_AT); }
TW_TWIN_N0(, void, asc_sync_vec, )
// asc_sync_mte2(id) / asc_sync_mte3(id): the pipe's transfers so far are complete for the other two vector-core pipes
// (events from it to each of them with this id, set and waited at once) and for itself.
inline void asc_sync_mte2(int id, TW_SRC) {
    tw::flag_rt(true, PIPE_MTE2, PIPE_MTE3, id, TW_AT);
    tw::flag_rt(true, PIPE_MTE2, PIPE_V, id, TW_AT);
    tw::flag_rt(false, PIPE_MTE2, PIPE_MTE3, id, TW_AT);
    tw::flag_rt(false, PIPE_MTE2, PIPE_V, id, TW_AT);
    AscendC::pipe_barrier(PIPE_MTE2, TW_AT);
}
TW_TWIN_N(, void, asc_sync_mte2, (int id), (id), )
inline void asc_sync_mte3(int id, TW_SRC) {
    tw::flag_rt(true, PIPE_MTE3, PIPE_MTE2, id, TW_AT);
    tw::flag_rt(true, PIPE_MTE3, PIPE_V, id, TW_AT);
    tw::flag_rt(false, PIPE_MTE3, PIPE_MTE2, id, TW_AT);
    tw::flag_rt(false, PIPE_MTE3, PIPE_V, id, TW_AT);
    AscendC::pipe_barrier(PIPE_MTE3, TW_AT);
}
TW_TWIN_N(, void, asc_sync_mte3, (int id), (id), )
// asc_sync_data_barrier(mem_dsb_t::DSB_ALL / DSB_DDR / DSB_UB / DSB_SEQ): program order already holds in the emulator.
enum class mem_dsb_t : uint8_t { DSB_ALL = 0, DSB_DDR, DSB_UB, DSB_SEQ };
inline void asc_sync_data_barrier(mem_dsb_t arg, TW_SRC) {
    (void)arg;
    AscendC::DataSyncBarrier(TW_AT);
}
TW_TWIN_N(, void, asc_sync_data_barrier, (mem_dsb_t arg), (arg), )

// ---- data movement -----------------------------------------------------------------------------------------------
// asc_copy_gm2ub(dst, src, size): `size` bytes (a multiple of 32). asc_copy_gm2ub(dst, src, n_burst, len_burst,
// src_gap, dst_gap): n_burst bursts of len_burst 32-byte blocks, src_gap / dst_gap blocks between them. PIPE_MTE2.
inline void asc_copy_gm2ub(void* dst, void* src, uint16_t n_burst, uint16_t len_burst, uint16_t src_gap,
                           uint16_t dst_gap, TW_SRC) {
    AscendC::DataCopy(tw::ub_view<uint8_t>(dst, "asc_copy_gm2ub", TW_AT), tw::gm_view<uint8_t>(src),
                      AscendC::DataCopyParams(n_burst, len_burst, src_gap, dst_gap), TW_AT);
}
TW_TWIN_N(, void, asc_copy_gm2ub, (void* dst, void* src, uint16_t n_burst, uint16_t len_burst, uint16_t src_gap,
        uint16_t dst_gap), (dst, src, n_burst, len_burst, src_gap, dst_gap), )
inline void asc_copy_gm2ub(void* dst, void* src, uint32_t size, TW_SRC) {
    asc_copy_gm2ub(dst, src, 1, tw::capi::blocks_of(size, "asc_copy_gm2ub", TW_AT), 0, 0, TW_AT);
}
TW_TWIN_N(, void, asc_copy_gm2ub, (void* dst, void* src, uint32_t size), (dst, src, size), )
inline void asc_copy_gm2ub_sync(void* dst, void* src, uint32_t size, TW_SRC) {
    asc_copy_gm2ub(dst, src, size, TW_AT);
    tw::capi::sync_all(TW_AT);
}
TW_TWIN_N(, void, asc_copy_gm2ub_sync, (void* dst, void* src, uint32_t size), (dst, src, size), )

// UB -> GM (PIPE_MTE3); under atomic mode the elements accumulate in the type asc_set_atomic_* chose.
inline void asc_copy_ub2gm(void* dst, void* src, uint16_t n_burst, uint16_t len_burst, uint16_t src_gap,
                           uint16_t dst_gap, TW_SRC) {
    if (tw::cur().atomic != 0) {
        copy_ubuf_to_gm(dst, src, 0, n_burst, len_burst, src_gap, dst_gap, TW_AT);
        return;
    }
    AscendC::DataCopy(tw::gm_view<uint8_t>(dst), tw::ub_view<uint8_t>(src, "asc_copy_ub2gm", TW_AT),
                      AscendC::DataCopyParams(n_burst, len_burst, src_gap, dst_gap), TW_AT);
}
TW_TWIN_N(, void, asc_copy_ub2gm, (void* dst, void* src, uint16_t n_burst, uint16_t len_burst, uint16_t src_gap,
        uint16_t dst_gap), (dst, src, n_burst, len_burst, src_gap, dst_gap), )
inline void asc_copy_ub2gm(void* dst, void* src, uint32_t size, TW_SRC) {
    asc_copy_ub2gm(dst, src, 1, tw::capi::blocks_of(size, "asc_copy_ub2gm", TW_AT), 0, 0, TW_AT);
}
TW_TWIN_N(, void, asc_copy_ub2gm, (void* dst, void* src, uint32_t size), (dst, src, size), )
inline void asc_copy_ub2gm_sync(void* dst, void* src, uint32_t size, TW_SRC) {
    asc_copy_ub2gm(dst, src, size, TW_AT);
    tw::capi::sync_all(TW_AT);
}
TW_TWIN_N(, void, asc_copy_ub2gm_sync, (void* dst, void* src, uint32_t size), (dst, src, size), )

// UB -> UB (PIPE_V), in 32-byte blocks.
inline void asc_copy_ub2ub(void* dst, void* src, uint16_t n_burst, uint16_t len_burst, uint16_t src_gap,
                           uint16_t dst_gap, TW_SRC) {
    AscendC::DataCopy(tw::ub_view<uint8_t>(dst, "asc_copy_ub2ub", TW_AT),
                      tw::ub_view<uint8_t>(src, "asc_copy_ub2ub", TW_AT),
                      AscendC::DataCopyParams(n_burst, len_burst, src_gap, dst_gap), TW_AT);
}
TW_TWIN_N(, void, asc_copy_ub2ub, (void* dst, void* src, uint16_t n_burst, uint16_t len_burst, uint16_t src_gap,
        uint16_t dst_gap), (dst, src, n_burst, len_burst, src_gap, dst_gap), )
inline void asc_copy_ub2ub(void* dst, void* src, uint32_t size, TW_SRC) {
    asc_copy_ub2ub(dst, src, 1, tw::capi::blocks_of(size, "asc_copy_ub2ub", TW_AT), 0, 0, TW_AT);
}
TW_TWIN_N(, void, asc_copy_ub2ub, (void* dst, void* src, uint32_t size), (dst, src, size), )
inline void asc_copy_ub2ub_sync(void* dst, void* src, uint32_t size, TW_SRC) {
    asc_copy_ub2ub(dst, src, size, TW_AT);
    tw::capi::sync_all(TW_AT);
}
TW_TWIN_N(, void, asc_copy_ub2ub_sync, (void* dst, void* src, uint32_t size), (dst, src, size), )

// Byte-granular copies (DataCopyPad): asc_copy_gm2ub_align(dst, src, size) moves `size` bytes into UB (the row padded
// to 32 bytes); the burst form takes n_burst rows of len_burst bytes, left / right padding in elements (from the
// asc_set_copy_pad_val register), and the gaps of copy_gm_to_ubuf_align_b<width>.
template <typename T>
inline void asc_copy_gm2ub_align(T* dst, T* src, uint16_t n_burst, uint32_t len_burst, uint8_t left_padding_num,
                                 uint8_t right_padding_num, uint32_t src_gap, uint32_t dst_gap, TW_SRC) {
    static_assert(sizeof(T) <= 4, "asc_copy_gm2ub_align: the C API offers 8-, 16- and 32-bit types");
    tw::copy_align_in<T>(dst, src, n_burst, len_burst, left_padding_num, right_padding_num, src_gap, dst_gap,
                         "asc_copy_gm2ub_align", TW_AT);
}
TW_TWIN_M(, void, (typename T), asc_copy_gm2ub_align, (T), (T* dst, T* src, uint16_t n_burst, uint32_t len_burst,
        uint8_t left_padding_num, uint8_t right_padding_num, uint32_t src_gap, uint32_t dst_gap), (dst, src, n_burst,
        len_burst, left_padding_num, right_padding_num, src_gap, dst_gap), )
template <typename T>
inline void asc_copy_gm2ub_align(T* dst, T* src, uint32_t size, TW_SRC) {
    asc_copy_gm2ub_align(dst, src, 1, size, 0, 0, 0, 0, TW_AT);
}
TW_TWIN_M(, void, (typename T), asc_copy_gm2ub_align, (T), (T* dst, T* src, uint32_t size), (dst, src, size), )
template <typename T>
inline void asc_copy_gm2ub_align_sync(T* dst, T* src, uint32_t size, TW_SRC) {
    asc_copy_gm2ub_align(dst, src, size, TW_AT);
    tw::capi::sync_all(TW_AT);
}
TW_TWIN_M(, void, (typename T), asc_copy_gm2ub_align_sync, (T), (T* dst, T* src, uint32_t size), (dst, src, size), )
template <typename T>
inline void asc_copy_ub2gm_align(T* dst, T* src, uint16_t n_burst, uint32_t len_burst, uint8_t left_padding_num,
                                 uint8_t right_padding_num, uint32_t src_gap, uint32_t dst_gap, TW_SRC) {
    tw::copy_align_out<T>(dst, src, n_burst, len_burst, left_padding_num, right_padding_num, src_gap, dst_gap,
                          "asc_copy_ub2gm_align", TW_AT);
}
TW_TWIN_M(, void, (typename T), asc_copy_ub2gm_align, (T), (T* dst, T* src, uint16_t n_burst, uint32_t len_burst,
        uint8_t left_padding_num, uint8_t right_padding_num, uint32_t src_gap, uint32_t dst_gap), (dst, src, n_burst,
        len_burst, left_padding_num, right_padding_num, src_gap, dst_gap), )
template <typename T>
inline void asc_copy_ub2gm_align(T* dst, T* src, uint32_t size, TW_SRC) {
    asc_copy_ub2gm_align(dst, src, 1, size, 0, 0, 0, 0, TW_AT);
}
TW_TWIN_M(, void, (typename T), asc_copy_ub2gm_align, (T), (T* dst, T* src, uint32_t size), (dst, src, size), )
template <typename T>
inline void asc_copy_ub2gm_align_sync(T* dst, T* src, uint32_t size, TW_SRC) {
    asc_copy_ub2gm_align(dst, src, size, TW_AT);
    tw::capi::sync_all(TW_AT);
}
TW_TWIN_M(, void, (typename T), asc_copy_ub2gm_align_sync, (T), (T* dst, T* src, uint32_t size), (dst, src, size), )
// The pad register the _align copies into UB fill padding from.
template <typename T>
inline void asc_set_copy_pad_val(T pad_value, TW_SRC) { AscendC::SetPadValue<T>(pad_value, TW_AT); }
TW_TWIN_M(, void, (typename T), asc_set_copy_pad_val, (T), (T pad_value), (pad_value), )

// ---- atomic mode (copies out to GM accumulate) -------------------------------------------------------------------
#define TW_CAPI_ATOMIC(OP, SET)                                                                                      \
    inline void asc_set_atomic_##OP##_float(TW_SRC) { SET(TW_AT); set_atomic_f32(); }                                \
    inline void asc_set_atomic_##OP##_float16(TW_SRC) { SET(TW_AT); set_atomic_f16(); }                              \
    inline void asc_set_atomic_##OP##_bfloat(TW_SRC) { SET(TW_AT); set_atomic_bf16(); }                            \
    inline void asc_set_atomic_##OP##_int(TW_SRC)   { SET(TW_AT); set_atomic_s32(); }                                \
    inline void asc_set_atomic_##OP##_int16(TW_SRC) { SET(TW_AT); set_atomic_s16(); }                                \
    inline void asc_set_atomic_##OP##_int8(TW_SRC) { SET(TW_AT); set_atomic_s8(); }
TW_CAPI_ATOMIC(add, set_atomic_add)
TW_CAPI_ATOMIC(max, set_atomic_max)
TW_CAPI_ATOMIC(min, set_atomic_min)
#undef TW_CAPI_ATOMIC
inline void asc_set_atomic_none(TW_SRC) { AscendC::SetAtomicNone(TW_AT); }
TW_TWIN_N0(, void, asc_set_atomic_none, )

// ---- scalar unit: bits of a 64-bit value -------------------------------------------------------------------------
inline int64_t asc_popc(uint64_t value) { return AscendC::ScalarGetCountOfValue<1>(value); }     // bits set
inline int64_t asc_zero_bits_cnt(uint64_t value) { return AscendC::ScalarGetCountOfValue<0>(value); }
inline int64_t asc_clz(uint64_t value) { return AscendC::ScalarCountLeadingZero(value); }       // 64 for 0
inline int64_t asc_ffz(uint64_t value) { return AscendC::ScalarGetSFFValue<0>(value); }         // -1: none
inline int64_t asc_ffs(uint64_t value) { return AscendC::ScalarGetSFFValue<1>(value); }         // -1: none
inline int64_t asc_sflbits(int64_t value) { return AscendC::CountBitsCntSameAsSignBit(value); }
