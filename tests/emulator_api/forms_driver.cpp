// Test driver for documented forms of the AscendC API that generic and public code uses in ways the other drivers
// do not: an API's address taken with its documented type (a Foreach over Sub, Mul, Max, Adds passes them as
// template arguments of function-pointer type), TBuf::Get with a literal 0, and the names of issue 32's list.
//
//   forms_driver <case>
//
// Each case is a small kernel written for this test, run in a one-block launch. It prints `key value...` lines the
// Python side (test_documented_forms.py) checks, then `result ok` or `result error <kind> <line> ...`, then one
// `trace <name> <pipe> <site>` line per instruction, where <site> is `here:<line>` for a call from this file and
// `pointer` for one made through a function pointer (which cannot name its line).
#include <cstdio>
#include <functional>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "kernel_operator.h"
// Paths real kernels include, each of which must bring the same API (issue 32's examples and their siblings).
#include "lib/math/kernel_operator_sin_intf.h"
#include "lib/math/kernel_operator_asin_intf.h"
#include "adv_api/math/kernel_operator_tanh_intf.h"
#include "lib/activation/kernel_operator_sigmoid_intf.h"
#include "lib/select/kernel_operator_selectwithbytesmask_intf.h"
#include "basic_api/kernel_operator_vec_binary_intf.h"
#include "impl/dav_c220/kernel_operator_reg_others_impl.h"
#include "impl/basic_api/dav_c220/kernel_operator_vec_unary_impl.h"
#include "kernel_operator_vec_vconv_intf.h"
#include "tiling/template_argument.h"
#include "utils/debug/asc_printf.h"
#include "tw/runtime/launcher.h"

using namespace AscendC;

