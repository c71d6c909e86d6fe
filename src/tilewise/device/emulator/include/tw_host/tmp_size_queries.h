// tilewise host emulation: the scratch-size queries of the AscendC library's math, activation and reduction APIs,
// with the signatures the Ascend C API reference gives them for the Atlas A2 (each API's Get<Api>MaxMinTmpSize page,
// and Get<Api>TmpBufferFactorSize where it has one):
//
//   math        Acos Acosh Asin Asinh Atan Atanh Axpy Ceil Cos Cosh Digamma Erf Erfc Exp Floor Fmod Frac Lgamma Log
//               Log2 Log10 Power Round Sign Sin Sinh Tan Tanh Trunc Xor (CumSum: tw_host/library_tmp_sizes.h)
//   activation  Sigmoid, Gelu (Max / Min / MaxMin), Silu and Swish (Get<Api>TmpSize) (GeGLU, SwiGLU, ReGlu:
//               tw_host/library_tmp_sizes.h)
//   reduction   ReduceAll / Any / Max / Mean / Min / Prod / Sum over a ReducePattern, ReduceXorSum, Sum (Mean:
//               tw_host/library_tmp_sizes.h)
//
// The sizes are the emulator's model, not the library's formulas (which the reference does not give): an API keeps
// `nodes` live intermediate tensors of the input's size (the reference's maxLiveNodeCount: "how many times the
// data of one computation the temporary space is"), so the most it can use is nodes x the input's bytes (rounded up
// to 32 bytes) and the least nodes x one 256-byte repeat (the reference's note: a computation of less than 256
// bytes counts as 256). The counts follow the evaluation the emulator records for each API (tw/api/library/math.h):
// the intermediates of its formula for float, and for 16-bit inputs, which the library computes in float, twice
// those plus the float copy of the input. isReuseSource (float inputs only, as the reference allows) lets the
// source hold one of them. The emulator's kernels need no scratch and do not check a caller's buffer against these.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "graph/shape.h"
#include "graph/types.h"
#include "tiling/platform/platform_ascendc.h"
#include "tw/tiling/library_configs.h"
#include "tw/tiling/tmp_buffer_min.h"

namespace AscendC {
// The reference's names for the shape and data type the host tiling queries take (aliases of ge::Shape and
// ge::DataType, TensorShape.md and TensorDataType.md).
using TensorShape = ge::Shape;
using TensorDataType = ge::DataType;
}  // namespace AscendC

namespace tw {

// An API's live intermediates for float inputs; 16-bit inputs get 2 x that + 2 (float intermediates and the input
// widened to float) unless `same_width` (integer APIs, computed in their own type).
struct TmpNodes {
    uint32_t for_float;
    bool same_width = false;
};

inline uint32_t live_nodes(TmpNodes m, uint32_t type_size, bool reuse_source = false) {
    uint32_t k = m.for_float;
    if (type_size < 4 && !m.same_width && k > 0) k = 2 * k + 2;
    if (reuse_source && type_size == 4 && k > 0) --k;
    return k;
}

inline uint64_t elements_of(const ge::Shape& shape) {
    const int64_t n = shape.GetShapeSize();
    return n > 0 ? static_cast<uint64_t>(n) : 0;
}

inline uint32_t round32(uint64_t bytes) { return static_cast<uint32_t>((bytes + 31) / 32 * 32); }

inline void tmp_sizes(uint32_t nodes, uint64_t elements, uint32_t type_size, uint32_t& maxValue, uint32_t& minValue) {
    minValue = nodes * 256;
    maxValue = std::max(nodes * round32(elements * type_size), minValue);
}

}  // namespace tw

