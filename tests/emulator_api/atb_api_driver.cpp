// Test driver for kernel-side API that framework (ATB) kernels call: AscendCUtils' mask and size helpers, InitOutput,
// the byte-granular copy_gm_to_ubuf_align_b* / copy_ubuf_to_gm_align_b* intrinsics with set_mov_pad_val, and __bf16.
//
//   atb_api_driver <case>
//
// Each case is a small kernel written for this test, run as a one-block launch (block_vars: three blocks). It prints `key value...` lines that
// test_atb_kernel_api.py checks against the documented semantics, then `result ok` or `result error <kind> <line>
// ...`, then one `trace <name> <pipe> <bytes>` line per instruction.
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "tw/runtime/launcher.h"

using namespace AscendC;

namespace {

std::vector<std::vector<uint8_t>> gm;  // gm0: input (uint16 i at element i), gm1: output (zeroed)

template <typename T>
T* G(size_t i) { return reinterpret_cast<T*>(gm[i].data()); }

void print_mask(const char* key) {
    std::printf("%s %llx %llx %d\n", key, static_cast<unsigned long long>(tw::cur().vector_mask[1]),
                static_cast<unsigned long long>(tw::cur().vector_mask[0]), tw::cur().counter_mode ? 1 : 0);
}

template <typename T>
void print_ub(const char* key, const LocalTensor<T>& t, uint32_t n) {
    std::printf("%s", key);
    for (uint32_t i = 0; i < n; ++i) std::printf(" %.9g", static_cast<double>(static_cast<float>(t.GetValue(i))));
    std::printf("\n");
}

void case_mask() {
    AscendCUtils::SetMask<float>(10);
    print_mask("f10");
    AscendCUtils::SetMask<float>(64);
    print_mask("f64");
    AscendCUtils::SetMask<half>(100);
    print_mask("h100");
    AscendCUtils::SetMask<half>(128);
    print_mask("h128");
    AscendCUtils::SetMask<int8_t>(200);
    print_mask("b200");
    AscendCUtils::SetMask<float, false>(3);  // isSetMask = false: untouched
    print_mask("keep");
    AscendCUtils::SetMask<half>(0x5ULL, 0xF0ULL);
    print_mask("pair");
    AscendCUtils::ResetMask();
    print_mask("reset");
    AscendCUtils::SetMaskCount<float>();
    print_mask("count");
    AscendCUtils::SetMaskNorm<float>();
    print_mask("norm");
    std::printf("sizes %d %d %d %d %d\n", AscendCUtils::GetBitSize(4), AscendCUtils::GetC0Size(),
                AscendCUtils::GetC0Count(2), AscendCUtils::GetC0Count(4), AscendCUtils::GetDefaultBlockNum());

    // A masked vector instruction takes its lanes from the register SetMask wrote.
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 3 * 64 * sizeof(float));
    LocalTensor<float> a = buf.Get<float>();
    LocalTensor<float> b = a[64];
    LocalTensor<float> c = a[128];
    for (int i = 0; i < 64; ++i) {
        a.SetValue(i, static_cast<float>(i));
        b.SetValue(i, 100.0f);
        c.SetValue(i, -1.0f);
    }
    AscendCUtils::SetMask<float>(10);
    vadd((__ubuf__ float*)c.GetPhyAddr(), (__ubuf__ float*)a.GetPhyAddr(), (__ubuf__ float*)b.GetPhyAddr(), 1, 1, 1,
         1, 8, 8, 8);
    print_ub("vadd", c, 12);
}

void case_c0_zero() { (void)AscendCUtils::GetC0Count(0); }

void case_init_output() {
    GlobalTensor<float> out;
    out.SetGlobalBuffer(G<float>(1));
    InitOutput<float>(out, 100, 2.5f);
    GlobalTensor<int32_t> ints;
    ints.SetGlobalBuffer(G<int32_t>(1) + 120);
    InitOutput<int32_t>(ints, 4, -7);
    InitOutput<int32_t>(ints[2], 2);  // the value defaults to 0
    std::printf("out %g %g %g\n", G<float>(1)[0], G<float>(1)[99], G<float>(1)[100]);
    std::printf("ints %d %d %d %d %d\n", G<int32_t>(1)[120], G<int32_t>(1)[121], G<int32_t>(1)[122],
                G<int32_t>(1)[123], G<int32_t>(1)[124]);
}

