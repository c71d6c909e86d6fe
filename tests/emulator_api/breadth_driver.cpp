// Test driver for kernel-side API names the public-operator corpus needed next (test_breadth_api.py): the device's
// printf / PRINTF, DumpTensor, ToFloat / ToBfloat16, the AscendC::Std library, the 8.0 name BroadCast, and the
// library-internal macros (ASCENDC_ASSERT, KERNEL_LOG, __tiling_data_ptr__) that kernels copied from the library use.
//
//   breadth_driver <case>
//
// Each case is a small kernel written for this test, run in a launch of its own on one block. It prints its own
// lines, then `result ok` or `result error <kind> <line> ...`.
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "tw/runtime/launcher.h"

using namespace AscendC;

namespace {

std::vector<std::vector<uint8_t>> gm;

struct RowTiling {
    uint32_t rows;
    uint32_t cols;
};

template <typename T>
void print(const char* key, const T* p, size_t n) {
    std::printf("%s", key);
    for (size_t i = 0; i < n; ++i) std::printf(" %.9g", static_cast<double>(static_cast<float>(p[i])));
    std::printf("\n");
}

// AscendC::printf takes the C formats; PRINTF and AscendC::PRINTF are the same function.
void case_printf() {
    AscendC::printf("pf %d %s %.2f\n", 7, "seven", 1.5);
    PRINTF("pf2 %u\n", 3u);
    AscendC::PRINTF("pf3 plain\n");
}

// DumpTensor: the user's desc, the position, then the first dumpSize values (never past the tensor's end).
void case_dump() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 8 * sizeof(float));
    LocalTensor<float> t = buf.Get<float>();
    for (int i = 0; i < 8; ++i) t.SetValue(i, static_cast<float>(i + 1));
    DumpTensor(t, 5, 4);
    DumpTensor(t[6], 6, 100);  // two elements are left from element 6
    GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(reinterpret_cast<int32_t*>(gm[0].data()), 3);
    DumpTensor(g, 7, 3);
    uint32_t shape[] = {2, 2};
    DumpTensor(t, 8, 4, ShapeInfo(2, shape));  // the shape form (a ShapeInfo) prints the same values
}

// ToBfloat16 rounds to nearest even; ToFloat is exact.
void case_bf16_scalars() {
    std::printf("to_bf16 %u %u %u\n", ToBfloat16(3.0f).bits, ToBfloat16(1.00390625f).bits,
                ToBfloat16(1.005859375f).bits);
    std::printf("to_float %.9g %.9g\n", static_cast<double>(ToFloat(bfloat16_t::from_bits(0x3FC0))),
                static_cast<double>(ToFloat(bfloat16_t::from_bits(0xC2F7))));
}

// AscendC::Std: min / max return the first argument's type; tuples and traits as in C++.
void case_std() {
    static_assert(Std::is_same_v<decltype(Std::min(5u, 3)), unsigned>, "min returns the first type");
    static_assert(Std::is_same<decltype(Std::max(2.5f, 3)), float>::value, "max returns the first type");
    static_assert(Std::is_same_v<decltype(Std::min(half(1.0f), 0.5f)), half>, "half compares as its value");
    static_assert(Std::is_tuple_v<Std::tuple<int, float>> && !Std::is_tuple_v<int>, "is_tuple");
    static_assert(Std::is_one_of_v<half, float, half> && !Std::is_one_of_v<int8_t, float, half>, "is_one_of");
    static_assert(Std::is_same_v<Std::conditional_t<true, half, float>, half>, "conditional_t");
    auto t = Std::make_tuple(uint32_t(4), 2.5f);
    Std::get<0>(t) += 1;
    std::printf("std %u %.9g %.9g %d %.9g\n", Std::min(5u, 3), static_cast<double>(Std::max(2.5f, 3)),
                static_cast<double>(Std::get<1>(t)), static_cast<int>(Std::get<0>(t)),
                static_cast<double>(static_cast<float>(Std::min(half(1.0f), 0.5f))));
}

// BroadCast<T, 2, 1>: the reference's example, a {2, 1} column stretched to {2, 16}.
void case_broadcast_old_name() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> sbuf, dbuf;
    pipe.InitBuffer(sbuf, 32);
    pipe.InitBuffer(dbuf, 2 * 16 * sizeof(float));
    LocalTensor<float> src = sbuf.Get<float>();
    LocalTensor<float> dst = dbuf.Get<float>();
    src.SetValue(0, 1.0f);
    src.SetValue(1, 2.0f);
    const uint32_t dstShape[2] = {2, 16};
    const uint32_t srcShape[2] = {2, 1};
    BroadCast<float, 2, 1>(dst, src, dstShape, srcShape);
    print("bc", dst.GetPhyAddr(0), 32);
}

// ASCENDC_ASSERT and KERNEL_LOG are dropped unevaluated, as in the device build; __tiling_data_ptr__ declares a
// read-only view of tiling data.
int evaluated = 0;
void case_library_macros() {
    ASCENDC_ASSERT(++evaluated > 100, { KERNEL_LOG(KERNEL_ERROR, "never %d", ++evaluated); });
    KERNEL_LOG(KERNEL_INFO, "dropped %d", ++evaluated);
    RowTiling tiling{3, 4};
    __tiling_data_ptr__ RowTiling* view = &tiling;
    static_assert(std::is_const_v<std::remove_pointer_t<decltype(view)>>, "tiling data is read-only");
    std::printf("macros %d %u\n", evaluated, view->rows * view->cols);
}

