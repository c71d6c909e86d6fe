// High-level math APIs of the AscendC library (the "advanced" API layer built on the vector instructions): each
// computes its function element-wise in the arithmetic type (float for half / bfloat16) and rounds once, with the
// count form `Op(dst, src, count)` and the form taking a caller-provided `sharedTmpBuffer`, which the emulator does
// not need but bounds-checks nothing against (the real library's scratch layout is its own business). Also the
// library's Sum (row sums) and ArithProgression. These and Sigmoid come first in this
// file, then the functions below, written from the Ascend C API reference:
//
//   unary    Tanh Sin Cos Tan Asin Acos Atan Sinh Cosh Asinh Acosh Atanh Erf Erfc Log Log2 Log10 Exp2
//            Floor Ceil Round (halves to even, as the reference's round.h states) Trunc Frac (x - trunc x)
//            Sign (-1, 0, 1)
//   binary   Power (tensor ^ tensor, tensor ^ scalar, scalar ^ tensor), Fmod, Xor
//   scalar   ClampMax (min(x, s)), ClampMin (max(x, s))
//
// Each is computed element-wise in the arithmetic type (float for half / bfloat16) and rounded once. Every form of
// the reference is accepted: with or without the caller's sharedTmpBuffer (the emulator needs no scratch), with a
// calCount or over the whole destination.
//
// Cost: the library builds these from basic vector instructions, so the trace records, per call, the basic
// instructions of the function's usual evaluation (e.g. Tanh = Muls, Exp, Adds, Adds, Div; a polynomial of degree
// k = k x (Mul, Adds)). The timing model then costs each with its calibrated per-instruction figures on the vector
// pipe. The sequences are modelling choices, not the library's exact instruction stream.
#pragma once
#include <cmath>
#include <cstdint>
#include <initializer_list>

#include "tw/api/vector/core.h"
#include "tw/api/vector/arith.h"

namespace tw {
namespace op {
struct Sigmoid { template <class C> C operator()(C a) const { return C(1) / (C(1) + std::exp(-a)); } };
}  // namespace op
}  // namespace tw

namespace AscendC {

#define TW_MATH_UNARY(NAME, OP)                                                                                    \
    template <typename T, bool isReuseSource = false>                                                              \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount, TW_SRC) {             \
        tw::un_count(#NAME, dst, src, calCount, [](T, T x) { return tw::apply1<T>(OP{}, x); }, TW_AT);             \
    }                                                                                                              \
    TW_TWIN_M(, void, (typename T, bool isReuseSource = false), NAME, (T, isReuseSource),                          \
            (const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount), (dst, src,            \
            calCount), )                                                                                           \
    template <typename T, bool isReuseSource = false>                                                              \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,   \
              const uint32_t calCount, TW_SRC) {                                                                   \
        (void)sharedTmpBuffer;                                                                                     \
        tw::un_count(#NAME, dst, src, calCount, [](T, T x) { return tw::apply1<T>(OP{}, x); }, TW_AT);             \
    }                                                                                                              \
    TW_TWIN_M(, void, (typename T, bool isReuseSource = false), NAME, (T, isReuseSource),                          \
            (const LocalTensor<T>& dst, const LocalTensor<T>& src,                                                 \
            const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount), (dst, src, sharedTmpBuffer,     \
            calCount), )

TW_MATH_UNARY(Sigmoid, tw::op::Sigmoid)

#undef TW_MATH_UNARY

// Sum: for each of `outter` rows of `inner` elements (inner is the row pitch, a multiple of 32 bytes), dst[row] =
// the sum of the row's first `n` elements, accumulated in float (double for float rows) and rounded once.
struct SumParams {
    uint32_t outter = 1;
    uint32_t inner = 0;
    uint32_t n = 0;
};

namespace tw_vec {
template <typename T>
void sum_rows(const LocalTensor<T>& dst, const LocalTensor<T>& src, const SumParams& p, const char* file, int line) {
    if (p.n > p.inner)
        tw::fail("invalid_argument", "Sum: n (" + std::to_string(p.n) + ") exceeds the row length inner (" +
                 std::to_string(p.inner) + ")", file, line);
    if (p.outter == 0) return;
    const T* x = src.span(0, uint64_t(p.outter - 1) * p.inner + p.n, "Sum", file, line);
    T* d = dst.span(0, p.outter, "Sum", file, line);
    for (uint32_t r = 0; r < p.outter; ++r) {
        double acc = 0;
        for (uint32_t i = 0; i < p.n; ++i) acc += tw::to_double_exact(x[uint64_t(r) * p.inner + i]);
        d[r] = tw::from_c<T>(static_cast<tw::calc_t<T>>(acc));
    }
    tw::vrec_count<T>("Sum", file, line, uint64_t(p.outter) * p.inner);
}
}  // namespace tw_vec

template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
void Sum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const SumParams& sumParams, TW_SRC) {
    tw_vec::sum_rows(dst, src, sumParams, TW_AT);
}
TW_TWIN_M(, void, (typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false), Sum,
        (T, reduceDim, isReuseSource, isBasicBlock), (const LocalTensor<T>& dst, const LocalTensor<T>& src,
        const SumParams& sumParams), (dst, src, sumParams), )
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
void Sum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
         const SumParams& sumParams, TW_SRC) {
    (void)sharedTmpBuffer;
    tw_vec::sum_rows(dst, src, sumParams, TW_AT);
}
TW_TWIN_M(, void, (typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false), Sum,
        (T, reduceDim, isReuseSource, isBasicBlock), (const LocalTensor<T>& dst, const LocalTensor<T>& src,
        const LocalTensor<uint8_t>& sharedTmpBuffer, const SumParams& sumParams), (dst, src, sharedTmpBuffer,
        sumParams), )