void case_init_output_overrun() {
    GlobalTensor<float> out;
    out.SetGlobalBuffer(G<float>(1) + 500);
    InitOutput<float>(out, 100, 1.0f);  // 12 elements fit
}

void case_align_b16() {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 256);
    LocalTensor<uint16_t> ub = buf.Get<uint16_t>();
    for (int i = 0; i < 128; ++i) ub.SetValue(i, 9999);
    // Two rows of 5 elements from GM element 3, 2 elements skipped between them; UB rows one block apart.
    copy_gm_to_ubuf_align_b16((__ubuf__ uint16_t*)ub.GetPhyAddr(), G<uint16_t>(0) + 3, 0, 2, 5 * sizeof(uint16_t),
                              0, 0, 2 * sizeof(uint16_t), 1);
    print_ub("in", ub, 48);
    // Back out: UB rows one block apart again, GM rows 3 elements apart.
    copy_ubuf_to_gm_align_b16(G<uint16_t>(1), (__ubuf__ uint16_t*)ub.GetPhyAddr(), 0, 2, 5 * sizeof(uint16_t), 0,
                              0, 1, 3 * sizeof(uint16_t));
    std::printf("out");
    for (int i = 0; i < 14; ++i) std::printf(" %d", G<uint16_t>(1)[i]);
    std::printf("\n");
    // Padding: 2 left, 1 right, from the pad register.
    set_mov_pad_val(7777);
    copy_gm_to_ubuf_align_b16((__ubuf__ uint16_t*)ub.GetPhyAddr(), G<uint16_t>(0) + 40, 0, 1, 3 * sizeof(uint16_t),
                              2, 1, 0, 0);
    print_ub("pad", ub, 16);
}

void case_align_b8_b32() {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 256);
    LocalTensor<uint8_t> u8 = buf.Get<uint8_t>();
    copy_gm_to_ubuf_align_b8((__ubuf__ uint8_t*)u8.GetPhyAddr(), G<uint8_t>(0) + 2, 0, 1, 7, 0, 0, 0, 0);
    print_ub("b8", u8, 32);
    LocalTensor<uint32_t> u32 = buf.Get<uint32_t>()[32];
    copy_gm_to_ubuf_align_b32((__ubuf__ uint32_t*)u32.GetPhyAddr(), G<uint32_t>(0) + 1, 0, 1, 3 * 4, 0, 0, 0, 0);
    copy_ubuf_to_gm_align_b32(G<uint32_t>(1) + 1, (__ubuf__ uint32_t*)u32.GetPhyAddr(), 0, 1, 3 * 4, 0, 0, 0, 0);
    std::printf("b32 %u %u %u %u %u\n", G<uint32_t>(1)[0], G<uint32_t>(1)[1], G<uint32_t>(1)[2], G<uint32_t>(1)[3],
                G<uint32_t>(1)[4]);
}

void case_align_odd() {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 64);
    LocalTensor<uint16_t> ub = buf.Get<uint16_t>();
    copy_gm_to_ubuf_align_b16((__ubuf__ uint16_t*)ub.GetPhyAddr(), G<uint16_t>(0), 0, 1, 5, 0, 0, 0, 0);
}

