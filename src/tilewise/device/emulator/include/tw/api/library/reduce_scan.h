// Reductions and scans of the AscendC high-level library, written from the Ascend C API reference (高阶API /
// 归约操作 and 数学计算):
//
//   Mean<T, accType>(dst, src[, tmp], MeanParams{outter, inner, n})
//       dst[r] = (sum of the row's first n elements) / n, per row of a [outter, inner] source (inner is n rounded
//       up to 32 bytes); the sum is taken in accType (float for half when asked) and divided afterwards.
//   ReduceAll / ReduceAny<T, Pattern::Reduce::AR | RA>(dst, src[, tmp], srcShape, srcInnerPad)
//       logical and / or of 0/1 values (uint8_t or float) over the reduce axis (AR: along each row, RA: down each
//       column).
//   ReduceProd<float, AR | RA>(dst, src[, tmp], srcShape, srcInnerPad)      the product over the reduce axis
//   CumSum<T, CumSumConfig>(dst, lastRow, src[, tmp], CumSumInfo{outter, inner})
//       isLastAxis: running sums along each row (lastRow gets each row's total, one per row); otherwise running
//       sums down each column (lastRow gets the last row). half is summed in float and rounded per output.
//
// Documented constraints checked (each a sanitizer error at the call): the 32-byte aligned inner axis, 1 <= n <= inner,
// the 0/1 inputs of ReduceAll/Any, srcInnerPad = true (the only value the reference supports), the operands the
// reference says may not overlap (source and destination; sharedTmpBuffer and either), and Mean's / CumSum's
// sharedTmpBuffer against the minimum of GetMeanMaxMinTmpSize / GetCumSumMaxMinTmpSize (tw/tiling/tmp_buffer_min.h).
//
// Cost: the trace records the basic instructions of each evaluation (the Casts of a widened type, a WholeReduce
// over a row-reduced source, an element-wise Min / Max / Mul / Add folding rows of a column-reduced one, the Adds of
// a scan), so the timing model costs them on the vector pipe. The sequences are modelling choices.
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "tw/tiling/tmp_buffer_min.h"
#include "tw/api/library/reduce_broadcast.h"
#include "tw/api/vector/arith.h"

namespace AscendC {

struct MeanParams {
    uint32_t outter = 1;
    uint32_t inner;
    uint32_t n;
};

struct CumSumInfo {
    uint32_t outter{0};
    uint32_t inner{0};
};

enum class CumSumAlgorithm { CUMSUM_ALGORITHM_LINEBYLINE = 0, CUMSUM_ALGORITHM_SKLANSKY = 1 };

struct CumSumConfig {
    bool isLastAxis{true};
    bool isReuseSource{false};
    bool outputLastRow{false};
    CumSumAlgorithm algorithm{CumSumAlgorithm::CUMSUM_ALGORITHM_LINEBYLINE};
};

constexpr CumSumConfig defaultCumSumConfig = {true, false, false, CumSumAlgorithm::CUMSUM_ALGORITHM_LINEBYLINE};

}  // namespace AscendC