// ArithProgression: dst[i] = firstValue + i * diffValue for i < count, each element computed directly (no running
// sum, so no accumulated rounding).
template <typename T>
void ArithProgression(const LocalTensor<T>& dst, const tw::nd_t<T> firstValue, const tw::nd_t<T> diffValue,
                      const int32_t count, TW_SRC) {
    tw::check_count(count, "ArithProgression", TW_AT);
    T* d = dst.span(0, count, "ArithProgression", TW_AT);
    const tw::calc_t<T> a = tw::to_c<T>(firstValue), b = tw::to_c<T>(diffValue);
    for (int32_t i = 0; i < count; ++i) d[i] = tw::from_c<T>(a + static_cast<tw::calc_t<T>>(i) * b);
    tw::vrec_count<T>("ArithProgression", TW_AT, count);
}
TW_TWIN_M(, void, (typename T), ArithProgression, (T), (const LocalTensor<T>& dst, const tw::nd_t<T> firstValue,
        const tw::nd_t<T> diffValue, const int32_t count), (dst, firstValue, diffValue, count), )

}  // namespace AscendC

// ---- unary, binary and scalar functions (the list in the header comment) --------------------------------------

namespace tw {

// One trace record per basic instruction of a high-level call over `count` elements of T.
template <typename T>
inline void vrec_seq(std::initializer_list<const char*> names, const char* file, int line, uint64_t count) {
    for (const char* n : names) vrec_count<T>(n, file, line, count);
}

// Instruction sequences (see the header comment).
#define TW_POLY4 "Mul", "Adds", "Mul", "Adds", "Mul", "Adds", "Mul", "Adds"
#define TW_REDUCE "Muls", "Cast", "Cast", "Muls", "Sub"

namespace op {
template <class C> C sign_of(C a) { return a > C(0) ? C(1) : a < C(0) ? C(-1) : C(0); }
struct Tanh { template <class C> C operator()(C a) const { return std::tanh(a); } };
struct Sin { template <class C> C operator()(C a) const { return std::sin(a); } };
struct Cos { template <class C> C operator()(C a) const { return std::cos(a); } };
struct Tan { template <class C> C operator()(C a) const { return std::tan(a); } };
struct Asin { template <class C> C operator()(C a) const { return std::asin(a); } };
struct Acos { template <class C> C operator()(C a) const { return std::acos(a); } };
struct Atan { template <class C> C operator()(C a) const { return std::atan(a); } };
struct Sinh { template <class C> C operator()(C a) const { return std::sinh(a); } };
struct Cosh { template <class C> C operator()(C a) const { return std::cosh(a); } };
struct Asinh { template <class C> C operator()(C a) const { return std::asinh(a); } };
struct Acosh { template <class C> C operator()(C a) const { return std::acosh(a); } };
struct Atanh { template <class C> C operator()(C a) const { return std::atanh(a); } };
struct Erf { template <class C> C operator()(C a) const { return std::erf(a); } };
struct Erfc { template <class C> C operator()(C a) const { return std::erfc(a); } };
struct Log { template <class C> C operator()(C a) const { return std::log(a); } };
struct Log2 { template <class C> C operator()(C a) const { return std::log2(a); } };
struct Log10 { template <class C> C operator()(C a) const { return std::log10(a); } };
struct Exp2 { template <class C> C operator()(C a) const { return std::exp2(a); } };
struct Floor { template <class C> C operator()(C a) const { return std::floor(a); } };
struct Ceil { template <class C> C operator()(C a) const { return std::ceil(a); } };
// std::nearbyint under the default FE_TONEAREST mode breaks ties to even (2.5 -> 2, -1.5 -> -2); std::round would
// send them away from zero, which is not what the AscendC Round does.
struct Round { template <class C> C operator()(C a) const { return std::nearbyint(a); } };
struct Trunc { template <class C> C operator()(C a) const { return std::trunc(a); } };
struct Frac { template <class C> C operator()(C a) const { return std::isinf(a) ? C(0) : a - std::trunc(a); } };
struct Sign { template <class C> C operator()(C a) const { return std::isnan(a) ? C(0) : sign_of(a); } };
struct Fmod { template <class C> C operator()(C a, C b) const { return std::fmod(a, b); } };
struct Xor { template <class C> C operator()(C a, C b) const { return a ^ b; } };
// Integer powers by repeated squaring (negative exponents give 0 except for bases 1 and -1, as integer division
// would); floating powers by pow.
struct Power {
    template <class C>
    C operator()(C a, C b) const {
        if constexpr (std::is_integral<C>::value) {
            if (b < 0) return a == 1 ? C(1) : a == -1 ? ((b & 1) ? C(-1) : C(1)) : C(0);
            C r = 1;
            for (C e = b; e > 0; e >>= 1, a = a * a)
                if (e & 1) r = r * a;
            return r;
        } else {
            return std::pow(a, b);
        }
    }
};
}  // namespace op

template <typename T, typename F>
inline void math1(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, int64_t count, F f,
                  const char* name, const char* file, int line) {
    count = counted(count);
    check_count(count, name, file, line);
    T* d = dst.span(0, count, name, file, line);
    const T* x = src.span(0, count, name, file, line);
    for (int64_t i = 0; i < count; ++i) d[i] = from_c<T>(f(to_c<T>(x[i])));
}

// a[i] op b[i], with either side a tensor or a broadcast scalar.
template <typename T, typename A, typename B, typename F>
inline void math2(const AscendC::LocalTensor<T>& dst, A a, B b, int64_t count, F f, const char* name,
                  const char* file, int line) {
    count = counted(count);
    check_count(count, name, file, line);
    T* d = dst.span(0, count, name, file, line);
    auto at = [&](const auto& side, int64_t i) {
        if constexpr (std::is_same<std::decay_t<decltype(side)>, AscendC::LocalTensor<T>>::value)
            return to_c<T>(side.span(0, count, name, file, line)[i]);
        else return to_c<T>(side);
    };
    for (int64_t i = 0; i < count; ++i) d[i] = from_c<T>(f(at(a, i), at(b, i)));
}

}  // namespace tw