namespace AscendC {

// Get<API>MaxMinTmpSize(srcShape, typeSize, isReuseSource, maxValue, minValue) and
// Get<API>TmpBufferFactorSize(typeSize, maxLiveNodeCount, extraBuf) of an element-wise API.
#define TW_MATH_TMP(API, ...)                                                                                      \
    inline void Get##API##MaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize,                      \
                                        const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {        \
        tw::tmp_sizes(tw::live_nodes(tw::TmpNodes{__VA_ARGS__}, typeSize, isReuseSource), tw::elements_of(srcShape), \
                      typeSize, maxValue, minValue);                                                               \
    }                                                                                                              \
    inline void Get##API##TmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount,                 \
                                              uint32_t& extraBuf) {                                                \
        maxLiveNodeCount = tw::live_nodes(tw::TmpNodes{__VA_ARGS__}, typeSize);                                    \
        extraBuf = 0;                                                                                              \
    }

TW_MATH_TMP(Tanh, 2)    // e^2x, the denominator
TW_MATH_TMP(Sinh, 2)    // e^x, e^-x
TW_MATH_TMP(Cosh, 2)
TW_MATH_TMP(Tan, 4)     // range reduction, the sine and cosine polynomials, the quotient
TW_MATH_TMP(Asin, 3)    // |x|, sqrt(1 - |x|), the polynomial
TW_MATH_TMP(Acos, 3)
TW_MATH_TMP(Atan, 3)    // |x|, its reciprocal, the polynomial
TW_MATH_TMP(Asinh, 2)   // x^2 + 1 and its root
TW_MATH_TMP(Acosh, 2)
TW_MATH_TMP(Atanh, 2)   // 1 + x, 1 - x
TW_MATH_TMP(Erf, 3)     // x^2 and the two polynomials of the rational approximation
TW_MATH_TMP(Erfc, 3)
TW_MATH_TMP(Digamma, 6)  // the recurrence's shifted argument, the reflection and the series terms
TW_MATH_TMP(Lgamma, 6)
TW_MATH_TMP(Log, 1)     // the float copy (Ln on float)
TW_MATH_TMP(Log2, 1)
TW_MATH_TMP(Log10, 1)
TW_MATH_TMP(Floor, 1)   // the integer the value is rounded to
TW_MATH_TMP(Ceil, 1)
TW_MATH_TMP(Trunc, 1)
TW_MATH_TMP(Frac, 1)
TW_MATH_TMP(Sign, 2)    // the two compare masks
TW_MATH_TMP(Fmod, 2)    // the quotient and its truncation
TW_MATH_TMP(Axpy, 1)    // the product before the add
TW_MATH_TMP(Xor, 1, true)  // a | b, then & ~(a & b), in the integer type

#undef TW_MATH_TMP

// Round's page gives the platform form.
inline void GetRoundMaxMinTmpSize(const platform_ascendc::PlatformAscendC& ascendcPlatform, const TensorShape& srcShape,
                                  const uint32_t typeSize, const bool isReuseSource, uint32_t& maxValue,
                                  uint32_t& minValue) {
    (void)ascendcPlatform;
    tw::tmp_sizes(tw::live_nodes({1}, typeSize, isReuseSource), tw::elements_of(srcShape), typeSize, maxValue,
                  minValue);
}
inline void GetRoundTmpBufferFactorSize(const platform_ascendc::PlatformAscendC& ascendcPlatform,
                                        const uint32_t typeSize, uint32_t& maxLiveNodeCount, uint32_t& extraBuf) {
    (void)ascendcPlatform;
    maxLiveNodeCount = tw::live_nodes({1}, typeSize);
    extraBuf = 0;
}

// Sin and Cos, with or without their config (RADIAN_REDUCTION keeps one more intermediate: the full period count).
namespace tw_tmp {
inline uint32_t sincos_nodes(bool radian_reduction) { return radian_reduction ? 4 : 3; }
}  // namespace tw_tmp