namespace tw {

// The reference's "operands may not overlap" constraints: byte ranges [a, a + na) and [b, b + nb) of the UB.
inline void lib_no_overlap(const void* a, uint64_t na, const void* b, uint64_t nb, const char* name,
                           const char* what, const char* file, int line) {
    if (a == nullptr || b == nullptr || na == 0 || nb == 0) return;
    const uintptr_t a0 = reinterpret_cast<uintptr_t>(a), b0 = reinterpret_cast<uintptr_t>(b);
    if (a0 < b0 + nb && b0 < a0 + na)
        fail("invalid_argument", std::string(name) + ": " + what + " overlap, which the reference does not allow",
             file, line);
}

// sharedTmpBuffer (when the caller passes one) may overlap neither the source nor the destination.
template <typename T, typename U>
inline void lib_tmp_apart(const AscendC::LocalTensor<uint8_t>& tmp, const T* src, uint64_t ns, const U* dst,
                          uint64_t nd, const char* name, const char* file, int line) {
    if (tmp.GetSize() == 0) return;
    lib_no_overlap(tmp.data(), tmp.GetSize(), src, ns * sizeof(T), name, "sharedTmpBuffer and the source", file, line);
    lib_no_overlap(tmp.data(), tmp.GetSize(), dst, nd * sizeof(U), name, "sharedTmpBuffer and the destination", file,
                   line);
}

// A caller's sharedTmpBuffer below the minimum the library's host query reports.
inline void lib_tmp_min(const AscendC::LocalTensor<uint8_t>& tmp, uint32_t need, const char* name,
                        const char* host_fn, const char* file, int line) {
    if (tmp.GetSize() != 0 && tmp.GetSize() < need)
        fail("work_buffer_too_small", std::string(name) + ": sharedTmpBuffer holds " + std::to_string(tmp.GetSize()) +
             " bytes, less than the minimum " + std::to_string(need) + " that " + host_fn + " gives", file, line);
}

template <typename T, typename accType>
inline void mean_rows(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                      const AscendC::LocalTensor<uint8_t>& tmp, const AscendC::MeanParams& p, const char* file,
                      int line) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "Mean takes half or float");
    static_assert(sizeof(accType) >= sizeof(T) && is_fp_v<accType>,
                  "Mean: accType may not be less precise than T");
    if ((uint64_t(p.inner) * sizeof(T)) % 32 != 0)
        fail("misaligned", "Mean: MeanParams.inner (" + std::to_string(p.inner) + ") * sizeof(T) is not a multiple "
             "of 32 bytes", file, line);
    if (p.n < 1 || p.n > p.inner)
        fail("invalid_argument", "Mean: MeanParams.n (" + std::to_string(p.n) + ") must satisfy 1 <= n <= inner (" +
             std::to_string(p.inner) + ")", file, line);
    if (p.outter == 0) return;
    const uint64_t total = uint64_t(p.outter) * p.inner;
    const T* x = src.span(0, total, "Mean", file, line);
    T* d = dst.span(0, p.outter, "Mean", file, line);
    lib_no_overlap(x, total * sizeof(T), d, uint64_t(p.outter) * sizeof(T), "Mean", "the source and destination",
                   file, line);
    lib_tmp_apart(tmp, x, total, d, p.outter, "Mean", file, line);
    lib_tmp_min(tmp, mean_min_tmp(p.n, sizeof(T), sizeof(accType)), "Mean", "GetMeanMaxMinTmpSize", file, line);
    for (uint32_t r = 0; r < p.outter; ++r) {
        double acc = 0;
        for (uint32_t i = 0; i < p.n; ++i) acc += to_double_exact(x[uint64_t(r) * p.inner + i]);
        const accType s = from_c<accType>(static_cast<calc_t<accType>>(acc));
        const accType m = from_c<accType>(to_c<accType>(s) / static_cast<calc_t<accType>>(p.n));
        d[r] = from_c<T>(static_cast<calc_t<T>>(to_c<accType>(m)));
    }
    const bool widen = !std::is_same<T, accType>::value;
    if (widen) vrec_count<T>("Cast", file, line, total);
    vrec_count<accType>("WholeReduceSum", file, line, total);
    vrec_count<accType>("Muls", file, line, p.outter);
    if (widen) vrec_count<accType>("Cast", file, line, p.outter);
}

enum class LibRed { All, Any, Prod };

