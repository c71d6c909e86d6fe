// AscendC's vocabulary types: positions, pipes, events, round and compare modes, copy and repeat parameters.
// Names and field orders follow the public API reference so that user code's brace-initialisers bind the same way.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tw/api/half.h"

#define __aicore__
#define __vector__  // newer releases' qualifier of a vector-only kernel entry
#define __cube__
#define __mix__(cube, vector)  // a mixed kernel's entry with its cube : vector core ratio; blocks run as vector cores
#define __global__
#define __gm__
#define __ubuf__
#define __cbuf__
#define __ca__
#define __cb__
#define __cc__
#define __fbuf__
#define __sync_alias__
#define __in_pipe__(x)
#define __out_pipe__(x)
#ifndef GM_ADDR
#define GM_ADDR uint8_t*
#endif

enum pipe_t : uint8_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_V2, PIPE_FIX };
enum event_t : int32_t {
    EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7,
};

namespace AscendC {

enum class TPosition : uint8_t {
    GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM, C2PIPE2GM,
    C2PIPE2LOCAL, MAX,
};
using QuePosition = TPosition;

// A tensor's shape as the reference describes it (ShapeInfo.md): the shape in use and the original one, up to
// K_MAX_DIM dimensions each, and the layout. Tensors carry it for the APIs that read it (DumpTensor, the library);
// the emulator's own checks read the tensor's length, never this.
constexpr int32_t K_MAX_DIM = 8;
enum class DataFormat : uint8_t { ND = 0, NZ, NCHW, NC1HWC0, NHWC, NCDHW, NDC1HWC0, FRACTAL_Z_3D };
using TTagType = int32_t;  // SetUserTag / GetUserTag

struct ShapeInfo {
    uint8_t shapeDim = 0;
    uint8_t originalShapeDim = 0;
    uint32_t shape[K_MAX_DIM] = {};
    uint32_t originalShape[K_MAX_DIM] = {};
    DataFormat dataFormat = DataFormat::ND;

    ShapeInfo() = default;
    ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[], const uint8_t inputOriginalShapeDim,
              const uint32_t inputOriginalShape[], const DataFormat inputFormat)
        : shapeDim(clamp_dim(inputShapeDim)), originalShapeDim(clamp_dim(inputOriginalShapeDim)),
          dataFormat(inputFormat) {
        for (uint8_t i = 0; i < shapeDim; ++i) shape[i] = inputShape[i];
        for (uint8_t i = 0; i < originalShapeDim; ++i) originalShape[i] = inputOriginalShape[i];
    }
    // Without an original shape, the original is the shape given.
    ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[], const DataFormat inputFormat)
        : ShapeInfo(inputShapeDim, inputShape, inputShapeDim, inputShape, inputFormat) {}
    ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[])
        : ShapeInfo(inputShapeDim, inputShape, inputShapeDim, inputShape, DataFormat::ND) {}

  private:
    static uint8_t clamp_dim(uint8_t n) { return n > K_MAX_DIM ? uint8_t(K_MAX_DIM) : n; }
};

// The product of the shape's dimensions in use (1 for a 0-d shape).
inline int GetShapeSize(const ShapeInfo& shapeInfo) {
    int n = 1;
    for (uint8_t i = 0; i < shapeInfo.shapeDim; ++i) n *= static_cast<int>(shapeInfo.shape[i]);
    return n;
}

enum class Hardware : uint8_t { GM, UB, L1, L0A, L0B, L0C, BIAS, FIXBUF, MAX };

// pipe_t and event_t are the device compiler's built-in enums, at global scope (kernels write PIPE_V or EVENT_ID0
// without AscendC::); AscendC re-exports them below. Pipe numbering is the emulator's own; only the names are real.
using ::pipe_t;
using ::PIPE_S; using ::PIPE_V; using ::PIPE_M; using ::PIPE_MTE1; using ::PIPE_MTE2; using ::PIPE_MTE3;
using ::PIPE_ALL; using ::PIPE_V2; using ::PIPE_FIX;