// The vcmax / vcmin intrinsics with their Order_t operand: one repeat of 64 floats (the whole mask), the maximum
// 100 at lane 10 and the minimum -5 at lane 20; an index is written as a uint32_t in the result's place.
void case_vcmax_order() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> sbuf, dbuf;
    pipe.InitBuffer(sbuf, 64 * sizeof(float));
    pipe.InitBuffer(dbuf, 4 * 8 * sizeof(float));
    LocalTensor<float> src = sbuf.Get<float>();
    LocalTensor<float> dst = dbuf.Get<float>();
    for (int i = 0; i < 64; ++i) src.SetValue(i, static_cast<float>(i) * 0.5f);
    src.SetValue(10, 100.0f);
    src.SetValue(20, -5.0f);
    set_vector_mask(~0ULL, ~0ULL);
    auto at = [&](int i) { return reinterpret_cast<__ubuf__ float*>(dst[i].GetPhyAddr()); };
    const auto* s = reinterpret_cast<__ubuf__ float*>(src.GetPhyAddr());
    vcmax(at(0), s, 1, 1, 1, 8, Order_t::VALUE_INDEX);
    vcmax(at(8), s, 1, 1, 1, 8, Order_t::ONLY_VALUE);
    vcmin(at(16), s, 1, 1, 1, 8, Order_t::ONLY_INDEX);
    vcmin(at(24), s, 1, 1, 1, 8, Order_t::INDEX_VALUE);
    LocalTensor<uint32_t> bits = dst.ReinterpretCast<uint32_t>();
    std::printf("vcmax %.9g %u %.9g\n", static_cast<double>(dst.GetValue(0)), bits.GetValue(1),
                static_cast<double>(dst.GetValue(8)));
    std::printf("vcmin %u %u %.9g\n", bits.GetValue(16), bits.GetValue(24), static_cast<double>(dst.GetValue(25)));
}

// Names of newer releases: K_MAX_DIM sizes SliceInfo arrays; __mix__(cube, vector) qualifies a mixed kernel entry.
__mix__(1, 2) void mixed_entry(int* out) { *out = K_MAX_DIM; }
void case_newer_names() {
    SliceInfo infos[K_MAX_DIM];
    int n = 0;
    mixed_entry(&n);
    std::printf("names %d %zu\n", n, sizeof(infos) / sizeof(infos[0]));
    TPipe pipe;
    std::printf("pipe %d\n", ::GetTPipePtr() == &pipe ? 1 : 0);  // the global name, as the reference declares it
}

// GetMrgSortResult after MrgSort: two sorted lists (scores 9 7 5 3 and 8 6); with ifExhaustedSuspension the merge
// stops once the second list runs out (9 8 7 6: two of each), without it every structure goes out (4 and 2).
void case_mrgsort_result() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> abuf, bbuf, dbuf;
    pipe.InitBuffer(abuf, 4 * 8);
    pipe.InitBuffer(bbuf, 32);
    pipe.InitBuffer(dbuf, 6 * 8 + 16);
    LocalTensor<float> a = abuf.Get<float>(), b = bbuf.Get<float>(), dst = dbuf.Get<float>();
    const float sa[4] = {9, 7, 5, 3}, sb[2] = {8, 6};
    for (int i = 0; i < 4; ++i) {
        a.SetValue(2 * i, sa[i]);
        a.ReinterpretCast<uint32_t>().SetValue(2 * i + 1, static_cast<uint32_t>(i));
    }
    for (int i = 0; i < 2; ++i) {
        b.SetValue(2 * i, sb[i]);
        b.ReinterpretCast<uint32_t>().SetValue(2 * i + 1, static_cast<uint32_t>(10 + i));
    }
    MrgSortSrcList<float> lists(a, b, a, a);
    const uint16_t lengths[4] = {4, 2, 0, 0};
    MrgSort4Info stop(lengths, true, 0b11, 1);
    MrgSort(dst, lists, stop);
    uint16_t n1 = 99, n2 = 99, n3 = 99, n4 = 99;
    GetMrgSortResult(n1, n2, n3, n4);
    std::printf("exhausted %u %u %u %u %.9g\n", n1, n2, n3, n4, static_cast<double>(dst.GetValue(6)));
    MrgSort4Info all(lengths, false, 0b11, 1);
    MrgSort(dst, lists, all);
    GetMrgSortResult(n1, n2, n3, n4);
    std::printf("all %u %u %u %u %.9g\n", n1, n2, n3, n4, static_cast<double>(dst.GetValue(10)));
}

const std::map<std::string, std::function<void()>> CASES = {
    {"mrgsort_result", case_mrgsort_result},
    {"vcmax_order", case_vcmax_order},
    {"newer_names", case_newer_names},
    {"printf", case_printf},
    {"dump", case_dump},
    {"bf16_scalars", case_bf16_scalars},
    {"std", case_std},
    {"broadcast_old_name", case_broadcast_old_name},
    {"library_macros", case_library_macros},
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2 || CASES.count(argv[1]) == 0) {
        std::fprintf(stderr, "usage: breadth_driver <case>\n");
        return 2;
    }
    tw::Launch l;
    gm.assign(1, std::vector<uint8_t>(64, 0));
    for (int i = 0; i < 3; ++i) reinterpret_cast<int32_t*>(gm[0].data())[i] = 10 * (i + 1);
    l.regions.push_back(tw::GmRegion{gm[0].data(), gm[0].size(), "gm0", gm[0].size()});
    std::fflush(stdout);
    auto r = tw::run_blocks(l, 1, CASES.at(argv[1]));
    std::fflush(stdout);
    if (r.ok) std::printf("result ok\n");
    else std::printf("result error %s %d %s\n", r.kind.c_str(), r.line, r.message.c_str());
    return 0;
}