template <typename T, typename pattern>
inline void reduce_lib(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                       const AscendC::LocalTensor<uint8_t>& tmp, const uint32_t* shape, bool srcInnerPad, LibRed op,
                       const char* name, const char* file, int line) {
    static_assert(std::is_same<pattern, AscendC::Pattern::Reduce::AR>::value ||
                      std::is_same<pattern, AscendC::Pattern::Reduce::RA>::value,
                  "the reference offers the patterns AR and RA");
    if (!srcInnerPad)
        fail("invalid_argument", std::string(name) + ": srcInnerPad must be true (the only value the reference "
             "supports)", file, line);
    const uint64_t rows = shape[0], cols = shape[1];
    if ((cols * sizeof(T)) % 32 != 0)
        fail("misaligned", std::string(name) + ": the inner axis (" + std::to_string(cols) + " elements) is not "
             "32-byte aligned, but srcInnerPad says it is", file, line);
    const bool ar = std::is_same<pattern, AscendC::Pattern::Reduce::AR>::value;
    const uint64_t outer = ar ? rows : cols, inner = ar ? cols : rows;
    const T* x = src.span(0, rows * cols, name, file, line);
    T* d = dst.span(0, outer, name, file, line);
    lib_no_overlap(x, rows * cols * sizeof(T), d, outer * sizeof(T), name, "the source and destination", file, line);
    lib_tmp_apart(tmp, x, rows * cols, d, outer, name, file, line);
    if (op != LibRed::Prod)
        for (uint64_t i = 0; i < rows * cols; ++i) {
            const double v = to_double_exact(x[i]);
            if (v != 0.0 && v != 1.0)
                fail("invalid_argument", std::string(name) + ": source element " + std::to_string(i) + " is " +
                     std::to_string(v) + "; the reference allows only 0 and 1", file, line);
        }
    for (uint64_t o = 0; o < outer; ++o) {
        calc_t<T> acc = to_c<T>(x[ar ? o * cols : o]);
        for (uint64_t i = 1; i < inner; ++i) {
            const calc_t<T> v = to_c<T>(x[ar ? o * cols + i : i * cols + o]);
            if (op == LibRed::All) acc = v < acc ? v : acc;
            else if (op == LibRed::Any) acc = v > acc ? v : acc;
            else acc = acc * v;
        }
        d[o] = from_c<T>(acc);
    }
    // uint8_t has no vector Min / Max: it is widened to half and narrowed back.
    const bool bytes = sizeof(T) == 1;
    if (bytes) vrec_count<half>("Cast", file, line, rows * cols);
    const char* fold = op == LibRed::All ? "Min" : op == LibRed::Any ? "Max" : "Mul";
    const char* whole = op == LibRed::All ? "WholeReduceMin" : op == LibRed::Any ? "WholeReduceMax" : nullptr;
    if (ar && whole != nullptr) {
        if (bytes) vrec_count<half>(whole, file, line, rows * cols);
        else vrec_count<T>(whole, file, line, rows * cols);
    } else if (ar) {
        // a row product: halve the row with Muls down to one repeat, then fold the last block element by element
        vrec_count<float>(fold, file, line, rows * cols);
    } else if (rows > 1) {
        if (bytes) vrec_count<half>(fold, file, line, (rows - 1) * cols);
        else vrec_count<T>(fold, file, line, (rows - 1) * cols);
    }
    if (bytes) vrec_count<half>("Cast", file, line, outer);
}