namespace AscendC {

// The four call forms of a high-level unary function; SEQ is its instruction sequence for the trace.
#define TW_HL_UNARY(NAME, ...)                                                                                     \
    template <typename T, bool isReuseSource = false>                                                              \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,   \
              const uint32_t calCount, TW_SRC) {                                                                   \
        (void)sharedTmpBuffer;                                                                                     \
        tw::math1(dst, src, calCount, tw::op::NAME{}, #NAME, TW_AT);                                               \
        tw::vrec_seq<T>({__VA_ARGS__}, TW_AT, tw::counted(calCount));                                              \
    }                                                                                                              \
    TW_TWIN_M(, void, (typename T, bool isReuseSource = false), NAME, (T, isReuseSource),                          \
            (const LocalTensor<T>& dst, const LocalTensor<T>& src,                                                 \
            const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount), (dst, src, sharedTmpBuffer,     \
            calCount), )                                                                                           \
    template <typename T, bool isReuseSource = false>                                                              \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount, TW_SRC) {             \
        tw::math1(dst, src, calCount, tw::op::NAME{}, #NAME, TW_AT);                                               \
        tw::vrec_seq<T>({__VA_ARGS__}, TW_AT, tw::counted(calCount));                                              \
    }                                                                                                              \
    TW_TWIN_M(, void, (typename T, bool isReuseSource = false), NAME, (T, isReuseSource),                          \
            (const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount), (dst, src,            \
            calCount), )                                                                                           \
    template <typename T, bool isReuseSource = false>                                                              \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,   \
              TW_SRC) {                                                                                            \
        NAME<T, isReuseSource>(dst, src, sharedTmpBuffer, dst.GetSize(), TW_AT);                                   \
    }                                                                                                              \
    template <typename T, bool isReuseSource = false>                                                              \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, TW_SRC) {                                      \
        NAME<T, isReuseSource>(dst, src, dst.GetSize(), TW_AT);                                                    \
    }                                                                                                              \
    TW_TWIN_M(, void, (typename T, bool isReuseSource = false), NAME, (T, isReuseSource),                          \
            (const LocalTensor<T>& dst, const LocalTensor<T>& src), (dst, src), )