#define TW_SINCOS_TMP(API, CONFIG, RADIAN)                                                                         \
    inline void Get##API##MaxMinTmpSize(const CONFIG& config, const TensorShape& srcShape, const uint32_t typeSize, \
                                        const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {        \
        const uint32_t k = tw::live_nodes({tw_tmp::sincos_nodes(config.algo == RADIAN)}, typeSize, isReuseSource);  \
        tw::tmp_sizes(k, tw::elements_of(srcShape), typeSize, maxValue, minValue);                                 \
    }                                                                                                              \
    inline void Get##API##MaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize,                      \
                                        const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {        \
        Get##API##MaxMinTmpSize(CONFIG{}, srcShape, typeSize, isReuseSource, maxValue, minValue);                  \
    }                                                                                                              \
    inline void Get##API##TmpBufferFactorSize(const CONFIG& config, const uint32_t typeSize,                       \
                                              uint32_t& maxLiveNodeCount, uint32_t& extraBuf) {                    \
        maxLiveNodeCount = tw::live_nodes({tw_tmp::sincos_nodes(config.algo == RADIAN)}, typeSize);                \
        extraBuf = 0;                                                                                              \
    }                                                                                                              \
    inline void Get##API##TmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount,                 \
                                              uint32_t& extraBuf) {                                                \
        Get##API##TmpBufferFactorSize(CONFIG{}, typeSize, maxLiveNodeCount, extraBuf);                             \
    }
TW_SINCOS_TMP(Sin, SinConfig, SinAlgo::RADIAN_REDUCTION)
TW_SINCOS_TMP(Cos, CosConfig, CosAlgo::RADIAN_REDUCTION)
#undef TW_SINCOS_TMP

// Exp answers whether the query succeeded (a type it supports: half or float).
inline bool GetExpMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                                uint32_t& maxValue, uint32_t& minValue) {
    if (typeSize != 2 && typeSize != 4) return false;
    tw::tmp_sizes(tw::live_nodes({1}, typeSize, isReuseSource), tw::elements_of(srcShape), typeSize, maxValue,
                  minValue);
    return true;
}
inline void GetExpTmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount, uint32_t& extraBuffer) {
    maxLiveNodeCount = tw::live_nodes({1}, typeSize);
    extraBuffer = 0;
}

// Power over a tensor and a tensor or scalar (a scalar's shape is {1}): exp(b ln a) and the sign fix-up for floats
// (ln a, its product, the compare mask), the running product and the squared base for integers.
namespace tw_tmp {
inline uint32_t power_nodes(bool type_is_int, uint32_t type_size) {
    return type_is_int ? 2 : tw::live_nodes({3}, type_size);
}
}  // namespace tw_tmp
inline void GetPowerMaxMinTmpSize(const TensorShape& srcShape1, const TensorShape& srcShape2, const bool typeIsInt,
                                  const uint32_t typeSize, const bool isReuseSource, uint32_t& maxValue,
                                  uint32_t& minValue) {
    uint32_t k = tw_tmp::power_nodes(typeIsInt, typeSize);
    if (isReuseSource && typeSize == 4 && k > 0) --k;
    const uint64_t n = std::max(tw::elements_of(srcShape1), tw::elements_of(srcShape2));
    tw::tmp_sizes(k, n, typeSize, maxValue, minValue);
}
inline void GetPowerTmpBufferFactorSize(const bool baseIsTensor, const bool expIsTensor, const bool typeIsInt,
                                        const uint32_t typeSize, uint32_t& maxLiveNodeCount, uint32_t& extraBuffer) {
    (void)baseIsTensor;
    (void)expIsTensor;
    maxLiveNodeCount = tw_tmp::power_nodes(typeIsInt, typeSize);
    extraBuffer = 0;
}

