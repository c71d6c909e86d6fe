// Test driver for the emulator's vector instructions (device/emulator/include/tw/vector*.h).
//
//   vector_driver <dir> <case> [key=value ...]
//
// <dir> holds the operand buffers b0.bin, b1.bin, ... (raw bytes). Each buffer becomes its own UB buffer of
// exactly that size (so a span past its end is an overrun), the case runs one API on them inside a one-block
// launch, and the buffers are written back in place. <dir>/result.txt gets "ok" or "error <kind> <line>",
// <dir>/ret.txt a case's scalar result (rsvdCnt, the line of a deliberate overrun), <dir>/trace.txt one line per
// trace record: name bytes elems repeats dtype flags, <dir>/warnings.txt one line per warning: kind line count.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "tw/runtime/launcher.h"

using namespace AscendC;

namespace {

std::map<std::string, std::string> kv;
std::vector<std::vector<uint8_t>> bufs;
std::vector<TBuf<TPosition::VECCALC>>* tbufs = nullptr;
std::string ret;

long I(const char* k, long def = 0) {
    auto it = kv.find(k);
    return it == kv.end() ? def : std::stol(it->second, nullptr, 0);
}
uint64_t U64(const char* k, uint64_t def = 0) {
    auto it = kv.find(k);
    return it == kv.end() ? def : std::stoull(it->second, nullptr, 0);
}
double D(const char* k, double def = 0) {
    auto it = kv.find(k);
    return it == kv.end() ? def : std::stod(it->second);
}
std::string S(const char* k, const char* def = "") {
    auto it = kv.find(k);
    return it == kv.end() ? def : it->second;
}

template <typename T>
LocalTensor<T> B(size_t i) {
    return (*tbufs)[i].Get<T>(static_cast<uint32_t>(bufs[i].size() / sizeof(T)));
}

BinaryRepeatParams bparams() {
    return BinaryRepeatParams(I("db", 1), I("s0b", 1), I("s1b", 1), I("dr", 8), I("s0r", 8), I("s1r", 8));
}
UnaryRepeatParams uparams() { return UnaryRepeatParams(I("db", 1), I("sb", 1), I("dr", 8), I("sr", 8)); }

// Runs `call(form, mask, maskbits, repeat)` for the mask forms; the "counter" form sets counter mode first with
// n = I("n") elements and calls with isSetMask = false; "preset" sets the bit mask with SetVectorMask and calls with
// isSetMask = false.
template <typename T, typename Cont, typename Bits, typename ContNoSet>
void mask_forms(const std::string& form, Cont cont, Bits bits, ContNoSet noset) {
    uint64_t mb[2] = {U64("m0"), U64("m1")};
    uint8_t rep = static_cast<uint8_t>(I("repeat", 1));
    if (form == "cont") cont(U64("mask"), rep);
    else if (form == "bits") bits(mb, rep);
    else if (form == "counter") {
        SetMaskCount();
        SetVectorMask<T, MaskMode::COUNTER>(0, U64("n"));
        noset(rep);
        SetMaskNorm();
        ResetMask();
    } else if (form == "preset") {
        SetVectorMask<T>(mb[1], mb[0]);
        noset(rep);
        ResetMask();
    } else {
        throw std::runtime_error("unknown form " + form);
    }
}

#define FORMS(T, CALL_CONT, CALL_BITS, CALL_NOSET)                                                              \
    mask_forms<T>(                                                                                               \
        form, [&](uint64_t mask, uint8_t rep) { CALL_CONT; },                                                    \
        [&](const uint64_t* mask, uint8_t rep) { CALL_BITS; }, [&](uint8_t rep) { CALL_NOSET; })

// ---- element-wise ----

template <typename T>
void case_bin() {
    std::string api = S("api"), form = S("form");
    auto d = B<T>(0), a = B<T>(1), b = B<T>(2);
    auto p = bparams();
    int32_t count = I("count");
#define BIN(NAME)                                                                                                \
    if (api == #NAME) {                                                                                          \
        if (form == "count") NAME(d, a, b, count);                                                               \
        else FORMS(T, NAME(d, a, b, mask, rep, p), NAME(d, a, b, mask, rep, p),                                  \
                   (NAME<T, false>(d, a, b, MASK_PLACEHOLDER, rep, p)));                                         \
        return;                                                                                                  \
    }
    BIN(Add) BIN(Sub) BIN(Mul) BIN(Max) BIN(Min)
    if constexpr (tw::is_fp_v<T>) { BIN(Div) }
    if constexpr (std::is_integral<T>::value) { BIN(And) BIN(Or) }
#undef BIN
    throw std::runtime_error("bin: unknown api " + api);
}

template <typename T>
void case_scalar() {
    std::string api = S("api"), form = S("form");
    auto d = B<T>(0), a = B<T>(1);
    auto p = uparams();
    int32_t count = I("count");
    T s = tw::from_c<T>(static_cast<tw::calc_t<T>>(D("scalar")));
#define SCA(NAME)                                                                                                \
    if (api == #NAME) {                                                                                          \
        if (form == "count") NAME(d, a, s, count);                                                               \
        else FORMS(T, NAME(d, a, s, mask, rep, p), NAME(d, a, s, mask, rep, p),                                  \
                   (NAME<T, false>(d, a, s, MASK_PLACEHOLDER, rep, p)));                                         \
        return;                                                                                                  \
    }
    SCA(Adds) SCA(Muls) SCA(Maxs) SCA(Mins)
    if constexpr (tw::is_fp_v<T>) { SCA(LeakyRelu) }
    if constexpr (std::is_integral<T>::value) { SCA(ShiftLeft) SCA(ShiftRight) }
#undef SCA
    throw std::runtime_error("scalar: unknown api " + api);
}

template <typename T>
void case_unary() {
    std::string api = S("api"), form = S("form");
    auto d = B<T>(0), a = B<T>(1);
    auto p = uparams();
    int32_t count = I("count");
#define UN(NAME)                                                                                                 \
    if (api == #NAME) {                                                                                          \
        if (form == "count") NAME(d, a, count);                                                                  \
        else FORMS(T, NAME(d, a, mask, rep, p), NAME(d, a, mask, rep, p),                                        \
                   (NAME<T, false>(d, a, MASK_PLACEHOLDER, rep, p)));                                            \
        return;                                                                                                  \
    }
    if constexpr (tw::is_fp_v<T>) { UN(Exp) UN(Ln) UN(Sqrt) UN(Rsqrt) UN(Reciprocal) UN(Relu) }
    UN(Abs)
    if constexpr (std::is_integral<T>::value) { UN(Not) }
#undef UN
    throw std::runtime_error("unary: unknown api " + api);
}

template <typename T>
void case_dup() {
    std::string form = S("form");
    auto d = B<T>(0);
    T s = tw::from_c<T>(static_cast<tw::calc_t<T>>(D("scalar")));
    uint16_t db = I("db", 1);
    uint8_t dr = I("dr", 8);
    if (form == "count") Duplicate(d, s, static_cast<int32_t>(I("count")));
    else FORMS(T, Duplicate(d, s, mask, rep, db, dr), Duplicate(d, s, mask, rep, db, dr),
               (Duplicate<T, false>(d, s, MASK_PLACEHOLDER, rep, db, dr)));
}

template <typename T>
void case_copy() {
    std::string form = S("form");
    auto d = B<T>(0), a = B<T>(1);
    CopyRepeatParams p(I("db", 1), I("sb", 1), I("dr", 8), I("sr", 8));
    FORMS(T, Copy(d, a, mask, rep, p), Copy(d, a, mask, rep, p), (Copy<T, false>(d, a, MASK_PLACEHOLDER, rep, p)));
}

template <typename T, typename U>
void case_axpy() {
    std::string form = S("form");
    auto d = B<T>(0);
    auto a = B<U>(1);
    auto p = uparams();
    U s = tw::from_c<U>(static_cast<tw::calc_t<U>>(D("scalar")));
    if (form == "count") Axpy(d, a, s, static_cast<int32_t>(I("count")));
    else FORMS(T, Axpy(d, a, s, mask, rep, p), Axpy(d, a, s, mask, rep, p),
               (Axpy<T, U, false>(d, a, s, MASK_PLACEHOLDER, rep, p)));
}

template <typename T, typename U>
void case_cast() {
    std::string form = S("form");
    auto d = B<T>(0);
    auto a = B<U>(1);
    auto p = uparams();
    RoundMode rm = static_cast<RoundMode>(I("round"));
    using W = std::conditional_t<(sizeof(T) > sizeof(U)), T, U>;
    if (form == "count") Cast(d, a, rm, static_cast<uint32_t>(I("count")));
    else FORMS(W, Cast(d, a, rm, mask, rep, p), Cast(d, a, rm, mask, rep, p),
               (Cast<T, U, false>(d, a, rm, MASK_PLACEHOLDER, rep, p)));
}

// ---- reductions ----

template <typename T>
void case_reduce() {
    std::string api = S("api"), form = S("form");
    auto d = B<T>(0), a = B<T>(1), w = B<T>(2);
    bool ci = I("calindex") != 0;
    int32_t count = I("count"), rep = I("repeat", 1), sr = I("sr", 8);
    uint64_t mb[2] = {U64("m0"), U64("m1")};
    int32_t mask = I("mask");
    if (api == "ReduceSum") {
        if (form == "count") ReduceSum(d, a, w, count);
        else if (form == "cont") ReduceSum(d, a, w, mask, rep, sr);
        else ReduceSum(d, a, w, mb, rep, sr);
    } else if (api == "ReduceMax") {
        if (form == "count") ReduceMax(d, a, w, count, ci);
        else if (form == "cont") ReduceMax(d, a, w, mask, rep, sr, ci);
        else ReduceMax(d, a, w, mb, rep, sr, ci);
    } else if (api == "ReduceMin") {
        if (form == "count") ReduceMin(d, a, w, count, ci);
        else if (form == "cont") ReduceMin(d, a, w, mask, rep, sr, ci);
        else ReduceMin(d, a, w, mb, rep, sr, ci);
    } else {
        throw std::runtime_error("reduce: unknown api " + api);
    }
}

template <typename T>
void case_whole() {
    std::string api = S("api"), form = S("form");
    auto d = B<T>(0), a = B<T>(1);
    int32_t rep = I("repeat", 1), dr = I("dr", 1), sb = I("sb", 1), sr = I("sr", 8);
    uint64_t mb[2] = {U64("m0"), U64("m1")};
    int32_t mask = I("mask");
    ReduceOrder order = static_cast<ReduceOrder>(I("order"));
    if (api == "WholeReduceSum") {
        if (form == "cont") WholeReduceSum(d, a, mask, rep, dr, sb, sr);
        else WholeReduceSum(d, a, mb, rep, dr, sb, sr);
    } else if (api == "WholeReduceMax") {
        if (form == "cont") WholeReduceMax(d, a, mask, rep, dr, sb, sr, order);
        else WholeReduceMax(d, a, mb, rep, dr, sb, sr, order);
    } else if (api == "WholeReduceMin") {
        if (form == "cont") WholeReduceMin(d, a, mask, rep, dr, sb, sr, order);
        else WholeReduceMin(d, a, mb, rep, dr, sb, sr, order);
    } else {
        throw std::runtime_error("whole: unknown api " + api);
    }
}

template <typename T>
void case_block() {
    std::string api = S("api"), form = S("form");
    auto d = B<T>(0), a = B<T>(1);
    int32_t rep = I("repeat", 1), dr = I("dr", 1), sb = I("sb", 1), sr = I("sr", 8);
    uint64_t mb[2] = {U64("m0"), U64("m1")};
    int32_t mask = I("mask");
#define BLK(NAME)                                                                                                \
    if (api == #NAME) {                                                                                          \
        if (form == "cont") NAME(d, a, rep, mask, dr, sb, sr);                                                   \
        else NAME(d, a, rep, mb, dr, sb, sr);                                                                    \
        return;                                                                                                  \
    }
    BLK(BlockReduceSum) BLK(BlockReduceMax) BLK(BlockReduceMin) BLK(PairReduceSum)
#undef BLK
    throw std::runtime_error("block: unknown api " + api);
}

// ---- compare / select ----

template <typename T>
void case_cmp() {
    std::string form = S("form");
    auto d = B<uint8_t>(0);
    auto a = B<T>(1), b = B<T>(2);
    CMPMODE cm = static_cast<CMPMODE>(I("cmp"));
    auto p = bparams();
    if (form == "count") Compare(d, a, b, cm, static_cast<uint32_t>(I("count")));
    else FORMS(T, Compare(d, a, b, cm, mask, rep, p), Compare(d, a, b, cm, mask, rep, p),
               (Compare<T, uint8_t, false>(d, a, b, cm, MASK_PLACEHOLDER, rep, p)));
}

template <typename T>
void case_cmps() {
    std::string form = S("form");
    auto d = B<uint8_t>(0);
    auto a = B<T>(1);
    T s = tw::from_c<T>(static_cast<tw::calc_t<T>>(D("scalar")));
    CMPMODE cm = static_cast<CMPMODE>(I("cmp"));
    auto p = uparams();
    if (form == "count") CompareScalar(d, a, s, cm, static_cast<uint32_t>(I("count")));
    else FORMS(T, CompareScalar(d, a, s, cm, mask, rep, p), CompareScalar(d, a, s, cm, mask, rep, p),
               (CompareScalar<T, uint8_t, false>(d, a, s, cm, MASK_PLACEHOLDER, rep, p)));
}

// Register form: Compare into CMPMASK, GetCmpMask into b0; then Select<T, VSEL_CMPMASK_SPR>(b3, b1, b2).
template <typename T>
void case_cmpreg() {
    auto d = B<uint8_t>(0);
    auto a = B<T>(1), b = B<T>(2), out = B<T>(3);
    CMPMODE cm = static_cast<CMPMODE>(I("cmp"));
    auto p = bparams();
    if (S("form") == "bits") {
        uint64_t mb[2] = {U64("m0"), U64("m1")};
        Compare(a, b, cm, mb, p);
    } else {
        Compare(a, b, cm, U64("mask"), p);
    }
    GetCmpMask(d);
    SetVectorMask<T>(~0ull, ~0ull);
    Select<T, SELMODE::VSEL_CMPMASK_SPR>(out, a, b, static_cast<uint8_t>(I("repeat", 1)), p);
}

template <typename T>
void case_select() {
    std::string form = S("form");
    auto d = B<T>(0);
    auto sel = B<uint8_t>(1);
    auto a = B<T>(2), b = B<T>(3);
    SELMODE sm = static_cast<SELMODE>(I("selmode"));
    bool scalar = sm == SELMODE::VSEL_TENSOR_SCALAR_MODE;
    T s = tw::from_c<T>(static_cast<tw::calc_t<T>>(D("scalar")));
    auto p = bparams();
    if (form == "count") {
        if (scalar) Select(d, sel, a, s, sm, static_cast<uint32_t>(I("count")));
        else Select(d, sel, a, b, sm, static_cast<uint32_t>(I("count")));
    } else if (scalar) {
        FORMS(T, Select(d, sel, a, s, sm, mask, rep, p), Select(d, sel, a, s, sm, mask, rep, p),
              (Select<T, uint8_t, false>(d, sel, a, s, sm, MASK_PLACEHOLDER, rep, p)));
    } else {
        FORMS(T, Select(d, sel, a, b, sm, mask, rep, p), Select(d, sel, a, b, sm, mask, rep, p),
              (Select<T, uint8_t, false>(d, sel, a, b, sm, MASK_PLACEHOLDER, rep, p)));
    }
}

// ---- gather family ----

template <typename T>
void case_gather() {
    std::string form = S("form");
    auto d = B<T>(0), a = B<T>(1);
    auto off = B<uint32_t>(2);
    uint32_t base = I("base");
    uint16_t dr = I("dr", 8);
    if (form == "count") Gather(d, a, off, base, static_cast<uint32_t>(I("count")));
    else if (form == "cont") Gather(d, a, off, base, U64("mask"), static_cast<uint8_t>(I("repeat", 1)), dr);
    else {
        uint64_t mb[2] = {U64("m0"), U64("m1")};
        Gather(d, a, off, base, mb, static_cast<uint8_t>(I("repeat", 1)), dr);
    }
}

template <typename T>
void case_gmask() {
    auto d = B<T>(0), a = B<T>(1);
    GatherMaskParams p(I("s0b", 1), I("repeat", 1), I("s0r", 8), I("s1r", 0));
    bool rm = I("reduce") != 0;
    uint32_t mask = I("mask");
    uint64_t cnt = 0;
    long pat = I("pattern");
    if (I("counter_before")) SetMaskCount();
    if (pat > 0) {
        GatherMask(d, a, static_cast<uint8_t>(pat), rm, mask, p, cnt);
    } else {
        using U = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;
        GatherMask(d, a, B<U>(2), rm, mask, p, cnt);
    }
    ret = std::to_string(cnt) + " " + std::to_string(tw::cur().counter_mode ? 1 : 0);
    SetMaskNorm();
}

template <typename T>
void case_brcb() {
    auto d = B<T>(0), a = B<T>(1);
    Brcb(d, a, static_cast<uint8_t>(I("repeat", 1)), BrcbRepeatParams(I("db", 1), I("dr", 8)));
}

template <typename T>
void case_transpose() {
    Transpose(B<T>(0), B<T>(1));
}

// ---- call shapes seen in public kernels (compile coverage; values checked loosely by the test) ----

void case_shapes() {
    auto h = B<half>(0), h2 = B<half>(1);
    auto f = B<float>(2), f2 = B<float>(3);
    auto m = B<uint8_t>(4);
    auto i = B<int32_t>(5);
    auto w = B<float>(6);
    const int32_t n = 128;
    uint32_t un = 64;
    float scale = 0.5f;
    Duplicate<float>(f, 1.0f, n);
    Duplicate(f2, 0, n);
    Duplicate(h, (half)2.0, n);
    Duplicate(i, static_cast<int32_t>(3), 64);
    Adds(h2, h, (half)1.0, n);
    Adds(f, f, 2.0f, un);
    Adds(i, i, 1, 64);
    Muls(f2, f, scale, n);
    Muls<float, false>(f2, f2, 1.0f, n);
    Maxs(h2, h2, 0.5f, n);
    LeakyRelu(h2, h2, (half)0.1, n);
    Exp(f, f, n);
    Sub(f, f, f2, un);
    Add(f, f, f2, 64, 2, {1, 1, 1, 8, 8, 8});
    Mul(h, h, h2, 128, 1, BinaryRepeatParams{1, 1, 1, 8, 8, 8});
    uint64_t mb[2] = {~0ull, 0};
    Max(h, h, h2, mb, 1, {1, 1, 1, 8, 8, 8});
    Cast(f2, h, RoundMode::CAST_NONE, n);
    Cast(h2, f2, RoundMode::CAST_ROUND, 64, 2, {1, 1, 4, 8});
    Axpy(f, h, (half)2.0, n);
    Compare(m, f, f2, CMPMODE::LT, n);
    CompareScalar(m, h, static_cast<half>(0), CMPMODE::GE, n);
    Compare(m, f, f2, CMPMODE::GT, 64, 2, {1, 1, 1, 8, 8, 8});
    Select(f, m, f, f2, SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
    Select(f, m, f, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, n);
    Select(h, m, h, (half)0, SELMODE::VSEL_TENSOR_SCALAR_MODE, 128, 1, {1, 1, 1, 8, 8, 8});
    ReduceMax<float>(f2, f, w, n, false);
    ReduceMin(f2, f, w, n, true);
    ReduceSum<float>(f2, f, w, n);
    ReduceMax(f2, f, w, 64, 2, 8);
    WholeReduceSum<float>(f2, f, 64, 2, 1, 1, 8);
    WholeReduceMax(h2, h, 128, 1, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
    BlockReduceMax<half>(h2, h, 1, 128, 8, 1, 8);
    Brcb(f2, f, 2, {1, 8});
    GatherMaskParams gmp;
    gmp.repeatTimes = 1;
    gmp.src0RepeatStride = 8;
    gmp.src1RepeatStride = 0;
    uint64_t cnt = 0;
    GatherMask(h2, h, (uint8_t)1, false, 0, gmp, cnt);
    GatherMask<half>(h2, h, 7, true, 100, gmp, cnt);
    GatherMask(f2, f, m.ReinterpretCast<uint32_t>(), true, static_cast<uint32_t>(64), gmp, cnt);
    Not(h2.ReinterpretCast<uint16_t>(), h.ReinterpretCast<uint16_t>(), n);
    And(h2.ReinterpretCast<int16_t>(), h.ReinterpretCast<int16_t>(), h2.ReinterpretCast<int16_t>(), n);
    ShiftRight(i, i, 1, 64);
    Abs(i, i, 64);
    Relu(f, f, n);
    SetCmpMask(m);
    Select<float, SELMODE::VSEL_CMPMASK_SPR>(f, f, f2, 1, {1, 1, 1, 8, 8, 8});
    Copy(f, f2, 64, 1, {1, 1, 8, 8});
    ret = std::to_string(cnt);
}

// ---- sanitizer ----

void case_oob() {
    auto d = B<float>(0), a = B<float>(1), b = B<float>(2);
    std::string what = S("what");
    if (what == "count") {
        ret = std::to_string(__LINE__ + 1);
        Add(d, a, b, static_cast<int32_t>(I("count")));
    } else if (what == "repeat") {
        ret = std::to_string(__LINE__ + 1);
        Add(d, a, b, 64, static_cast<uint8_t>(I("repeat")), BinaryRepeatParams(1, 1, 1, 8, 8, 8));
    } else if (what == "view") {
        ret = std::to_string(__LINE__ + 1);
        Exp(d[I("offset")], a, static_cast<int32_t>(I("count")));
    } else if (what == "gather") {
        ret = std::to_string(__LINE__ + 1);
        Gather(d, a, B<uint32_t>(3), 0, static_cast<uint32_t>(I("count")));
    } else if (what == "reduce") {
        ret = std::to_string(__LINE__ + 1);
        WholeReduceSum(d, a, 64, static_cast<int32_t>(I("repeat")), static_cast<int32_t>(I("dr")), 1, 8);
    }
}

// ---- dispatch ----

#define BY_TYPE(DT, FN)                                                                                          \
    if (DT == "f16") return FN<half>();                                                                          \
    if (DT == "f32") return FN<float>();                                                                         \
    if (DT == "i32") return FN<int32_t>();                                                                       \
    if (DT == "i16") return FN<int16_t>();                                                                       \
    if (DT == "u16") return FN<uint16_t>();

void dispatch(const std::string& c) {
    std::string dt = S("dt"), dt2 = S("dt2");
    if (c == "bin") { BY_TYPE(dt, case_bin) }
    if (c == "scalar") { BY_TYPE(dt, case_scalar) }
    if (c == "unary") { BY_TYPE(dt, case_unary) }
    if (c == "dup") { BY_TYPE(dt, case_dup) }
    if (c == "copy") { BY_TYPE(dt, case_copy) }
    if (c == "reduce") {
        if (dt == "f16") return case_reduce<half>();
        if (dt == "f32") return case_reduce<float>();
    }
    if (c == "whole") {
        if (dt == "f16") return case_whole<half>();
        if (dt == "f32") return case_whole<float>();
    }
    if (c == "block") {
        if (dt == "f16") return case_block<half>();
        if (dt == "f32") return case_block<float>();
    }
    if (c == "cmp") { BY_TYPE(dt, case_cmp) }
    if (c == "cmps") { BY_TYPE(dt, case_cmps) }
    if (c == "cmpreg") {
        if (dt == "f16") return case_cmpreg<half>();
        if (dt == "f32") return case_cmpreg<float>();
    }
    if (c == "select") { BY_TYPE(dt, case_select) }
    if (c == "gather") { BY_TYPE(dt, case_gather) }
    if (c == "gmask") { BY_TYPE(dt, case_gmask) }
    if (c == "brcb") { BY_TYPE(dt, case_brcb) }
    if (c == "transpose") {
        if (dt == "f16") return case_transpose<half>();
        if (dt == "i16") return case_transpose<int16_t>();
    }
    if (c == "axpy") {
        if (dt == "f16" && dt2 == "f16") return case_axpy<half, half>();
        if (dt == "f32" && dt2 == "f32") return case_axpy<float, float>();
        if (dt == "f32" && dt2 == "f16") return case_axpy<float, half>();
    }
    if (c == "cast") {
#define CAST(A, TA, B2, TB)                                                                                      \
    if (dt == A && dt2 == B2) return case_cast<TA, TB>();
        CAST("f32", float, "f16", half) CAST("f16", half, "f32", float) CAST("i32", int32_t, "f32", float)
        CAST("f32", float, "i32", int32_t) CAST("i32", int32_t, "f16", half) CAST("i8", int8_t, "f16", half)
        CAST("u8", uint8_t, "f16", half) CAST("f16", half, "i8", int8_t) CAST("f16", half, "u8", uint8_t)
        CAST("bf16", bfloat16_t, "f32", float) CAST("f32", float, "bf16", bfloat16_t)
        CAST("i16", int16_t, "f16", half) CAST("f16", half, "i16", int16_t) CAST("f32", float, "f32", float)
        CAST("f16", half, "i32", int32_t)
#undef CAST
    }
    if (c == "oob") return case_oob();
    if (c == "shapes") return case_shapes();
    throw std::runtime_error("no case " + c + " for dt=" + dt + " dt2=" + dt2);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: vector_driver <dir> <case> [key=value ...]\n");
        return 2;
    }
    std::string dir = argv[1], c = argv[2];
    for (int i = 3; i < argc; ++i) {
        std::string a = argv[i];
        size_t eq = a.find('=');
        kv[a.substr(0, eq)] = eq == std::string::npos ? "1" : a.substr(eq + 1);
    }
    for (int i = 0;; ++i) {
        std::ifstream f(dir + "/b" + std::to_string(i) + ".bin", std::ios::binary);
        if (!f) break;
        bufs.emplace_back(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    }
    tw::Launch l;
    auto r = tw::run_blocks(l, 1, [&] {
        TPipe pipe;
        std::vector<TBuf<TPosition::VECCALC>> tb(bufs.size());
        tbufs = &tb;
        for (size_t i = 0; i < bufs.size(); ++i) {
            pipe.InitBuffer(tb[i], static_cast<uint32_t>(bufs[i].size()));
            std::memcpy(B<uint8_t>(i).data(), bufs[i].data(), bufs[i].size());
        }
        try {
            dispatch(c);
        } catch (...) {
            for (size_t i = 0; i < bufs.size(); ++i) std::memcpy(bufs[i].data(), B<uint8_t>(i).data(), bufs[i].size());
            throw;
        }
        for (size_t i = 0; i < bufs.size(); ++i) std::memcpy(bufs[i].data(), B<uint8_t>(i).data(), bufs[i].size());
    });
    for (size_t i = 0; i < bufs.size(); ++i) {
        std::ofstream f(dir + "/b" + std::to_string(i) + ".bin", std::ios::binary);
        f.write(reinterpret_cast<const char*>(bufs[i].data()), static_cast<std::streamsize>(bufs[i].size()));
    }
    {
        std::ofstream f(dir + "/result.txt");
        if (r.ok) f << "ok\n";
        else f << "error " << r.kind << " " << r.line << " " << r.file << "\n" << r.message << "\n";
    }
    {
        std::ofstream f(dir + "/warnings.txt");
        for (const tw::Warning& w : r.warnings) f << w.kind << " " << w.line << " " << w.count << "\n";
    }
    {
        std::ofstream f(dir + "/ret.txt");
        f << ret << "\n";
    }
    {
        std::ofstream f(dir + "/trace.txt");
        for (const tw::TraceRecord& t : r.blocks[0].trace) {
            if (t.kind != tw::Rec::Instr) continue;
            f << l.names[t.op] << " " << t.bytes << " " << t.elems << " " << t.repeats << " " << int(t.dtype) << " "
              << int(t.flags) << "\n";
        }
    }
    return 0;
}
