// The lower-case CCE intrinsics that public AscendC kernels still call beside (or instead of) the AscendC API: core
// identity, flags and barriers, the mask register, repeat-form vector instructions on raw UB pointers, burst copies
// between GM and UB, and atomic mode.
//
// Each one is mapped onto the emulator's AscendC implementation of the same instruction (Add for vadd, DataCopy
// with DataCopyParams for copy_gm_to_ubuf, SetFlag<HardEvent> for set_flag, ...), so that its semantics, bounds
// checks, sanitizer findings and trace record (pipe and cost in the timing model) are exactly the AscendC call's.
// The vector intrinsics always take their mask from the mask register (set_vector_mask; an element count in counter
// mode), as the AscendC forms with isSetMask = false do.
#pragma once
#include <cstdint>
#include <string>

#include "tw/api/data_copy.h"
#include "tw/api/sync.h"
#include "tw/api/vector.h"

namespace tw {

// A UB address as kernels hold it. LocalTensor::GetPhyAddr() is the byte offset in the Unified Buffer, which
// kernels cast to `__ubuf__ T*` (the first buffer is at offset 0, so a null pointer is a valid address); a pointer
// into the emulator's UB array (LocalTensor::GetPhyAddr(offset)) is taken as it is. The view reaches to the end of
// the UB, so an instruction overrunning it still fails with a location.
template <typename T>
inline AscendC::LocalTensor<T> ub_view(const void* p, const char* what, const char* file, int line) {
    Core& c = cur();
    const uintptr_t v = reinterpret_cast<uintptr_t>(p);
    const uintptr_t base = reinterpret_cast<uintptr_t>(c.ub.data());
    uint64_t off = 0;
    if (v < c.ub.size()) off = v;
    else if (v >= base && v < base + c.ub.size()) off = v - base;
    else
        fail("ub_out_of_bounds", std::string(what) + " was given an address that is neither a Unified Buffer offset "
             "(LocalTensor::GetPhyAddr()) nor a pointer into the Unified Buffer", file, line);
    if (off % 32 != 0)
        fail("misaligned", std::string(what) + " operand at UB byte " + std::to_string(off) +
             ", which is not 32-byte aligned", file, line);
    return AscendC::LocalTensor<T>(reinterpret_cast<T*>(c.ub.data() + off), (c.ub.size() - off) / sizeof(T), -1, -1);
}

template <typename T>
inline AscendC::GlobalTensor<T> gm_view(const void* p) {
    AscendC::GlobalTensor<T> g;
    g.SetGlobalBuffer(reinterpret_cast<T*>(const_cast<void*>(p)));
    return g;
}

// set_flag / wait_flag name the two pipes; the AscendC event with that (source, destination) pair does the work.
#define TW_HARD_EVENTS(X)                                                                                          \
    X(MTE2_MTE1) X(MTE1_MTE2) X(MTE1_M) X(M_MTE1) X(MTE2_V) X(V_MTE2) X(MTE3_V) X(V_MTE3) X(M_V) X(V_M) X(V_V)     \
    X(MTE3_MTE1) X(MTE1_MTE3) X(MTE1_V) X(MTE2_M) X(M_MTE2) X(V_MTE1) X(M_FIX) X(FIX_M) X(MTE3_MTE2) X(MTE2_MTE3)  \
    X(S_V) X(V_S) X(S_MTE2) X(MTE2_S) X(S_MTE3) X(MTE3_S) X(MTE2_FIX) X(FIX_MTE2) X(FIX_S) X(M_S) X(FIX_MTE3)

inline void flag_rt(bool set, AscendC::pipe_t src, AscendC::pipe_t dst, int32_t id, const char* file, int line) {
    using AscendC::HardEvent;
    switch (static_cast<HardEvent>((static_cast<int>(src) << 4) | static_cast<int>(dst))) {
#define TW_CASE(E)                                                            \
    case HardEvent::E:                                                        \
        if (set) AscendC::SetFlag<HardEvent::E>(id, file, line);              \
        else AscendC::WaitFlag<HardEvent::E>(id, file, line);                 \
        return;
        TW_HARD_EVENTS(TW_CASE)
#undef TW_CASE
        default: break;
    }
    fail("unsupported", std::string(set ? "set_flag" : "wait_flag") + " between pipes " +
         std::to_string(static_cast<int>(src)) + " and " + std::to_string(static_cast<int>(dst)) +
         ", which no hardware event connects", file, line);
}

// copy_ubuf_to_gm under atomic mode accumulates elements of the type set_atomic_<type> chose (a plain copy moves
// bytes). Codes as in Core::atomic_dtype.
template <typename F>
inline void with_atomic_type(int code, F&& f) {
    switch (code) {
        case 1: f(half()); break;
        case 3: f(int32_t()); break;
        case 4: f(int16_t()); break;
        case 5: f(int8_t()); break;
        case 6: f(bfloat16_t()); break;
        default: f(float()); break;
    }
}

}  // namespace tw