// Activations.
inline void GetSigmoidMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, bool isReuseSource,
                                    uint32_t& maxValue, uint32_t& minValue) {
    // 1 + e^-x
    tw::tmp_sizes(tw::live_nodes({1}, typeSize, isReuseSource), tw::elements_of(srcShape), typeSize, maxValue,
                  minValue);
}
inline void GetGeluMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                 uint32_t& minValue) {
    // x^3 and the exponent's argument
    tw::tmp_sizes(tw::live_nodes({2}, typeSize), tw::elements_of(srcShape), typeSize, maxValue, minValue);
}
inline uint32_t GetGeluMaxTmpSize(const TensorShape& srcShape, const uint32_t typeSize) {
    uint32_t mx = 0, mn = 0;
    GetGeluMaxMinTmpSize(srcShape, typeSize, mx, mn);
    return mx;
}
inline uint32_t GetGeluMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize) {
    uint32_t mx = 0, mn = 0;
    GetGeluMaxMinTmpSize(srcShape, typeSize, mx, mn);
    return mn;
}
inline void GetSiluTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                           uint32_t& maxValue, uint32_t& minValue) {
    tw::tmp_sizes(tw::live_nodes({1}, typeSize, isReuseSource), tw::elements_of(srcShape), typeSize, maxValue,
                  minValue);
}
inline void GetSwishTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool isReuseSource,
                            uint32_t& maxValue, uint32_t& minValue) {
    tw::tmp_sizes(tw::live_nodes({1}, typeSize, isReuseSource), tw::elements_of(srcShape), typeSize, maxValue,
                  minValue);
}

}  // namespace AscendC

namespace tw {

// The pattern reductions over a 2-d [A, R] (AR) or [R, A] (RA) source: AR reduces each row in a working copy (one
// row at least, every row at most); RA accumulates the rows into one row of A. Sums and means of 16-bit sources
// accumulate in float. Other patterns are the Ascend 950's.
inline void pattern_reduce_sizes(const char* api, const ge::Shape& shape, ge::DataType dataType,
                                 AscendC::ReducePattern pattern, bool widen, uint32_t& maxValue, uint32_t& minValue) {
    const int32_t size = ge::GetSizeByDataType(dataType);
    maxValue = minValue = 0;
    if (shape.GetDimNum() != 2 || size <= 0 ||
        (pattern != AscendC::ReducePattern::AR && pattern != AscendC::ReducePattern::RA)) {
        std::fprintf(stderr, "tw_host: Get%sMaxMinTmpSize: a 2-d shape, a sized data type and the AR or RA pattern "
                     "are what the A2 supports\n", api);
        return;
    }
    const uint32_t width = widen ? std::max(4, size) : static_cast<uint32_t>(size);
    const uint64_t d0 = static_cast<uint64_t>(std::max<int64_t>(shape.GetDim(0), 0));
    const uint64_t d1 = static_cast<uint64_t>(std::max<int64_t>(shape.GetDim(1), 0));
    if (pattern == AscendC::ReducePattern::AR) {
        minValue = round32(d1 * width);
        maxValue = static_cast<uint32_t>(d0 * minValue);
    } else {
        minValue = maxValue = round32(d1 * width);
    }
}

}  // namespace tw

namespace AscendC {

#define TW_PATTERN_REDUCE_TMP(API, WIDEN)                                                                          \
    inline void Get##API##MaxMinTmpSize(const TensorShape& srcShape, const TensorDataType dataType,                \
                                        ReducePattern pattern, bool isSrcInnerPad, bool isReuseSource,             \
                                        uint32_t& maxValue, uint32_t& minValue) {                                  \
        (void)isSrcInnerPad;                                                                                       \
        (void)isReuseSource;                                                                                       \
        tw::pattern_reduce_sizes(#API, srcShape, dataType, pattern, WIDEN, maxValue, minValue);                    \
    }
TW_PATTERN_REDUCE_TMP(ReduceSum, true)
TW_PATTERN_REDUCE_TMP(ReduceMean, true)
TW_PATTERN_REDUCE_TMP(ReduceMax, false)
TW_PATTERN_REDUCE_TMP(ReduceMin, false)
TW_PATTERN_REDUCE_TMP(ReduceProd, false)
TW_PATTERN_REDUCE_TMP(ReduceAll, false)
TW_PATTERN_REDUCE_TMP(ReduceAny, false)
#undef TW_PATTERN_REDUCE_TMP

// ReduceXorSum (int16_t): the xor of the pair, kept beside the running result.
inline void GetReduceXorSumMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize,
                                         const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    tw::tmp_sizes(tw::live_nodes({isReuseSource ? 1u : 2u, true}, typeSize), tw::elements_of(srcShape), typeSize,
                  maxValue, minValue);
}