// vcadd with its mode operand: 0 (false) is one sum per repeat, as the six-operand form.
void case_vcadd_mode(int32_t mode) {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 256 * sizeof(float));
    LocalTensor<float> src = buf.Get<float>();
    LocalTensor<float> dst = src[128];
    for (int i = 0; i < 128; ++i) src.SetValue(i, static_cast<float>(i));
    AscendCUtils::SetMask<float>(64);
    if (mode == 0) {
        vcadd((__ubuf__ float*)dst.GetPhyAddr(), (__ubuf__ float*)src.GetPhyAddr(), 2, 1, 1, 8, false);
        print_ub("sums", dst, 2);
        return;
    }
    dst.SetValue(0, -1.0f);
    auto acc = [] {
        int64_t bits = get_acc_val();
        float v;
        std::memcpy(&v, &bits, sizeof(v));
        return v;
    };
    // Every lane of two repeats, into the accumulator; dst untouched.
    vcadd(nullptr, (__ubuf__ float*)src.GetPhyAddr(), 2, 1, 1, 8, true);
    std::printf("acc_full %g %g\n", acc(), static_cast<float>(dst.GetValue(0)));
    // Ten lanes of each of two repeats.
    AscendCUtils::SetMask<float>(10);
    vcadd(nullptr, (__ubuf__ float*)src.GetPhyAddr(), 2, 1, 1, 8, 1);
    std::printf("acc_masked %g\n", acc());
    // Counter mode: the first 100 elements, whatever the repeat operand says.
    AscendCUtils::SetMaskCount<float>();
    SetVectorMask<float, MaskMode::COUNTER>(100);
    vcadd(nullptr, (__ubuf__ float*)src.GetPhyAddr(), 1, 1, 1, 8, true);
    AscendCUtils::SetMaskNorm<float>();
    std::printf("acc_count %g\n", acc());
}

void case_bf16() {
    __bf16 x = 1.5f;
    bfloat16_t y = x;
    GlobalTensor<__bf16> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ __bf16*>(G<uint16_t>(1)));
    g.SetValue(0, x);
    std::printf("bf16 %g %g %zu %x\n", static_cast<float>(x), static_cast<float>(y), sizeof(__bf16),
                G<uint16_t>(1)[0]);
}

// The built-in block_idx / block_num variables, in a launch of 3 blocks.
void case_block_vars() {
    G<uint16_t>(1)[block_idx] = static_cast<uint16_t>(block_num * 10 + block_idx);
    if (block_idx == 2) G<uint16_t>(1)[3] = static_cast<uint16_t>(static_cast<uint64_t>(block_idx) * 100);
}

const std::map<std::string, std::function<void()>> CASES = {
    {"mask", case_mask},
    {"c0_zero", case_c0_zero},
    {"init_output", case_init_output},
    {"init_output_overrun", case_init_output_overrun},
    {"align_b16", case_align_b16},
    {"align_b8_b32", case_align_b8_b32},
    {"align_odd", case_align_odd},
    {"bf16", case_bf16},
    {"block_vars", case_block_vars},
    {"vcadd_mode0", [] { case_vcadd_mode(0); }},
    {"vcadd_acc", [] { case_vcadd_mode(1); }},
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2 || CASES.count(argv[1]) == 0) {
        std::fprintf(stderr, "usage: atb_api_driver <case>\n");
        return 2;
    }
    tw::Launch l;
    gm.assign(2, std::vector<uint8_t>(2048, 0));
    for (size_t i = 0; i < 1024; ++i) G<uint16_t>(0)[i] = static_cast<uint16_t>(i);
    for (size_t i = 0; i < gm.size(); ++i)
        l.regions.push_back(tw::GmRegion{gm[i].data(), gm[i].size(), "gm" + std::to_string(i), gm[i].size()});
    std::fflush(stdout);
    const bool three = std::string(argv[1]) == "block_vars";
    auto r = tw::run_blocks(l, three ? 3 : 1, CASES.at(argv[1]));
    if (three) std::printf("blocks %d %d %d %d\n", G<uint16_t>(1)[0], G<uint16_t>(1)[1], G<uint16_t>(1)[2],
                           G<uint16_t>(1)[3]);
    if (r.ok) std::printf("result ok\n");
    else std::printf("result error %s %d %s\n", r.kind.c_str(), r.line, r.message.c_str());
    for (const tw::TraceRecord& t : r.blocks[0].trace)
        if (t.kind == tw::Rec::Instr)
            std::printf("trace %s %d %llu\n", l.names[t.op].c_str(), int(t.pipe),
                        static_cast<unsigned long long>(t.bytes));
    return 0;
}