namespace {

// Command-line settings of the cases that take them (`forms_driver <case> [mismatch] [mask_last=N] [tmp=N]`).
bool kv_mismatch = false;
long kv_mask_last = 32;
long kv_tmp = 1024;

template <typename T>
void print(const char* key, const LocalTensor<T>& t, uint32_t n) {
    std::printf("%s", key);
    for (uint32_t i = 0; i < n; ++i) std::printf(" %.9g", static_cast<double>(static_cast<float>(t.GetValue(i))));
    std::printf("\n");
}

// Generic code in the style of a Foreach operator: the binary or scalar instruction is a template argument.
template <typename T>
using BinaryFn = void (*)(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, const int32_t&);
template <typename T>
using ScalarFn = void (*)(const LocalTensor<T>&, const LocalTensor<T>&, const T&, const int32_t&);
template <typename T>
using UnaryFn = void (*)(const LocalTensor<T>&, const LocalTensor<T>&, const int32_t&);
template <typename T>
using MaskFn = void (*)(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, uint64_t, const uint8_t,
                        const BinaryRepeatParams&);

template <typename T>
using BitsFn = void (*)(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, uint64_t[], const uint8_t,
                        const BinaryRepeatParams&);

template <typename T, BinaryFn<T> Op>
void foreach_binary(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, int32_t n) {
    Op(dst, a, b, n);
}
template <typename T, ScalarFn<T> Op>
void foreach_scalar(const LocalTensor<T>& dst, const LocalTensor<T>& a, T s, int32_t n) {
    Op(dst, a, s, n);
}

// Four float tensors of 64 elements: a = 0..63, b = 2, and two results.
struct Four {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    LocalTensor<float> a, b, d, e;
    Four() {
        pipe.InitBuffer(buf, 4 * 64 * sizeof(float));
        a = buf.Get<float>();
        b = a[64];
        d = a[128];
        e = a[192];
        for (uint32_t i = 0; i < 64; ++i) {
            a.SetValue(i, static_cast<float>(i));
            b.SetValue(i, 2.0f);
        }
    }
};

void case_foreach() {
    Four f;
    foreach_binary<float, Sub>(f.d, f.a, f.b, 8);
    print("sub", f.d, 4);
    foreach_binary<float, Mul<float>>(f.d, f.a, f.b, 8);
    print("mul", f.d, 4);
    foreach_binary<float, &Max<float>>(f.d, f.a, f.b, 8);
    print("max", f.d, 4);
    foreach_scalar<float, Adds>(f.d, f.a, 0.5f, 8);
    print("adds", f.d, 4);
    foreach_scalar<float, Muls<float>>(f.d, f.a, 3.0f, 8);
    print("muls", f.d, 4);
    // plain pointers, the mask form, a unary count form
    UnaryFn<float> ex = &Exp<float>;
    ex(f.e, f.b, 8);
    print("exp", f.e, 2);
    MaskFn<float> add = &Add<float, true>;
    add(f.e, f.a, f.b, 4, 1, BinaryRepeatParams(1, 1, 1, 8, 8, 8));
    print("add_mask", f.e, 5);
    BitsFn<float> sub_bits = &Sub<float>;  // the bit-mask form's documented `uint64_t mask[]`
    uint64_t bits[2] = {0x1, 0};
    sub_bits(f.e, f.a, f.b, bits, 1, BinaryRepeatParams(1, 1, 1, 8, 8, 8));
    print("sub_bits", f.e, 2);
}

// The same instructions called directly: each still names its line.
void case_direct() {
    Four f;
    Sub(f.d, f.a, f.b, 8);  // @sub
    Adds(f.d, f.a, 0.5f, 8);  // @adds
    Add<float, true>(f.e, f.a, f.b, 4, 1, BinaryRepeatParams(1, 1, 1, 8, 8, 8));  // @add_mask
    uint64_t bits[2] = {0xF, 0};  // a non-const mask array, as the reference declares the parameter
    Mul(f.e, f.a, f.b, bits, 1, BinaryRepeatParams(1, 1, 1, 8, 8, 8));  // @mul_bits
    const uint64_t cbits[2] = {0x3, 0};  // and a const one, which kernels pass too
    Muls(f.e, f.a, 2.0f, cbits, 1, UnaryRepeatParams(1, 1, 8, 8));  // @muls_bits
    float x = f.a.GetValue(3);  // @getvalue
    std::printf("x %g\n", static_cast<double>(x));
}

// TBuf::Get with a literal 0 is Get(len) (the reference's two forms are Get() and Get(uint32_t len)).
void case_get0() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256);
    LocalTensor<half> none = buf.Get<half>(0);
    LocalTensor<half> all = buf.Get<half>();
    LocalTensor<half> some = buf.Get<half>(16);
    std::printf("sizes %u %u %u\n", none.GetSize(), all.GetSize(), some.GetSize());
}

// A queue whose third template argument is a TQueConfig (the reference's example: bufferNumber 1 known at compile
// time), then one whose config disagrees with its InitBuffer.
constexpr TQueConfig GetMyTQueConfig(uint32_t bufferLen, uint32_t bufferNumber) {
    TQueConfig c{};
    c.bufferLen = bufferLen;
    c.bufferNumber = bufferNumber;
    for (TPosition& p : c.consumer) p = TPosition::MAX;
    return c;
}
static constexpr TQueConfig kOneBuffer = GetMyTQueConfig(0, 1);
static constexpr TQueConfig kTwoBuffers = GetMyTQueConfig(256, 2);

void case_tque_config() {
    TPipe pipe;
    TQue<TPosition::VECIN, 1, &kOneBuffer> in;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1, &kOneBuffer> bound;
    pipe.InitBuffer(in, 1, 256);
    pipe.InitBuffer(bound, 1, 256);
    LocalTensor<float> t = in.AllocTensor<float>();
    Duplicate(t, 1.5f, 64);
    in.EnQue(t);
    LocalTensor<float> u = in.DeQue<float>();
    print("queued", u, 2);
    in.FreeTensor(u);
    if (kv_mismatch) {
        TQue<TPosition::VECOUT, 1, &kTwoBuffers> out;
        pipe.InitBuffer(out, 1, 256);  // @config_mismatch
    }
}

// CeilDivision (documented) and DivCeil / AlignUp (the reference's examples), and a kernel's own AlignUp of another
// meaning, which unqualified calls beside `using namespace AscendC` keep reaching.
uint32_t AlignUp(uint32_t elements, uint32_t bytes) { return (elements * bytes + 31) / 32 * 32 / bytes; }