// ---- core identity -----------------------------------------------------------------------------------------------
inline int64_t get_block_idx() { return AscendC::GetBlockIdx(); }
inline int64_t get_block_num() { return AscendC::GetBlockNum(); }
// Every emulated block is one vector core on its own (no cube core with two vector sub-blocks).
inline int64_t get_subblockid() { return AscendC::GetSubBlockIdx(); }
inline int64_t get_subblockdim() { return 1; }

// ---- synchronisation --------------------------------------------------------------------------------------------
inline void set_flag(pipe_t src, pipe_t dst, int32_t id, TW_SRC) { tw::flag_rt(true, src, dst, id, TW_AT); }
inline void wait_flag(pipe_t src, pipe_t dst, int32_t id, TW_SRC) { tw::flag_rt(false, src, dst, id, TW_AT); }
using AscendC::pipe_barrier;

// ---- mask register ------------------------------------------------------------------------------------------------
inline void set_vector_mask(uint64_t hi, uint64_t lo) { AscendC::SetVectorMask<uint8_t>(hi, lo); }
inline void set_mask_count() { AscendC::SetMaskCount(); }
inline void set_mask_norm() { AscendC::SetMaskNorm(); }

// ---- vector instructions on UB addresses -------------------------------------------------------------------------
// Binary: vadd(dst, src0, src1, repeat, dstBlkStride, src0BlkStride, src1BlkStride, dstRepStride, src0RepStride,
// src1RepStride); strides in 32-byte blocks.
#define TW_LEGACY_BINARY(NAME, API)                                                                                \
    template <typename T>                                                                                          \
    inline void NAME(T* dst, const T* src0, const T* src1, uint8_t repeat, uint8_t dstBlk, uint8_t src0Blk,        \
                     uint8_t src1Blk, uint8_t dstRep, uint8_t src0Rep, uint8_t src1Rep, TW_SRC) {                  \
        AscendC::API<T, false>(tw::ub_view<T>(dst, #NAME, TW_AT), tw::ub_view<T>(src0, #NAME, TW_AT),              \
                               tw::ub_view<T>(src1, #NAME, TW_AT), AscendC::MASK_PLACEHOLDER, repeat,              \
                               AscendC::BinaryRepeatParams(dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep),    \
                               TW_AT);                                                                             \
    }
TW_LEGACY_BINARY(vadd, Add)
TW_LEGACY_BINARY(vsub, Sub)
TW_LEGACY_BINARY(vmul, Mul)
TW_LEGACY_BINARY(vdiv, Div)
TW_LEGACY_BINARY(vmax, Max)
TW_LEGACY_BINARY(vmin, Min)
TW_LEGACY_BINARY(vand, And)
TW_LEGACY_BINARY(vor, Or)
#undef TW_LEGACY_BINARY

// Scalar operand: vadds(dst, src, scalar, repeat, dstBlkStride, srcBlkStride, dstRepStride, srcRepStride).
#define TW_LEGACY_SCALAR(NAME, API)                                                                                \
    template <typename T>                                                                                          \
    inline void NAME(T* dst, const T* src, tw::nd_t<T> scalar, uint8_t repeat, uint16_t dstBlk, uint16_t srcBlk,   \
                     uint8_t dstRep, uint8_t srcRep, TW_SRC) {                                                     \
        AscendC::API<T, false>(tw::ub_view<T>(dst, #NAME, TW_AT), tw::ub_view<T>(src, #NAME, TW_AT), scalar,       \
                               AscendC::MASK_PLACEHOLDER, repeat,                                                  \
                               AscendC::UnaryRepeatParams(dstBlk, srcBlk, dstRep, srcRep), TW_AT);                 \
    }
TW_LEGACY_SCALAR(vadds, Adds)
TW_LEGACY_SCALAR(vmuls, Muls)
TW_LEGACY_SCALAR(vmaxs, Maxs)
TW_LEGACY_SCALAR(vmins, Mins)
TW_LEGACY_SCALAR(vlrelu, LeakyRelu)
#undef TW_LEGACY_SCALAR

// Unary: vexp(dst, src, repeat, dstBlkStride, srcBlkStride, dstRepStride, srcRepStride).
#define TW_LEGACY_UNARY(NAME, API)                                                                                 \
    template <typename T>                                                                                          \
    inline void NAME(T* dst, const T* src, uint8_t repeat, uint16_t dstBlk, uint16_t srcBlk, uint8_t dstRep,       \
                     uint8_t srcRep, TW_SRC) {                                                                     \
        AscendC::API<T, false>(tw::ub_view<T>(dst, #NAME, TW_AT), tw::ub_view<T>(src, #NAME, TW_AT),               \
                               AscendC::MASK_PLACEHOLDER, repeat,                                                  \
                               AscendC::UnaryRepeatParams(dstBlk, srcBlk, dstRep, srcRep), TW_AT);                 \
    }
TW_LEGACY_UNARY(vexp, Exp)
TW_LEGACY_UNARY(vln, Ln)
TW_LEGACY_UNARY(vabs, Abs)
TW_LEGACY_UNARY(vrec, Reciprocal)
TW_LEGACY_UNARY(vsqrt, Sqrt)
TW_LEGACY_UNARY(vrsqrt, Rsqrt)
TW_LEGACY_UNARY(vrelu, Relu)
TW_LEGACY_UNARY(vnot, Not)
#undef TW_LEGACY_UNARY

// vector_dup(dst, scalar, repeat, dstBlkStride, srcBlkStride, dstRepStride, srcRepStride): the source strides are
// part of the encoding and unused by a scalar source.
template <typename T>
inline void vector_dup(T* dst, tw::nd_t<T> scalar, uint8_t repeat, uint16_t dstBlk, uint16_t srcBlk, uint8_t dstRep,
                       uint8_t srcRep, TW_SRC) {
    (void)srcBlk;
    (void)srcRep;
    AscendC::Duplicate<T, false>(tw::ub_view<T>(dst, "vector_dup", TW_AT), scalar, AscendC::MASK_PLACEHOLDER, repeat,
                                 dstBlk, dstRep, TW_AT);
}

// Whole-repeat reductions: vcadd(dst, src, repeat, dstRepStride, srcBlkStride, srcRepStride). dstRepStride counts
// destination elements (one result per repeat), as WholeReduceSum's does; vcmax / vcmin write value and index.
#define TW_LEGACY_WHOLE(NAME, CALL)                                                                                \
    template <typename T>                                                                                          \
    inline void NAME(T* dst, const T* src, uint8_t repeat, uint16_t dstRep, uint16_t srcBlk, uint16_t srcRep,      \
                     TW_SRC) {                                                                                     \
        auto d = tw::ub_view<T>(dst, #NAME, TW_AT);                                                                \
        auto s = tw::ub_view<T>(src, #NAME, TW_AT);                                                                \
        CALL;                                                                                                      \
    }
TW_LEGACY_WHOLE(vcadd, (AscendC::WholeReduceSum<T, false>(d, s, AscendC::MASK_PLACEHOLDER, repeat, dstRep, srcBlk,
                                                          srcRep, TW_AT)))
TW_LEGACY_WHOLE(vcmax, (AscendC::WholeReduceMax<T, false>(d, s, AscendC::MASK_PLACEHOLDER, repeat, dstRep, srcBlk,
                                                          srcRep, AscendC::ReduceOrder::ORDER_VALUE_INDEX, TW_AT)))
TW_LEGACY_WHOLE(vcmin, (AscendC::WholeReduceMin<T, false>(d, s, AscendC::MASK_PLACEHOLDER, repeat, dstRep, srcBlk,
                                                          srcRep, AscendC::ReduceOrder::ORDER_VALUE_INDEX, TW_AT)))
#undef TW_LEGACY_WHOLE

// ---- burst copies -------------------------------------------------------------------------------------------------
// copy_gm_to_ubuf(dst, src, sid, nBurst, lenBurst, srcGap, dstGap): nBurst bursts of lenBurst 32-byte blocks, with
// srcGap / dstGap blocks skipped between bursts; `sid` (the stream id) does not affect the data.
inline void copy_gm_to_ubuf(void* dst, const void* src, uint8_t sid, uint16_t nBurst, uint16_t lenBurst,
                            uint16_t srcGap, uint16_t dstGap, TW_SRC) {
    (void)sid;
    AscendC::DataCopy(tw::ub_view<uint8_t>(dst, "copy_gm_to_ubuf", TW_AT), tw::gm_view<uint8_t>(src),
                      AscendC::DataCopyParams(nBurst, lenBurst, srcGap, dstGap), TW_AT);
}

inline void copy_ubuf_to_gm(void* dst, const void* src, uint8_t sid, uint16_t nBurst, uint16_t lenBurst,
                            uint16_t srcGap, uint16_t dstGap, TW_SRC) {
    (void)sid;
    const int code = tw::cur().atomic ? tw::cur().atomic_dtype : 0;
    if (code == 0) {
        AscendC::DataCopy(tw::gm_view<uint8_t>(dst), tw::ub_view<uint8_t>(src, "copy_ubuf_to_gm", TW_AT),
                          AscendC::DataCopyParams(nBurst, lenBurst, srcGap, dstGap), TW_AT);
        return;
    }
    tw::with_atomic_type(code, [&](auto zero) {
        using E = decltype(zero);
        AscendC::DataCopy(tw::gm_view<E>(dst), tw::ub_view<E>(src, "copy_ubuf_to_gm", TW_AT),
                          AscendC::DataCopyParams(nBurst, lenBurst, srcGap, dstGap), TW_AT);
    });
}

inline void copy_ubuf_to_ubuf(void* dst, const void* src, uint8_t sid, uint16_t nBurst, uint16_t lenBurst,
                              uint16_t srcGap, uint16_t dstGap, TW_SRC) {
    (void)sid;
    AscendC::DataCopy(tw::ub_view<uint8_t>(dst, "copy_ubuf_to_ubuf", TW_AT),
                      tw::ub_view<uint8_t>(src, "copy_ubuf_to_ubuf", TW_AT),
                      AscendC::DataCopyParams(nBurst, lenBurst, srcGap, dstGap), TW_AT);
}

// ---- atomic mode ----------------------------------------------------------------------------------------------------
// set_atomic_add / set_atomic_max choose the operation, set_atomic_<type> the element type it works on.
inline void set_atomic_none(TW_SRC) { AscendC::SetAtomicNone(TW_AT); }
inline void set_atomic_add(TW_SRC) { tw::cur().atomic = 1; tw::record(tw::Rec::Instr, PIPE_S, "SetAtomicAdd", TW_AT); }
inline void set_atomic_max(TW_SRC) { tw::cur().atomic = 2; tw::record(tw::Rec::Instr, PIPE_S, "SetAtomicMax", TW_AT); }
inline void set_atomic_min(TW_SRC) { tw::cur().atomic = 3; tw::record(tw::Rec::Instr, PIPE_S, "SetAtomicMin", TW_AT); }
inline void set_atomic_f16() { tw::cur().atomic_dtype = 1; }
inline void set_atomic_f32() { tw::cur().atomic_dtype = 2; }
inline void set_atomic_s32() { tw::cur().atomic_dtype = 3; }
inline void set_atomic_s16() { tw::cur().atomic_dtype = 4; }
inline void set_atomic_s8() { tw::cur().atomic_dtype = 5; }
inline void set_atomic_bf16() { tw::cur().atomic_dtype = 6; }

// Scalar data-cache maintenance: dcci(addr, cache_line_t::..., dcci_dst_t::...). The emulator's scalar accesses go
// straight to memory, so it is coherent already (see DataCacheCleanAndInvalid); the call costs a scalar slot.
enum class cache_line_t : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class dcci_dst_t : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
template <typename T>
inline void dcci(T* addr, cache_line_t line_kind, dcci_dst_t dst = dcci_dst_t::CACHELINE_ALL, TW_SRC) {
    (void)addr;
    (void)line_kind;
    (void)dst;
    tw::record(tw::Rec::Instr, PIPE_S, "DataCacheCleanAndInvalid", TW_AT);
}