// Each event names the producing and the consuming pipe: high nibble source, low nibble destination.
enum class HardEvent : uint8_t {
    MTE2_MTE1 = (PIPE_MTE2 << 4) | PIPE_MTE1, MTE1_MTE2 = (PIPE_MTE1 << 4) | PIPE_MTE2,
    MTE1_M = (PIPE_MTE1 << 4) | PIPE_M, M_MTE1 = (PIPE_M << 4) | PIPE_MTE1,
    MTE2_V = (PIPE_MTE2 << 4) | PIPE_V, V_MTE2 = (PIPE_V << 4) | PIPE_MTE2,
    MTE3_V = (PIPE_MTE3 << 4) | PIPE_V, V_MTE3 = (PIPE_V << 4) | PIPE_MTE3,
    M_V = (PIPE_M << 4) | PIPE_V, V_M = (PIPE_V << 4) | PIPE_M,
    V_V = (PIPE_V << 4) | PIPE_V,
    MTE3_MTE1 = (PIPE_MTE3 << 4) | PIPE_MTE1, MTE1_MTE3 = (PIPE_MTE1 << 4) | PIPE_MTE3,
    MTE1_V = (PIPE_MTE1 << 4) | PIPE_V, MTE2_M = (PIPE_MTE2 << 4) | PIPE_M, M_MTE2 = (PIPE_M << 4) | PIPE_MTE2,
    V_MTE1 = (PIPE_V << 4) | PIPE_MTE1, M_FIX = (PIPE_M << 4) | PIPE_FIX, FIX_M = (PIPE_FIX << 4) | PIPE_M,
    MTE3_MTE2 = (PIPE_MTE3 << 4) | PIPE_MTE2, MTE2_MTE3 = (PIPE_MTE2 << 4) | PIPE_MTE3,
    S_V = (PIPE_S << 4) | PIPE_V, V_S = (PIPE_V << 4) | PIPE_S,
    S_MTE2 = (PIPE_S << 4) | PIPE_MTE2, MTE2_S = (PIPE_MTE2 << 4) | PIPE_S,
    S_MTE3 = (PIPE_S << 4) | PIPE_MTE3, MTE3_S = (PIPE_MTE3 << 4) | PIPE_S,
    MTE2_FIX = (PIPE_MTE2 << 4) | PIPE_FIX, FIX_MTE2 = (PIPE_FIX << 4) | PIPE_MTE2,
    FIX_S = (PIPE_FIX << 4) | PIPE_S, M_S = (PIPE_M << 4) | PIPE_S, FIX_MTE3 = (PIPE_FIX << 4) | PIPE_MTE3,
};

using ::event_t;
using ::EVENT_ID0; using ::EVENT_ID1; using ::EVENT_ID2; using ::EVENT_ID3; using ::EVENT_ID4; using ::EVENT_ID5;
using ::EVENT_ID6; using ::EVENT_ID7;
using TEventID = int32_t;

enum class RoundMode : uint8_t { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };
enum class BlockMode : uint8_t { BLOCK_MODE_NORMAL = 0, BLOCK_MODE_MATRIX, BLOCK_MODE_VECTOR };
// Data-cache maintenance (DataCacheCleanAndInvalid): the emulator has no scalar cache, so these only name the call.
enum class CacheLine : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
// GlobalTensor::SetL2CacheHint's mode and its reserved read/write mode (reference values): the hint changes no data;
// the timing model's L2 does not keep what a DISABLE tensor's copies move.
enum class CacheMode : uint8_t { CACHE_MODE_DISABLE = 0, CACHE_MODE_NORMAL = 1 };
enum CacheRwMode { READ = 1, WRITE = 2, RW = 3 };

// Core kinds, and g_coreType, the device compiler's per-binary constant that mixed kernels branch on
// (`if (g_coreType == AIC) return;`): every emulated block is a vector core, as ASCEND_IS_AIV says.
constexpr int32_t AIC = 1;
constexpr int32_t AIV = 2;

// IsSameType<T, U>::value: AscendC's type-equality trait, which kernels use to branch on the element type.
template <typename T, typename U>
struct IsSameType {
    static constexpr bool value = false;
};
template <typename T>
struct IsSameType<T, T> {
    static constexpr bool value = true;
};

constexpr uint32_t ONE_BLK_SIZE = 32;
constexpr int32_t BLOCK_CUBE = 16;  // rows / columns of a cube fractal
constexpr uint32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr uint32_t DEFAULT_BLK_NUM = 8;
constexpr uint32_t DEFAULT_BLK_STRIDE = 1;
constexpr uint32_t DEFAULT_REPEAT_STRIDE = 8;
constexpr uint32_t MAX_REPEAT_TIMES = 255;
constexpr uint64_t MASK_PLACEHOLDER = 0;
constexpr int32_t TOTAL_UB_SIZE = 196608;