template <typename T, const AscendC::CumSumConfig& config>
inline void cumsum(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& lastRow,
                   const AscendC::LocalTensor<T>& src, const AscendC::LocalTensor<uint8_t>& tmp,
                   const AscendC::CumSumInfo& info, const char* file, int line) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "CumSum takes half or float");
    if (config.algorithm != AscendC::CumSumAlgorithm::CUMSUM_ALGORITHM_LINEBYLINE)
        fail("unsupported", "CumSum: the Sklansky algorithm is an Ascend 950 feature; the 910B offers line by line",
             file, line);
    if (info.outter == 0 || info.inner == 0)
        fail("invalid_argument", "CumSum: cumSumInfo.outter and cumSumInfo.inner must both be greater than 0", file,
             line);
    if ((uint64_t(info.inner) * sizeof(T)) % 32 != 0)
        fail("misaligned", "CumSum: cumSumInfo.inner (" + std::to_string(info.inner) + ") * sizeof(T) is not a "
             "multiple of 32 bytes", file, line);
    const uint64_t m = info.outter, k = info.inner, n = m * k;
    const T* x = src.span(0, n, "CumSum", file, line);
    T* d = dst.span(0, n, "CumSum", file, line);
    lib_tmp_apart(tmp, x, n, d, n, "CumSum", file, line);
    lib_tmp_min(tmp, cumsum_min_tmp(info.inner, sizeof(T), config.isLastAxis, info.outter), "CumSum",
                "GetCumSumMaxMinTmpSize", file, line);
    std::vector<float> acc(config.isLastAxis ? 1 : k, 0.0f);
    std::vector<T> out(n);  // src may be dst
    for (uint64_t r = 0; r < m; ++r) {
        if (config.isLastAxis) acc[0] = 0.0f;
        for (uint64_t c = 0; c < k; ++c) {
            float& a = acc[config.isLastAxis ? 0 : c];
            a += static_cast<float>(to_c<T>(x[r * k + c]));
            out[r * k + c] = from_c<T>(static_cast<calc_t<T>>(a));
        }
    }
    for (uint64_t i = 0; i < n; ++i) d[i] = out[i];
    if (config.outputLastRow) {
        const uint64_t nl = config.isLastAxis ? m : k;
        if (lastRow.GetSize() < k)
            fail("invalid_argument", "CumSum: lastRowTensor holds " + std::to_string(lastRow.GetSize()) +
                 " elements, fewer than cumSumInfo.inner (" + std::to_string(k) + ")", file, line);
        T* l = lastRow.span(0, nl, "CumSum", file, line);
        for (uint64_t i = 0; i < nl; ++i) l[i] = config.isLastAxis ? out[i * k + k - 1] : out[(m - 1) * k + i];
    }
    const bool widen = std::is_same<T, half>::value;
    if (widen) vrec_count<T>("Cast", file, line, n);
    if (config.isLastAxis) {
        // rows become columns (a transpose through Gather), summed as for the first axis, and turned back
        vrec_count<float>("Gather", file, line, n);
        vrec_count<float>("Add", file, line, n - m);
        vrec_count<float>("Gather", file, line, n);
    } else {
        vrec_count<float>("Add", file, line, n - k);
    }
    if (widen) vrec_count<float>("Cast", file, line, n);
    if (config.outputLastRow) vrec_count<T>("DataCopy", file, line, config.isLastAxis ? m : k);
}

}  // namespace tw