TW_HL_UNARY(Tanh, "Muls", "Exp", "Adds", "Adds", "Div")
TW_HL_UNARY(Sinh, "Exp", "Muls", "Exp", "Sub", "Muls")
TW_HL_UNARY(Cosh, "Exp", "Muls", "Exp", "Add", "Muls")
TW_HL_UNARY(Sin, TW_REDUCE, TW_POLY4, "Mul")
TW_HL_UNARY(Cos, TW_REDUCE, TW_POLY4, "Mul")
TW_HL_UNARY(Tan, TW_REDUCE, TW_POLY4, "Mul", TW_POLY4, "Mul", "Div")
TW_HL_UNARY(Atan, "Abs", "Reciprocal", "Min", TW_POLY4, "Mul", "Compare", "Select")
TW_HL_UNARY(Asin, "Abs", "Muls", "Adds", "Sqrt", TW_POLY4, "Mul", "Compare", "Select")
TW_HL_UNARY(Acos, "Abs", "Muls", "Adds", "Sqrt", TW_POLY4, "Mul", "Compare", "Select", "Adds")
TW_HL_UNARY(Asinh, "Mul", "Adds", "Sqrt", "Add", "Ln")
TW_HL_UNARY(Acosh, "Mul", "Adds", "Sqrt", "Add", "Ln")
TW_HL_UNARY(Atanh, "Adds", "Adds", "Div", "Ln", "Muls")
TW_HL_UNARY(Erf, "Mul", TW_POLY4, "Mul", TW_POLY4, "Div")
TW_HL_UNARY(Erfc, "Mul", TW_POLY4, "Mul", TW_POLY4, "Div", "Adds")
TW_HL_UNARY(Log, "Ln")
TW_HL_UNARY(Log2, "Ln", "Muls")
TW_HL_UNARY(Log10, "Ln", "Muls")
TW_HL_UNARY(Exp2, "Muls", "Exp")
TW_HL_UNARY(Floor, "Cast", "Cast")
TW_HL_UNARY(Ceil, "Cast", "Cast")
TW_HL_UNARY(Round, "Cast", "Cast")
TW_HL_UNARY(Trunc, "Cast", "Cast")
TW_HL_UNARY(Frac, "Cast", "Cast", "Sub")
TW_HL_UNARY(Sign, "Compare", "Select", "Compare", "Select")