// Sum of rows of n elements: the per-repeat partial sums of a row, as Mean's same-type case.
inline void GetSumMaxMinTmpSize(const uint32_t n, const uint32_t typeSize, const bool isReuseSource, uint32_t& maxSize,
                                uint32_t& minSize) {
    (void)isReuseSource;
    maxSize = minSize = typeSize == 0 ? 0 : tw::mean_min_tmp(n, typeSize, typeSize);
}

}  // namespace AscendC

namespace tw {
// The byte-mask Select's shapes: the tensor operand's (the other is a scalar, shape {1}) and the mask's rows.
inline void select_sizes(const ge::Shape& src0, const ge::Shape& src1, const ge::Shape& mask, uint32_t maskTypeSize,
                         bool isReuseMask, uint32_t& maxValue, uint32_t& minValue) {
    const ge::Shape& src = elements_of(src0) >= elements_of(src1) ? src0 : src1;
    const size_t rs = src.GetDimNum(), rm = mask.GetDimNum();
    const uint32_t k1 = rs ? static_cast<uint32_t>(src.GetDim(rs - 1)) : 1;
    const uint32_t k2 = rm ? static_cast<uint32_t>(mask.GetDim(rm - 1)) : 1;
    maxValue = select_bytes_mask_tmp(elements_of(src), k1, k2, maskTypeSize, isReuseMask, true);
    minValue = select_bytes_mask_tmp(elements_of(src), k1, k2, maskTypeSize, isReuseMask, false);
}
}  // namespace tw

namespace AscendC {

// Select's queries (数据过滤 / GetSelectMaxMinTmpSize), with their deprecated GetSelectWithBytesMask* names.
#define TW_SELECT_TMP(NAME)                                                                                        \
    inline uint32_t Get##NAME##MinTmpSize(const TensorShape& src0Shape, const TensorShape& src1Shape,              \
                                          const uint32_t srcTypeSize, const TensorShape& maskShape,                \
                                          const uint32_t maskTypeSize, const bool isReuseMask) {                   \
        (void)srcTypeSize;                                                                                         \
        uint32_t mx = 0, mn = 0;                                                                                   \
        tw::select_sizes(src0Shape, src1Shape, maskShape, maskTypeSize, isReuseMask, mx, mn);                      \
        return mn;                                                                                                 \
    }                                                                                                              \
    inline uint32_t Get##NAME##MaxTmpSize(const TensorShape& src0Shape, const TensorShape& src1Shape,              \
                                          const uint32_t srcTypeSize, const TensorShape& maskShape,                \
                                          const uint32_t maskTypeSize, const bool isReuseMask) {                   \
        (void)srcTypeSize;                                                                                         \
        uint32_t mx = 0, mn = 0;                                                                                   \
        tw::select_sizes(src0Shape, src1Shape, maskShape, maskTypeSize, isReuseMask, mx, mn);                      \
        return mx;                                                                                                 \
    }                                                                                                              \
    inline void Get##NAME##MaxMinTmpSize(const TensorShape& src0Shape, const TensorShape& src1Shape,               \
                                         const uint32_t srcTypeSize, const TensorShape& maskShape,                 \
                                         const uint32_t maskTypeSize, const bool isReuseMask, uint32_t& maxValue,  \
                                         uint32_t& minValue) {                                                     \
        (void)srcTypeSize;                                                                                         \
        tw::select_sizes(src0Shape, src1Shape, maskShape, maskTypeSize, isReuseMask, maxValue, minValue);          \
    }
TW_SELECT_TMP(Select)
TW_SELECT_TMP(SelectWithBytesMask)
#undef TW_SELECT_TMP

}  // namespace AscendC