void case_align() {
    static_assert(CeilDivision(10, 4) == 3 && CeilDivision(8, 4) == 2 && CeilDivision(5, 0) == 0, "CeilDivision");
    static_assert(AscendC::DivCeil(10u, 4) == 3 && AscendC::AlignUp(10 * sizeof(half), 32) == 32, "DivCeil, AlignUp");
    static_assert(AscendC::AlignUp(64, 32) == 64 && AscendC::AlignUp(7, 0) == 0, "AlignUp");
    const uint32_t width = 10;
    std::printf("align %lld %lld %u\n", static_cast<long long>(AscendC::AlignUp(width * sizeof(half), 32)),
                static_cast<long long>(AscendC::DivCeil(width, 8u)), AlignUp(width, 2u));
}

// The high-level Select with a byte mask, as its reference example: src0 a [2, 16] half tensor, src1 a half scalar,
// the bool mask [2, 32] of which the first 16 of each row decide; then the scalar-first form. `rows` / `mask_last` /
// `tmp` from the command line test the constraints.
void case_select_bm() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bm, bd, bt;
    const uint32_t rows = 2, k1 = 16, k2 = static_cast<uint32_t>(kv_mask_last);
    pipe.InitBuffer(bs, rows * k1 * sizeof(half));
    pipe.InitBuffer(bm, rows * 32);
    pipe.InitBuffer(bd, rows * k1 * sizeof(half));
    pipe.InitBuffer(bt, static_cast<uint32_t>(kv_tmp));
    LocalTensor<half> src = bs.Get<half>(), dst = bd.Get<half>();
    LocalTensor<bool> mask = bm.Get<bool>();
    LocalTensor<uint8_t> tmp = bt.Get<uint8_t>();
    for (uint32_t i = 0; i < rows * k1; ++i) src.SetValue(i, half(static_cast<float>(i)));
    for (uint32_t r = 0; r < rows; ++r)
        for (uint32_t c = 0; c < 32; ++c) mask.SetValue(r * 32 + c, (c % 3) == 1 || c >= k1);
    SelectWithBytesMaskShapeInfo info;
    info.firstAxis = rows;
    info.srcLastAxis = k1;
    info.maskLastAxis = k2;
    Select(dst, src, half(35.5f), mask, tmp, info);  // @select_bm
    print("tensor_first", dst, rows * k1);
    Select<half, bool, false>(dst, half(-1.0f), src, mask, tmp, info);
    print("scalar_first", dst, rows * k1);
}

// The library forms of the gaps list: Sigmoid and Xor over the whole tensor, the library's Axpy and Exp<T, level>,
// ReduceXorSum (saturating), ReduceMean and the pattern reductions without a sharedTmpBuffer.
void case_library_forms() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bf, bi, bt;
    pipe.InitBuffer(bf, 4 * 64 * sizeof(float));
    pipe.InitBuffer(bi, 3 * 64 * sizeof(int16_t));
    pipe.InitBuffer(bt, 1024);
    LocalTensor<float> x = bf.Get<float>(64), y = bf.GetWithOffset<float>(64, 256),
                       z = bf.GetWithOffset<float>(64, 512);
    LocalTensor<int16_t> a = bi.Get<int16_t>(64), b = bi.GetWithOffset<int16_t>(64, 128),
                         r = bi.GetWithOffset<int16_t>(64, 256);
    LocalTensor<uint8_t> tmp = bt.Get<uint8_t>();
    for (uint32_t i = 0; i < 64; ++i) x.SetValue(i, static_cast<float>(i) / 8 - 2);
    Sigmoid(y, x);
    print("sigmoid", y, 2);
    Exp<float, 4>(z, x, tmp, 2);
    print("exp", z, 2);
    Duplicate(z, 1.0f, 64);
    Axpy<float, float>(z, x, 2.0f, tmp, 3);
    print("axpy", z, 4);
    for (uint32_t i = 0; i < 64; ++i) {
        a.SetValue(i, static_cast<int16_t>(i));
        b.SetValue(i, static_cast<int16_t>(3));
    }
    Xor(r, a, b);
    print("xor", r, 4);
    ReduceXorSum(r, a, b, tmp, 4);  // 3 + 2 + 1 + 0
    print("xorsum", r, 1);
    for (uint32_t i = 0; i < 64; ++i) a.SetValue(i, static_cast<int16_t>(30000));
    ReduceXorSum(r, a, b, 2);  // 2 x 29999 saturates
    print("xorsum_sat", r, 1);
    const uint32_t shape[2] = {2, 32};  // two rows of 32 floats
    ReduceMean<float, Pattern::Reduce::AR>(y, x, shape, true);
    print("mean_ar", y, 2);
    ReduceSum<float, Pattern::Reduce::RA>(y, x, shape, true);
    print("sum_ra", y, 2);
}

