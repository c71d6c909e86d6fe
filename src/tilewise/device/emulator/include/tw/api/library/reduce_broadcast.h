// Shape-described high-level APIs of the AscendC library, written from the Ascend C API reference:
//
//   ReduceSum / ReduceMax / ReduceMin / ReduceMean<T, Pattern::Reduce::AR | RA>(dst, src[, tmp], srcShape,
//       srcInnerPad) over a 2-D source {rows, cols}: AR keeps the rows (dst[r] = op over the row), RA keeps the
//       columns (dst[c] = op over the column). Sums and means accumulate in double and round once.
//   Broadcast<T, dim, axis>(dst, src, dstShape, srcShape[, tmp])   (also under its 8.0 name BroadCast)
//       dim 1: a single value to dstShape[0] elements; dim 2: axis 1 stretches a {m, 1} column to {m, n},
//       axis 0 a {1, n} row to {m, n}.
//
// Only inner axes that are 32-byte aligned (srcInnerPad == true) are offered; the unaligned variant's layout is
// not modelled and is reported as unsupported. The trace records the basic instructions that do the work (an Add /
// Max / Min over the source, a Copy over the destination) on the vector pipe.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tw/api/vector/core.h"

namespace AscendC {
namespace Pattern {
namespace Reduce {
struct AR {};  // keep axis 0, reduce axis 1
struct RA {};  // reduce axis 0, keep axis 1
}  // namespace Reduce
}  // namespace Pattern
}  // namespace AscendC

namespace tw {

enum class RedOp { Sum, Max, Min, Mean };

template <typename T, typename pattern>
inline void reduce_2d(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, const uint32_t* shape,
                      bool srcInnerPad, RedOp op, const char* name, const char* file, int line) {
    static_assert(std::is_same<pattern, AscendC::Pattern::Reduce::AR>::value ||
                      std::is_same<pattern, AscendC::Pattern::Reduce::RA>::value,
                  "the emulator offers the two-axis patterns AR and RA");
    if (!srcInnerPad)
        fail("unsupported", std::string(name) + " with srcInnerPad = false: the emulator models 32-byte aligned "
             "inner axes only", file, line);
    const uint64_t rows = shape[0], cols = shape[1];
    const bool ar = std::is_same<pattern, AscendC::Pattern::Reduce::AR>::value;
    const T* x = src.span(0, rows * cols, name, file, line);
    const uint64_t outer = ar ? rows : cols, inner = ar ? cols : rows;
    T* d = dst.span(0, outer, name, file, line);
    std::vector<T> out(outer);
    for (uint64_t o = 0; o < outer; ++o) {
        const bool sums = op == RedOp::Sum || op == RedOp::Mean;
        double acc = sums ? 0.0 : to_double_exact(x[ar ? o * cols : o]);
        for (uint64_t i = 0; i < inner; ++i) {
            const double v = to_double_exact(x[ar ? o * cols + i : i * cols + o]);
            if (sums) acc += v;
            else if (op == RedOp::Max) acc = v > acc ? v : acc;
            else acc = v < acc ? v : acc;
        }
        if (op == RedOp::Mean && inner > 0) acc /= static_cast<double>(inner);
        out[o] = from_c<T>(static_cast<calc_t<T>>(acc));
    }
    for (uint64_t o = 0; o < outer; ++o) d[o] = out[o];
    vrec_count<T>(op == RedOp::Max ? "Max" : op == RedOp::Min ? "Min" : "Add", file, line, rows * cols);
    if (op == RedOp::Mean) vrec_count<T>("Muls", file, line, outer);  // the sums times 1 / the reduced length
}

}  // namespace tw