#undef TW_HL_UNARY

// Power: tensor ^ tensor, tensor ^ scalar, scalar ^ tensor; with or without sharedTmpBuffer.
#define TW_POWER_SEQ "Ln", "Mul", "Exp", "Compare", "Select"
#define TW_POWER(A_TYPE, B_TYPE)                                                                                   \
    template <typename T, bool isReuseSource = false>                                                              \
    void Power(const LocalTensor<T>& dst, A_TYPE src0, B_TYPE src1, const LocalTensor<uint8_t>& sharedTmpBuffer,   \
               uint32_t calCount, TW_SRC) {                                                                        \
        (void)sharedTmpBuffer;                                                                                     \
        tw::math2<T>(dst, src0, src1, calCount, tw::op::Power{}, "Power", TW_AT);                                  \
        tw::vrec_seq<T>({TW_POWER_SEQ}, TW_AT, tw::counted(calCount));                                             \
    }                                                                                                              \
    TW_TWIN_M(, void, (typename T, bool isReuseSource = false), Power, (T, isReuseSource),                         \
            (const LocalTensor<T>& dst, A_TYPE src0, B_TYPE src1, const LocalTensor<uint8_t>& sharedTmpBuffer,     \
            uint32_t calCount), (dst, src0, src1, sharedTmpBuffer, calCount), )                                    \
    template <typename T, bool isReuseSource = false>                                                              \
    void Power(const LocalTensor<T>& dst, A_TYPE src0, B_TYPE src1, uint32_t calCount, TW_SRC) {                   \
        tw::math2<T>(dst, src0, src1, calCount, tw::op::Power{}, "Power", TW_AT);                                  \
        tw::vrec_seq<T>({TW_POWER_SEQ}, TW_AT, tw::counted(calCount));                                             \
    }                                                                                                              \
    TW_TWIN_M(, void, (typename T, bool isReuseSource = false), Power, (T, isReuseSource),                         \
            (const LocalTensor<T>& dst, A_TYPE src0, B_TYPE src1, uint32_t calCount), (dst, src0, src1,            \
            calCount), )                                                                                           \
    template <typename T, bool isReuseSource = false>                                                              \
    void Power(const LocalTensor<T>& dst, A_TYPE src0, B_TYPE src1, TW_SRC) {                                      \
        Power<T, isReuseSource>(dst, src0, src1, dst.GetSize(), TW_AT);                                            \
    }                                                                                                              \
    TW_TWIN_M(, void, (typename T, bool isReuseSource = false), Power, (T, isReuseSource),                         \
            (const LocalTensor<T>& dst, A_TYPE src0, B_TYPE src1), (dst, src0, src1), )
TW_POWER(const LocalTensor<T>&, const LocalTensor<T>&)
TW_POWER(const LocalTensor<T>&, const tw::nd_t<T>&)
TW_POWER(const tw::nd_t<T>&, const LocalTensor<T>&)
#undef TW_POWER
#undef TW_POWER_SEQ

// Fmod (a - trunc(a / b) * b, the C fmod) and Xor (integer tensors).
template <typename T, bool isReuseSource = false>
void Fmod(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
          const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount, TW_SRC) {
    (void)sharedTmpBuffer;
    tw::math2<T>(dst, src0, src1, calCount, tw::op::Fmod{}, "Fmod", TW_AT);
    tw::vrec_seq<T>({"Div", "Cast", "Cast", "Mul", "Sub"}, TW_AT, tw::counted(calCount));
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), Fmod, (T, isReuseSource), (const LocalTensor<T>& dst,
        const LocalTensor<T>& src0, const LocalTensor<T>& src1, const LocalTensor<uint8_t>& sharedTmpBuffer,
        uint32_t calCount), (dst, src0, src1, sharedTmpBuffer, calCount), )