// The tensors' documented members and the scalar unit's current names: ShapeInfo and DataFormat with
// GetShapeSize, Get/SetShapeInfo and the user tag on both tensors, PrimType, SetBufferLen, SetAddrWithOffset (in the
// source tensor's elements), Print, DumpAccChkPoint, the repeat parameters' reserved fields, the scalar Cast forms,
// GetBitCount, CountLeadingZero and GetSFFValue (the reference's own examples).
void case_tensor_members() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bf;
    pipe.InitBuffer(bf, 64 * sizeof(float));
    LocalTensor<float> x = bf.Get<float>(64);
    for (uint32_t i = 0; i < 64; ++i) x.SetValue(i, static_cast<float>(i));
    uint32_t dims[] = {4, 16};
    x.SetShapeInfo(ShapeInfo(2, dims, DataFormat::ND));
    const ShapeInfo got = x.GetShapeInfo();
    TTagType tag = 10;
    x.SetUserTag(tag);
    std::printf("shape %u %u %u %d %d\n", got.shapeDim, got.originalShape[1], static_cast<unsigned>(got.dataFormat),
                GetShapeSize(got), x.GetUserTag());
    LocalTensor<float>::PrimType first = x.GetValue(1);
    std::printf("prim %g\n", static_cast<double>(first));
    LocalTensor<int32_t> bits;
    bits.SetAddrWithOffset(x, 8);  // element 8 of x, read as int32
    std::printf("offset %d\n", bits.GetValue(0) == 0x41000000 ? 1 : 0);  // 8.0f's bits
    LocalTensor<float> view = x[16];
    view.SetBufferLen(4);
    std::printf("len %u\n", view.GetSize());
    view.Print();
    GlobalTensor<float> g;
    g.SetShapeInfo(ShapeInfo(1, dims));
    std::printf("gshape %d\n", GetShapeSize(g.GetShapeInfo()));
    DumpAccChkPoint(x, 5, 32, 2);
    BinaryRepeatParams bp;
    UnaryRepeatParams up(1, 1, 8, 8, true);
    std::printf("reserved %u %d %d\n", bp.blockNumber, up.halfBlock ? 1 : 0, up.strideSizeMode ? 1 : 0);
    const bfloat16_t n = AscendC::Cast(3.14159f);
    std::printf("cast %.9g %.9g %d\n", static_cast<double>(AscendC::Cast(n)),
                static_cast<double>(static_cast<float>(AscendC::Cast<float, half, RoundMode::CAST_ODD>(1.0f))),
                AscendC::Cast<float, int32_t, RoundMode::CAST_FLOOR>(-2.5f));
    std::printf("bits %lld %lld %lld\n", static_cast<long long>(CountLeadingZero(0x0100000000000020ULL)),
                static_cast<long long>(GetSFFValue<1>(0x1000000000000100ULL)),
                static_cast<long long>(GetBitCount<1>(0xFFULL)));
}