// DataCopy with strides: blockLen and strides in 32-byte blocks.
struct DataCopyParams {
    uint16_t blockCount = 1;
    uint16_t blockLen = 0;
    uint16_t srcStride = 0;
    uint16_t dstStride = 0;
    DataCopyParams() = default;
    DataCopyParams(uint16_t count, uint16_t len, uint16_t src, uint16_t dst)
        : blockCount(count), blockLen(len), srcStride(src), dstStride(dst) {}
};

// DataCopyPad: blockLen in bytes; the GM-side stride in bytes, the UB-side stride in 32-byte blocks.
struct DataCopyExtParams {
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;
    uint32_t srcStride = 0;
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
    DataCopyExtParams() = default;
    // Five arguments, rsv included, as in the reference: a four-element brace list then means DataCopyParams only,
    // so `DataCopyPad(dst, src, {1, len, 0, 0}, {false, 0, 0, 0})` picks the DataCopyParams overload unambiguously.
    DataCopyExtParams(uint16_t count, uint32_t len, uint32_t src, uint32_t dst, uint32_t r)
        : blockCount(count), blockLen(len), srcStride(src), dstStride(dst), rsv(r) {}
};

template <typename T>
struct DataCopyPadExtParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = T();
    DataCopyPadExtParams() = default;
    DataCopyPadExtParams(bool pad, uint8_t left, uint8_t right, T value)
        : isPad(pad), leftPadding(left), rightPadding(right), paddingValue(value) {}
};

// The older DataCopyPad parameter pair (blockLen in bytes, 16-bit fields).
struct DataCopyPadParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
    DataCopyPadParams() = default;
    DataCopyPadParams(bool pad, uint8_t left, uint8_t right, uint64_t value)
        : isPad(pad), leftPadding(left), rightPadding(right), paddingValue(value) {}
};

struct BinaryRepeatParams {
    uint8_t dstBlkStride = 1, src0BlkStride = 1, src1BlkStride = 1;
    uint8_t dstRepStride = 8, src0RepStride = 8, src1RepStride = 8;
    BinaryRepeatParams() = default;
    BinaryRepeatParams(uint8_t db, uint8_t s0b, uint8_t s1b, uint8_t dr, uint8_t s0r, uint8_t s1r)
        : dstBlkStride(db), src0BlkStride(s0b), src1BlkStride(s1b), dstRepStride(dr), src0RepStride(s0r),
          src1RepStride(s1r) {}
    // Reserved (BinaryRepeatParams.md: "users need not care; keep the defaults"): read by nothing here.
    uint32_t blockNumber = 8;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

struct UnaryRepeatParams {
    uint16_t dstBlkStride = 1, srcBlkStride = 1;
    uint8_t dstRepStride = 8, srcRepStride = 8;
    UnaryRepeatParams() = default;
    UnaryRepeatParams(uint16_t db, uint16_t sb, uint8_t dr, uint8_t sr)
        : dstBlkStride(db), srcBlkStride(sb), dstRepStride(dr), srcRepStride(sr) {}
    UnaryRepeatParams(uint16_t db, uint16_t sb, uint8_t dr, uint8_t sr, bool half)
        : dstBlkStride(db), srcBlkStride(sb), dstRepStride(dr), srcRepStride(sr), halfBlock(half) {}
    // Reserved, as BinaryRepeatParams's.
    uint32_t blockNumber = 8;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
    // Which half of the destination's blocks CastDequant writes (upper when true): CastDequant is not modelled.
    bool halfBlock = false;
};

struct BrcbRepeatParams {
    uint16_t dstBlkStride = 1;
    uint16_t dstRepStride = 8;
    BrcbRepeatParams() = default;
    BrcbRepeatParams(uint16_t db, uint16_t dr) : dstBlkStride(db), dstRepStride(dr) {}
};

struct GatherMaskParams {
    uint8_t src0BlockStride = 1;
    uint16_t repeatTimes = 1;
    uint16_t src0RepeatStride = 8;
    uint8_t src1RepeatStride = 8;
    GatherMaskParams() = default;
    GatherMaskParams(uint8_t s0b, uint16_t rep, uint16_t s0r, uint8_t s1r)
        : src0BlockStride(s0b), repeatTimes(rep), src0RepeatStride(s0r), src1RepeatStride(s1r) {}
};

}  // namespace AscendC

// The device compiler's global: which core this binary runs on.
constexpr int32_t g_coreType = AscendC::AIV;