template <typename T, bool isReuseSource = false>
void Fmod(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint32_t calCount,
          TW_SRC) {
    tw::math2<T>(dst, src0, src1, calCount, tw::op::Fmod{}, "Fmod", TW_AT);
    tw::vrec_seq<T>({"Div", "Cast", "Cast", "Mul", "Sub"}, TW_AT, tw::counted(calCount));
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), Fmod, (T, isReuseSource), (const LocalTensor<T>& dst,
        const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint32_t calCount), (dst, src0, src1, calCount), )

template <typename T, bool isReuseSource = false>
void Xor(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
         const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount, TW_SRC) {
    static_assert(std::is_integral<T>::value, "Xor takes integer tensors");
    (void)sharedTmpBuffer;
    tw::math2<T>(dst, src0, src1, calCount, tw::op::Xor{}, "Xor", TW_AT);
    tw::vrec_seq<T>({"Or", "And", "Not", "And"}, TW_AT, tw::counted(calCount));  // (a | b) & ~(a & b)
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), Xor, (T, isReuseSource), (const LocalTensor<T>& dst,
        const LocalTensor<T>& src0, const LocalTensor<T>& src1, const LocalTensor<uint8_t>& sharedTmpBuffer,
        uint32_t calCount), (dst, src0, src1, sharedTmpBuffer, calCount), )
template <typename T, bool isReuseSource = false>
void Xor(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint32_t calCount,
         TW_SRC) {
    static_assert(std::is_integral<T>::value, "Xor takes integer tensors");
    tw::math2<T>(dst, src0, src1, calCount, tw::op::Xor{}, "Xor", TW_AT);
    tw::vrec_seq<T>({"Or", "And", "Not", "And"}, TW_AT, tw::counted(calCount));
}
TW_TWIN_M(, void, (typename T, bool isReuseSource = false), Xor, (T, isReuseSource), (const LocalTensor<T>& dst,
        const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint32_t calCount), (dst, src0, src1, calCount), )

// ClampMax: dst = min(src, scalar); ClampMin: dst = max(src, scalar).
#define TW_CLAMP(NAME, API)                                                                                        \
    template <typename T, bool isReuseSource = false>                                                              \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,   \
              const tw::nd_t<T> scalar, const uint32_t calCount, TW_SRC) {                                         \
        (void)sharedTmpBuffer;                                                                                     \
        API(dst, src, scalar, static_cast<int32_t>(calCount), TW_AT);                                              \
    }                                                                                                              \
    TW_TWIN_M(, void, (typename T, bool isReuseSource = false), NAME, (T, isReuseSource),                          \
            (const LocalTensor<T>& dst, const LocalTensor<T>& src,                                                 \
            const LocalTensor<uint8_t>& sharedTmpBuffer, const tw::nd_t<T> scalar, const uint32_t calCount),       \
            (dst, src, sharedTmpBuffer, scalar, calCount), )                                                       \
    template <typename T, bool isReuseSource = false>                                                              \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const tw::nd_t<T> scalar,                      \
              const uint32_t calCount, TW_SRC) {                                                                   \
        API(dst, src, scalar, static_cast<int32_t>(calCount), TW_AT);                                              \
    }                                                                                                              \
    TW_TWIN_M(, void, (typename T, bool isReuseSource = false), NAME, (T, isReuseSource),                          \
            (const LocalTensor<T>& dst, const LocalTensor<T>& src, const tw::nd_t<T> scalar,                       \
            const uint32_t calCount), (dst, src, scalar, calCount), )
TW_CLAMP(ClampMax, Mins)
TW_CLAMP(ClampMin, Maxs)
#undef TW_CLAMP

#undef TW_POLY4
#undef TW_REDUCE

}  // namespace AscendC