// Compares, the current name of CompareScalar (Compares.md): 64 floats against a scalar, LT, in the count form and
// the continuous-mask form (whose mask the A2 ignores: every slot of the repeat is compared).
void case_compares() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bd;
    pipe.InitBuffer(bx, 64 * sizeof(float));
    pipe.InitBuffer(bd, 64);
    LocalTensor<float> x = bx.Get<float>();
    LocalTensor<uint8_t> d = bd.Get<uint8_t>();
    for (uint32_t i = 0; i < 64; ++i) x.SetValue(i, static_cast<float>(i) - 3.5f);  // the first 4 are below 0.5
    Compares(d, x, 0.5f, CMPMODE::LT, 64);  // @compares
    std::printf("compares_count %u %u\n", d.GetValue(0), d.GetValue(1));
    Duplicate(d.ReinterpretCast<uint16_t>(), static_cast<uint16_t>(0), 32);
    UnaryRepeatParams p = {1, 1, 8, 8};
    Compares(d, x, 56.0f, CMPMODE::GE, static_cast<uint64_t>(8), 1, p);  // elements 60 to 63
    std::printf("compares_mask %u %u\n", d.GetValue(0), d.GetValue(7));
}

// A kernel that runs out of memory (as a launch of millions of tiny steps does, through its trace): one clear
// error of its own kind, not a bare std::bad_alloc.
void case_out_of_memory() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    LocalTensor<float> x = b.Get<float>();
    Duplicate(x, 1.0f, 64);
    throw std::bad_alloc();
}

// Trap stops the block with an error at its line; GetDataBlockSizeInBytes is the A2's 32 bytes, at compile time.
void case_trap() {
    static_assert(GetDataBlockSizeInBytes() == 32, "GetDataBlockSizeInBytes");
    Trap();  // @trap
}

// MulAddRelu (MulAddRelu.md): dst = Relu(src0 * dst + src1), here over 64 halves with x = i - 32, dst = 1, src1 = 2:
// the first 30 elements go below 0 and are clamped.
void case_mul_add_relu() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 3 * 64 * sizeof(half));
    LocalTensor<half> x = b.Get<half>(64), c = b.GetWithOffset<half>(64, 128), d = b.GetWithOffset<half>(64, 256);
    for (uint32_t i = 0; i < 64; ++i) x.SetValue(i, half(static_cast<float>(i) - 32.0f));
    Duplicate(c, half(2.0f), 64);
    Duplicate(d, half(1.0f), 64);
    MulAddRelu(d, x, c, 64);  // @mul_add_relu
    print("mul_add_relu", d, 64);
}

const std::map<std::string, std::function<void()>> CASES = {
    {"mul_add_relu", case_mul_add_relu},
    {"trap", case_trap},
    {"out_of_memory", case_out_of_memory},
    {"compares", case_compares},
    {"tensor_members", case_tensor_members},
    {"library_forms", case_library_forms},
    {"foreach", case_foreach},
    {"direct", case_direct},
    {"get0", case_get0},
    {"tque_config", case_tque_config},
    {"align", case_align},
    {"select_bm", case_select_bm},
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || CASES.count(argv[1]) == 0) {
        std::fprintf(stderr, "usage: forms_driver <case> [mismatch] [mask_last=N] [tmp=N]\n");
        return 2;
    }
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "mismatch") kv_mismatch = true;
        if (a.rfind("mask_last=", 0) == 0) kv_mask_last = std::stol(a.substr(10));
        if (a.rfind("tmp=", 0) == 0) kv_tmp = std::stol(a.substr(4));
    }
    tw::Launch l;
    std::fflush(stdout);
    auto r = tw::run_blocks(l, 1, CASES.at(argv[1]));
    for (const tw::Warning& w : r.warnings) std::printf("warn:%s %d\n", w.kind.c_str(), w.line);
    if (r.ok) std::printf("result ok\n");
    else std::printf("result error %s %d %s\n", r.kind.c_str(), r.line, r.message.c_str());
    const std::string here = __FILE__;
    for (const tw::TraceRecord& t : r.blocks[0].trace) {
        if (t.kind != tw::Rec::Instr && t.kind != tw::Rec::Scalar) continue;
        const std::string& file = l.names[t.file];
        const std::string site = file == here ? "here:" + std::to_string(t.line)
                                 : file.find("function pointer") != std::string::npos ? "pointer" : "elsewhere";
        std::printf("trace %s %d %s\n", l.names[t.op].c_str(), int(t.pipe), site.c_str());
    }
    return 0;
}