namespace AscendC {

template <typename T, typename accType = T, bool isReuseSource = false, bool isBasicBlock = false,
          int32_t reduceDim = -1>
void Mean(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
          const MeanParams& meanParams, TW_SRC) {
    tw::mean_rows<T, accType>(dstTensor, srcTensor, sharedTmpBuffer, meanParams, TW_AT);
}
TW_TWIN_M(, void, (typename T, typename accType = T, bool isReuseSource = false, bool isBasicBlock = false,
        int32_t reduceDim = -1), Mean, (T, accType, isReuseSource, isBasicBlock, reduceDim),
        (const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
        const LocalTensor<uint8_t>& sharedTmpBuffer, const MeanParams& meanParams), (dstTensor, srcTensor,
        sharedTmpBuffer, meanParams), )
template <typename T, typename accType = T, bool isReuseSource = false, bool isBasicBlock = false,
          int32_t reduceDim = -1>
void Mean(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const MeanParams& meanParams, TW_SRC) {
    tw::mean_rows<T, accType>(dstTensor, srcTensor, LocalTensor<uint8_t>(), meanParams, TW_AT);
}
TW_TWIN_M(, void, (typename T, typename accType = T, bool isReuseSource = false, bool isBasicBlock = false,
        int32_t reduceDim = -1), Mean, (T, accType, isReuseSource, isBasicBlock, reduceDim),
        (const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const MeanParams& meanParams), (dstTensor,
        srcTensor, meanParams), )

#define TW_LIB_REDUCE(NAME, OP, ...)                                                                               \
    template <class T, class pattern, bool isReuseSource = false>                                                  \
    void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                                    \
              const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t srcShape[], bool srcInnerPad, TW_SRC) {  \
        static_assert(__VA_ARGS__, #NAME ": unsupported element type (see the reference)");                        \
        tw::reduce_lib<T, pattern>(dstTensor, srcTensor, sharedTmpBuffer, srcShape, srcInnerPad, OP, #NAME, TW_AT); \
    }                                                                                                              \
    TW_TWIN_M(, void, (class T, class pattern, bool isReuseSource = false), NAME, (T, pattern, isReuseSource),     \
            (const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                                     \
            const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t srcShape[], bool srcInnerPad),             \
            (dstTensor, srcTensor, sharedTmpBuffer, srcShape, srcInnerPad), )                                      \
    template <class T, class pattern, bool isReuseSource = false>                                                  \
    void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t srcShape[],         \
              bool srcInnerPad, TW_SRC) {                                                                          \
        static_assert(__VA_ARGS__, #NAME ": unsupported element type (see the reference)");                        \
        tw::reduce_lib<T, pattern>(dstTensor, srcTensor, LocalTensor<uint8_t>(), srcShape, srcInnerPad, OP, #NAME, \
                                   TW_AT);                                                                         \
    }                                                                                                              \
    TW_TWIN_M(, void, (class T, class pattern, bool isReuseSource = false), NAME, (T, pattern, isReuseSource),     \
            (const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t srcShape[],          \
            bool srcInnerPad), (dstTensor, srcTensor, srcShape, srcInnerPad), )
TW_LIB_REDUCE(ReduceAll, tw::LibRed::All, std::is_same<T, uint8_t>::value || std::is_same<T, float>::value)
TW_LIB_REDUCE(ReduceAny, tw::LibRed::Any, std::is_same<T, uint8_t>::value || std::is_same<T, float>::value)
TW_LIB_REDUCE(ReduceProd, tw::LibRed::Prod, std::is_same<T, float>::value)
#undef TW_LIB_REDUCE

template <typename T, const CumSumConfig& config = defaultCumSumConfig>
void CumSum(LocalTensor<T>& dstTensor, LocalTensor<T>& lastRowTensor, const LocalTensor<T>& srcTensor,
            LocalTensor<uint8_t>& sharedTmpBuffer, const CumSumInfo& cumSumInfo, TW_SRC) {
    tw::cumsum<T, config>(dstTensor, lastRowTensor, srcTensor, sharedTmpBuffer, cumSumInfo, TW_AT);
}
TW_TWIN_M(, void, (typename T, const CumSumConfig& config = defaultCumSumConfig), CumSum, (T, config),
        (LocalTensor<T>& dstTensor, LocalTensor<T>& lastRowTensor, const LocalTensor<T>& srcTensor,
        LocalTensor<uint8_t>& sharedTmpBuffer, const CumSumInfo& cumSumInfo), (dstTensor, lastRowTensor, srcTensor,
        sharedTmpBuffer, cumSumInfo), )
template <typename T, const CumSumConfig& config = defaultCumSumConfig>
void CumSum(LocalTensor<T>& dstTensor, LocalTensor<T>& lastRowTensor, const LocalTensor<T>& srcTensor,
            const CumSumInfo& cumSumInfo, TW_SRC) {
    tw::cumsum<T, config>(dstTensor, lastRowTensor, srcTensor, LocalTensor<uint8_t>(), cumSumInfo, TW_AT);
}
TW_TWIN_M(, void, (typename T, const CumSumConfig& config = defaultCumSumConfig), CumSum, (T, config),
        (LocalTensor<T>& dstTensor, LocalTensor<T>& lastRowTensor, const LocalTensor<T>& srcTensor,
        const CumSumInfo& cumSumInfo), (dstTensor, lastRowTensor, srcTensor, cumSumInfo), )

}  // namespace AscendC