namespace AscendC {

#define TW_PATTERN_REDUCE(NAME, OP)                                                                                \
    template <class T, class pattern, bool isReuseSource = false>                                                  \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,   \
              const uint32_t srcShape[], bool srcInnerPad, TW_SRC) {                                               \
        (void)sharedTmpBuffer;                                                                                     \
        tw::reduce_2d<T, pattern>(dst, src, srcShape, srcInnerPad, OP, #NAME, TW_AT);                              \
    }                                                                                                              \
    TW_TWIN_M(, void, (class T, class pattern, bool isReuseSource = false), NAME, (T, pattern, isReuseSource),     \
            (const LocalTensor<T>& dst, const LocalTensor<T>& src,                                                 \
            const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t srcShape[], bool srcInnerPad), (dst,       \
            src, sharedTmpBuffer, srcShape, srcInnerPad), )                                                        \
    template <class T, class pattern, bool isReuseSource = false>                                                  \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t srcShape[], bool srcInnerPad,   \
              TW_SRC) {                                                                                            \
        tw::reduce_2d<T, pattern>(dst, src, srcShape, srcInnerPad, OP, #NAME, TW_AT);                              \
    }                                                                                                              \
    TW_TWIN_M(, void, (class T, class pattern, bool isReuseSource = false), NAME, (T, pattern, isReuseSource),     \
            (const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t srcShape[], bool srcInnerPad),   \
            (dst, src, srcShape, srcInnerPad), )
TW_PATTERN_REDUCE(ReduceSum, tw::RedOp::Sum)
TW_PATTERN_REDUCE(ReduceMax, tw::RedOp::Max)
TW_PATTERN_REDUCE(ReduceMin, tw::RedOp::Min)
TW_PATTERN_REDUCE(ReduceMean, tw::RedOp::Mean)
#undef TW_PATTERN_REDUCE

template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
void Broadcast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
               const uint32_t srcShape[dim], const LocalTensor<uint8_t>& sharedTmpBuffer, TW_SRC) {
    static_assert(dim == 1 || dim == 2, "Broadcast takes 1-D or 2-D shapes");
    static_assert(axis == 0 || axis == 1, "Broadcast axis is 0 or 1");
    (void)sharedTmpBuffer;
    const uint64_t m = dstShape[0], n = dim == 2 ? dstShape[1] : 1;
    const bool stretch_cols = dim == 2 && axis == 1;  // {m, 1} -> {m, n}
    const bool ok = dim == 1 ? srcShape[0] == 1
                             : (stretch_cols ? srcShape[0] == m && srcShape[1] == 1 : srcShape[0] == 1 && srcShape[1] == n);
    if (!ok)
        tw::fail("invalid_argument", "Broadcast: the source shape does not broadcast to the destination shape along "
                 "axis " + std::to_string(axis), TW_AT);
    const uint64_t src_n = dim == 1 ? 1 : uint64_t(srcShape[0]) * srcShape[1];
    const std::vector<T> x(src.span(0, src_n, "Broadcast", TW_AT), src.span(0, src_n, "Broadcast", TW_AT) + src_n);
    T* d = dst.span(0, m * n, "Broadcast", TW_AT);
    for (uint64_t r = 0; r < m; ++r)
        for (uint64_t c = 0; c < n; ++c) d[r * n + c] = dim == 1 ? x[0] : stretch_cols ? x[r] : x[c];
    tw::vrec_count<T>("Copy", TW_AT, m * n);
}
TW_TWIN_M(, void, (typename T, int32_t dim, int32_t axis, bool isReuseSource = false), Broadcast, (T, dim, axis,
        isReuseSource), (const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
        const uint32_t srcShape[dim], const LocalTensor<uint8_t>& sharedTmpBuffer), (dst, src, dstShape, srcShape,
        sharedTmpBuffer), )

template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
void Broadcast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
               const uint32_t srcShape[dim], TW_SRC) {
    Broadcast<T, dim, axis, isReuseSource>(dst, src, dstShape, srcShape, LocalTensor<uint8_t>(), TW_AT);
}
TW_TWIN_M(, void, (typename T, int32_t dim, int32_t axis, bool isReuseSource = false), Broadcast, (T, dim, axis,
        isReuseSource), (const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
        const uint32_t srcShape[dim]), (dst, src, dstShape, srcShape), )

// BroadCast: the API's name in the 8.0 reference (renamed Broadcast later), the same two forms.
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
void BroadCast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
               const uint32_t srcShape[dim], const LocalTensor<uint8_t>& sharedTmpBuffer, TW_SRC) {
    Broadcast<T, dim, axis, isReuseSource>(dst, src, dstShape, srcShape, sharedTmpBuffer, TW_AT);
}
TW_TWIN_M(, void, (typename T, int32_t dim, int32_t axis, bool isReuseSource = false), BroadCast, (T, dim, axis,
        isReuseSource), (const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
        const uint32_t srcShape[dim], const LocalTensor<uint8_t>& sharedTmpBuffer), (dst, src, dstShape, srcShape,
        sharedTmpBuffer), )
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
void BroadCast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
               const uint32_t srcShape[dim], TW_SRC) {
    Broadcast<T, dim, axis, isReuseSource>(dst, src, dstShape, srcShape, LocalTensor<uint8_t>(), TW_AT);
}
TW_TWIN_M(, void, (typename T, int32_t dim, int32_t axis, bool isReuseSource = false), BroadCast, (T, dim, axis,
        isReuseSource), (const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
        const uint32_t srcShape[dim]), (dst, src, dstShape, srcShape), )

}  // namespace AscendC
