// Test driver for the emulator's API surface that public kernels use beyond the core AscendC calls: the type
// aliases and constexpr half, TBuf and LocalTensor member forms, the lower-case legacy intrinsics.
//
//   api_driver <case>
//
// Each case is a small kernel written for this test. It runs in a launch of its own and prints `key value...` lines
// that the Python side (test_api_surface.py) checks against values derived from the API reference, then
// `result ok` or `result error <kind> <line>`, then one `trace <name> <pipe>` line per vector / copy instruction.
#include <chrono>
#include <cstdio>
#include <thread>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "kernel_basic_intf.h"  // the newer umbrella name, which brings kernel_operator.h
#include "tw/runtime/launcher.h"

using namespace AscendC;

namespace {

// The public-kernel spellings this driver pins: a constexpr half constant and the float32_t alias.
constexpr half MIN_VALUE = static_cast<half>(-65504.0f);
constexpr half QUARTER = 0.25f;
constexpr bfloat16_t BF_THREE = 3.0f;
static_assert(static_cast<float>(QUARTER) == 0.25f, "constexpr half converts back exactly");
static_assert(sizeof(float32_t) == 4 && sizeof(float16_t) == 2, "type aliases");
static_assert(IsSameType<float32_t, float>::value && !IsSameType<half, float>::value, "IsSameType");
static_assert(g_coreType == AIV && g_coreType != AscendC::AIC, "every emulated block is a vector core");
// `__vector__` qualifies a vector-only kernel entry in newer releases.
extern "C" __vector__ __global__ __aicore__ void tw_vector_entry(GM_ADDR) {}
// tik2, the namespace's early name, names the same API and can be reopened for a kernel's own helpers.
static_assert(std::is_same<tik2::LocalTensor<float>, AscendC::LocalTensor<float>>::value, "tik2 alias");
namespace tik2 {
inline int32_t tik2_helper(const LocalTensor<int32_t>& t) { return static_cast<int32_t>(t.GetSize()); }
}  // namespace tik2

std::vector<std::vector<uint8_t>> gm;  // GM buffers of the running case, registered with the launch

template <typename T>
T* G(size_t i) { return reinterpret_cast<T*>(gm[i].data()); }

template <typename T>
void print(const char* key, const T* p, size_t n) {
    std::printf("%s", key);
    for (size_t i = 0; i < n; ++i) std::printf(" %.9g", static_cast<double>(static_cast<float>(p[i])));
    std::printf("\n");
}

void case_aliases() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64 * sizeof(float32_t));
    LocalTensor<float32_t> x = buf.Get<float32_t>();
    Duplicate(x, 1.5f, 64);
    LocalTensor<half> h = buf.GetWithOffset<half>(16, 128);
    Duplicate(h, MIN_VALUE, 16);
    half arr[3] = {MIN_VALUE, QUARTER, half(static_cast<float>(BF_THREE))};
    print("f32", x.data(), 2);
    print("half", arr, 3);
    print("dup", h.data(), 2);
    // ACL's host-side half: raw binary16 bits.
    std::printf("acl %u %g %g\n", static_cast<unsigned>(aclFloatToFloat16(1.0f)),
                static_cast<double>(aclFloat16ToFloat(aclFloatToFloat16(-2.5f))), static_cast<double>(ACL_ERROR_NONE));
}

// TBuf::Get<T>() spans the whole buffer, Get<T>(len) its first len elements, GetWithOffset<T>(len, bytes) starts
// `bytes` in; all three view the same memory.
void case_tbuf() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    TBuf<> other;  // the default position is VECCALC
    pipe.InitBuffer(buf, 1024);
    pipe.InitBuffer(other, 256);
    LocalTensor<float> all = buf.Get<float>();
    LocalTensor<float> first = buf.Get<float>(64);
    LocalTensor<int32_t> tail = buf.GetWithOffset<int32_t>(32, 512);
    LocalTensor<half> small = other.Get<half>();
    std::printf("sizes %u %u %u %u\n", all.GetSize(), first.GetSize(), tail.GetSize(), small.GetSize());
    std::printf("addr %llu %llu %llu\n", static_cast<unsigned long long>(all.GetPhyAddr()),
                static_cast<unsigned long long>(tail.GetPhyAddr()), static_cast<unsigned long long>(small.GetPhyAddr()));
    tail.SetValue(0, 7);
    std::printf("alias %g\n", static_cast<double>(all.ReinterpretCast<int32_t>().GetValue(128)));
    // 4 bytes past the end: the device does not check the view (a warning), only what is touched through it
    LocalTensor<float> over = buf.GetWithOffset<float>(64, 768 + 4);
    over.SetValue(62, 1.0f);  // the buffer's last 4 bytes: fine
    over.SetValue(63, 1.0f);  // the access past the buffer's end
    // UB is one memory: that write landed in the next buffer (a warning); past the 192 KiB UB is an error.
    std::printf("neighbour %g\n", static_cast<double>(other.Get<float>().GetValue(0)));
    over[196608 / 4].SetValue(0, 1.0f);  // past the physical UB
}

// GetValue / SetValue / operator() / operator[] with every index type kernels use.
void case_index() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64 * sizeof(float));
    LocalTensor<float> t = buf.Get<float>();
    int i = 1;
    uint32_t u = 2;
    int64_t l = 3;
    size_t s = 4;
    uint16_t w = 5;
    t.SetValue(0, 10);
    t.SetValue(i, 11.0);
    t.SetValue(u, 12.0f);
    t.SetValue(l, half(13.0f));
    t(s) = 14.0f;
    t(w) = t.GetValue(i) + t.GetValue(u) + t.GetValue(l) + t.GetValue(s);  // 11 + 12 + 13 + 14
    LocalTensor<float> v = t[i];
    v = v[u];                       // element 3
    t.SetValue(9, 100);
    float from_view = v.GetValue(0) + t[l](1) + t[s][w].GetValue(0);  // t[3] + t[4] + t[9]
    std::printf("values %g %g %g\n", static_cast<double>(t(5)), static_cast<double>(from_view),
                static_cast<double>(t.GetValue(s)));
}

// The legacy vector intrinsics on UB offsets (GetPhyAddr) and on UB pointers, with the mask register.
void case_legacy_vector() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b, c;
    pipe.InitBuffer(a, 256 * sizeof(float));
    pipe.InitBuffer(b, 256 * sizeof(float));
    pipe.InitBuffer(c, 256 * sizeof(float));
    LocalTensor<float> x = a.Get<float>(), y = b.Get<float>(), z = c.Get<float>();
    for (int k = 0; k < 256; ++k) {
        x.SetValue(k, static_cast<float>(k));
        y.SetValue(k, 0.5f);
        z.SetValue(k, -1.0f);
    }
    __ubuf__ float* px = (__ubuf__ float*)x.GetPhyAddr();  // offset 0: the first buffer
    __ubuf__ float* py = (__ubuf__ float*)y.GetPhyAddr();
    __ubuf__ float* pz = z.GetPhyAddr(0);                   // a pointer into UB works too
    set_vector_mask(0, 0xF);                                // slots 0..3 of each repeat
    vadd(pz, px, py, 2, 1, 1, 1, 8, 8, 8);                  // z[0..3] and z[64..67]
    print("vadd", z.data(), 8);
    print("vadd_r1", z.data() + 64, 5);
    set_vector_mask(~0ull, ~0ull);
    vmuls(pz, px, 2.0f, 1, 1, 1, 8, 8);                     // 64 floats
    print("vmuls", z.data() + 60, 6);
    vector_dup(pz, 3.0f, 1, 1, 1, 8, 8);
    vexp(pz + 64, pz, 1, 1, 1, 8, 8);
    print("vexp", z.data() + 64, 1);
    vcadd(pz + 128, px, 2, 1, 1, 8);                        // sums of 0..63 and 64..127
    print("vcadd", z.data() + 128, 2);
    vcmax(pz + 136, py + 8, 1, 1, 1, 8);                    // max of y[8..71] (all 0.5; x's values below)
    print("vcmax", z.data() + 136, 1);
    set_mask_count();
    set_vector_mask(0, 70);                                 // counter mode: 70 elements across repeats
    vadds(pz, px, 1.0f, 1, 1, 1, 8, 8);
    set_mask_norm();
    set_vector_mask(~0ull, ~0ull);
    print("vadds_count", z.data() + 68, 3);
}

void case_legacy_copy() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a;
    pipe.InitBuffer(a, 512);
    LocalTensor<float> x = a.Get<float>();
    __ubuf__ float* ub = (__ubuf__ float*)x.GetPhyAddr();
    float* in = G<float>(0);
    float* out = G<float>(1);
    // Two bursts of one 32-byte block (8 floats), skipping one block in GM between them: in[0..7], in[16..23].
    copy_gm_to_ubuf(ub, in, 0, 2, 1, 1, 0);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID1);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID1);
    copy_ubuf_to_gm(out, ub, 0, 1, 2, 0, 0);  // 16 floats out
    pipe_barrier(PIPE_ALL);
    set_atomic_f32();
    set_atomic_add();
    copy_ubuf_to_gm(out, ub, 0, 1, 1, 0, 0);  // out[0..7] += in[0..7]
    set_atomic_none();
    pipe_barrier(PIPE_ALL);
    copy_ubuf_to_ubuf(ub + 32, ub, 0, 1, 1, 0, 0);
    print("ub_copy", x.data() + 32, 2);
}

void case_legacy_flags_unpaired() {
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID2);  // never set: the pipe would hang
}

void case_identity() {
    G<int64_t>(0)[get_block_idx()] = get_block_idx() * 100 + get_block_num() * 10 + get_subblockid();
}

// Fused arithmetic, count and mask forms: a[k] = k / 4 - 8, b[k] = 1.5 - k / 8, the destination starting at 2.
void case_fused() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 8 * 64 * sizeof(float));
    LocalTensor<float> a = buf.Get<float>(64), b = buf.Get<float>()[64], out = buf.Get<float>()[128];
    for (int k = 0; k < 64; ++k) {
        a.SetValue(k, k / 4.0f - 8.0f);
        b.SetValue(k, 1.5f - k / 8.0f);
    }
    const char* names[] = {"AddRelu", "SubRelu", "FusedMulAdd", "FusedMulAddRelu", "MulAddDst"};
    for (int i = 0; i < 5; ++i) {
        LocalTensor<float> d = out[64 * i];
        Duplicate(d, 2.0f, 64);
        switch (i) {
            case 0: AddRelu(d, a, b, 64); break;
            case 1: SubRelu(d, a, b, 64); break;
            case 2: FusedMulAdd(d, a, b, 64); break;
            case 3: FusedMulAddRelu(d, a, b, 64); break;
            default: MulAddDst(d, a, b, 64); break;
        }
        print(names[i], d.data(), 64);
    }
    LocalTensor<float> m = out[64 * 5];
    Duplicate(m, 2.0f, 64);
    FusedMulAdd(m, a, b, 8, 1, BinaryRepeatParams());  // first 8 slots only
    print("FusedMulAdd_mask", m.data(), 10);
    LocalTensor<int32_t> idx = out[64 * 5 + 16].ReinterpretCast<int32_t>();
    CreateVecIndex(idx, -5, 6);
    print("CreateVecIndex", idx.data(), 6);
    // Scatter a[0..3] to bytes 4 + {16, 0, 24, 4} of m (elements 5, 1, 7, 2), then Arange over m[8..11].
    LocalTensor<uint32_t> off = out[64 * 5 + 40].ReinterpretCast<uint32_t>();
    const uint32_t where[] = {16, 0, 24, 4};
    for (int i = 0; i < 4; ++i) off.SetValue(i, where[i]);
    Scatter(m, a, off, 4, 4);
    Arange(m[8], 0.5f, -0.25f, 4);
    print("Scatter", m.data(), 12);
    // RepeatReduceSum: a[0..63] is one repeat of 64 floats; with the first 16 lanes only, then the full repeat.
    RepeatReduceSum<float, true>(m, a, 1, 16, 0, 1, 1, 8);
    SetVectorMask<float>(0, ~0ull);
    RepeatReduceSum<float, false>(m[1], a, 1, 0, 0, 1, 1, 8);
    ResetMask();
    print("RepeatReduceSum", m.data(), 2);
}

// High-level math on x[k] = k / 10 - 3.2 (k < 64) and y[k] = 0.05 + k / 32, in float.
void case_math() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf, tmp;
    pipe.InitBuffer(buf, 4 * 64 * sizeof(float));
    pipe.InitBuffer(tmp, 1024);
    LocalTensor<float> x = buf.Get<float>(64), y = buf.Get<float>()[64], d = buf.Get<float>()[128];
    LocalTensor<uint8_t> scratch = tmp.Get<uint8_t>();
    for (int k = 0; k < 64; ++k) {
        x.SetValue(k, k / 10.0f - 3.2f);
        y.SetValue(k, 0.05f + k / 32.0f);
    }
#define TW_RUN(NAME, CALL) CALL; print(NAME, d.data(), 64);
    TW_RUN("Tanh", Tanh(d, x, scratch, 64))
    TW_RUN("Sin", Sin(d, x, 64))
    TW_RUN("Cos", Cos(d, x, scratch, 64))
    TW_RUN("Atan", Atan(d, x, 64))
    TW_RUN("Asinh", Asinh(d, x, 64))
    TW_RUN("Acos", Acos(d, y[0], 16))
    TW_RUN("Erf", Erf(d, x, 64))
    TW_RUN("Log2", Log2(d, y, 64))
    TW_RUN("Floor", Floor(d, x, 64))
    TW_RUN("Ceil", Ceil(d, x, 64))
    TW_RUN("Round", Round(d, x, 64))
    for (int k = 0; k < 64; ++k) y.SetValue(k, (k % 8) - 3.5f);  // exact ties -3.5 .. 3.5: halves go to even
    TW_RUN("RoundTies", Round(d, y, 64))
    for (int k = 0; k < 64; ++k) y.SetValue(k, 0.05f + k / 32.0f);
    TW_RUN("Trunc", Trunc(d, x, 64))
    TW_RUN("Frac", Frac(d, x, 64))
    TW_RUN("Sign", Sign(d, x, 64))
    TW_RUN("PowerTT", Power(d, y, x, 64))
    TW_RUN("PowerTS", Power(d, x, 3.0f, scratch, 64))
    TW_RUN("PowerST", Power(d, 2.0f, x, 64))
    TW_RUN("Fmod", Fmod(d, x, y, 64))
    TW_RUN("ClampMax", ClampMax(d, x, 1.25f, 64))
    TW_RUN("ClampMin", ClampMin(d, x, scratch, -0.5f, 64))
    TW_RUN("Silu", Silu(d, x, 64))
    TW_RUN("Swish", Swish(d, x, 64, 1.5f))
    TW_RUN("Gelu", Gelu(d, x, 64))
    TW_RUN("FasterGelu", FasterGelu(d, x, scratch, 64))
#undef TW_RUN
    LocalTensor<int16_t> i = buf.Get<int16_t>()[384];
    for (int k = 0; k < 16; ++k) i.SetValue(k, static_cast<int16_t>(k * 37 - 200));
    Xor(i[16], i, i[8], 8);
    print("Xor", i.data() + 16, 8);
    LocalTensor<int32_t> p = buf.Get<int32_t>()[224];
    for (int k = 0; k < 8; ++k) p.SetValue(k, k - 2);
    Power(p[8], p, 3, 8);
    print("PowerInt", p.data() + 8, 8);
}

// The scalar unit's bit counting and conversions.
void case_scalar_unit() {
    int64_t v[] = {ScalarGetSFFValue<1>(0x8), ScalarGetSFFValue<0>(0x7), ScalarGetSFFValue<0>(~0ull),
                   ScalarCountLeadingZero(1), ScalarCountLeadingZero(0), ScalarGetCountOfValue<1>(0xF0),
                   ScalarGetCountOfValue<0>(0xF0), CountBitsCntSameAsSignBit(0), CountBitsCntSameAsSignBit(-1),
                   CountBitsCntSameAsSignBit(1), CountBitsCntSameAsSignBit(-2),
                   ScalarCast<float, int32_t, RoundMode::CAST_ROUND>(2.5f),
                   ScalarCast<float, int32_t, RoundMode::CAST_RINT>(2.5f),
                   ScalarCast<float, int32_t, RoundMode::CAST_FLOOR>(-1.5f),
                   ScalarCast<float, int32_t, RoundMode::CAST_TRUNC>(-1.5f),
                   ScalarCast<float, int32_t, RoundMode::CAST_CEIL>(3e9f)};
    std::printf("scalar");
    for (int64_t x : v) std::printf(" %lld", static_cast<long long>(x));
    std::printf("\n");
    half h[] = {ScalarCast<float, half, RoundMode::CAST_TRUNC>(1.0009765625f + 0.0004f),
                ScalarCast<float, half, RoundMode::CAST_CEIL>(1.0004f)};
    print("scalar_half", h, 2);
}

// LocalMemAllocator hands out consecutive 32-byte-aligned UB ranges from address 0; the in-place AllocTensor /
// DeQue forms fill the tensor they are given.
void case_allocator() {
    LocalMemAllocator<Hardware::UB> ub;
    LocalTensor<float> a = ub.Alloc<float, 100>();                // 400 bytes, rounded to 416
    LocalTensor<half> b = ub.Alloc<TPosition::VECIN, half, 16>();  // 32 bytes
    LocalTensor<int32_t> c = ub.Alloc<int32_t>(8);
    std::printf("alloc %llu %llu %llu %u %u\n", static_cast<unsigned long long>(a.GetPhyAddr()),
                static_cast<unsigned long long>(b.GetPhyAddr()), static_cast<unsigned long long>(c.GetPhyAddr()),
                ub.GetCurAddr(), a.GetSize());
    TPipe pipe;
    TQue<TPosition::VECIN, 2> que;
    pipe.InitBuffer(que, 2, 256);
    LocalTensor<float> t;
    que.AllocTensor<float>(t);
    t.SetValue(0, 42.0f);
    que.EnQue(t);
    LocalTensor<float> u;
    que.DeQue<float>(u);
    std::printf("inplace %g %u\n", static_cast<double>(u.GetValue(0)), u.GetSize());
    que.FreeTensor(u);
    ub.Alloc<float>(196608 / 4);  // the rest of the UB is 480 bytes short of this: an overrun
}

// IBSet / IBWait: block 1 waits for block 0's result in GM (block 0 is slowed down so the wait is real).
void case_ib_sync() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ub;
    pipe.InitBuffer(ub, 32);
    GlobalTensor<int32_t> ws, out;
    ws.SetGlobalBuffer(G<int32_t>(2), 64);
    out.SetGlobalBuffer(G<int32_t>(1), 64);
    if (GetBlockIdx() == 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        out.SetValue(0, 41);
        IBSet(ws, ub.Get<int32_t>(), 0, 0);
    } else {
        IBWait(ws, ub.Get<int32_t>(), 0, 0);
        out.SetValue(1, out.GetValue(0) + 1);
    }
}

// CrossCoreSetFlag / CrossCoreWaitFlag mode 0: every block publishes a value, then reads all of them.
void case_cross_core() {
    GlobalTensor<int32_t> out;
    out.SetGlobalBuffer(G<int32_t>(1), 64);
    const int64_t b = GetBlockIdx();
    if (b == 2) std::this_thread::sleep_for(std::chrono::milliseconds(30));
    out.SetValue(b, static_cast<int32_t>(10 * (b + 1)));
    CrossCoreSetFlag<0, PIPE_MTE3>(3);
    CrossCoreWaitFlag<0, PIPE_MTE3>(3);
    out.SetValue(8 + b, out.GetValue(0) + out.GetValue(1) + out.GetValue(2));
    CrossCoreSetFlag<1, PIPE_S>(4);  // mode 1: this core's own group
    CrossCoreWaitFlag<1, PIPE_S>(4);
}

void case_cross_core_cube() {
    CrossCoreSetFlag<2, PIPE_MTE3>(5);  // to the cube core: recorded
    CrossCoreWaitFlag<2, PIPE_S>(6);    // from the cube core, which never runs here
}

// SetAtomicType<int32_t> makes the byte-moving legacy copy accumulate int32 elements: two adds double the values.
void case_atomic_type() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a;
    pipe.InitBuffer(a, 64);
    LocalTensor<int32_t> x = a.Get<int32_t>();
    for (int k = 0; k < 16; ++k) x.SetValue(k, 1000 * k - 3);
    SetAtomicType<int32_t>();
    set_atomic_add();
    copy_ubuf_to_gm(G<int32_t>(1), (__ubuf__ int32_t*)x.GetPhyAddr(), 0, 1, 2, 0, 0);
    copy_ubuf_to_gm(G<int32_t>(1), (__ubuf__ int32_t*)x.GetPhyAddr(), 0, 1, 2, 0, 0);
    set_atomic_none();
}

// InitGlobalMemory zeroes part of an output (4..11), then an atomic add accumulates into it.
void case_init_gm() {
    GlobalTensor<float> out;
    out.SetGlobalBuffer(G<float>(1), 64);
    for (int k = 0; k < 16; ++k) out.SetValue(k, -1.0f);
    InitGlobalMemory(out[4], 8, 0.0f);
    InitGlobalMemory(out[12], 2, 2.5f);
}

// Sort32 on two runs of 32, MrgSort of the two runs, Extract; the high-level Sort with isFullSort; half scores.
// Scores are (k * 37) % 64 - 20 with ties at k and k + 64 / gcd, indices are 100 + k.
template <typename T>
void sort_case(const char* tag) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 8192);
    LocalTensor<uint8_t> all = buf.Get<uint8_t>();
    LocalTensor<T> score = all.ReinterpretCast<T>();
    LocalTensor<uint32_t> index = all[512].ReinterpretCast<uint32_t>();
    LocalTensor<T> runs = all[1024].ReinterpretCast<T>(), merged = all[2048].ReinterpretCast<T>();
    LocalTensor<T> values = all[3072].ReinterpretCast<T>(), full = all[4096].ReinterpretCast<T>();
    LocalTensor<uint32_t> idx = all[5120].ReinterpretCast<uint32_t>();
    for (int k = 0; k < 64; ++k) {
        score.SetValue(k, static_cast<float>((k * 37) % 64 / 2 - 10));  // every value twice: ties
        index.SetValue(k, static_cast<uint32_t>(100 + k));
    }
    Sort32(runs, score, index, 2);
    const uint16_t lengths[4] = {32, 32, 0, 0};
    uint32_t taken[4] = {0, 0, 0, 0};
    MrgSort<T, false>(merged, MrgSortSrcList<T>(runs, runs[32 * 8 / sizeof(T)], runs, runs), lengths, taken, 0b11, 1);
    Extract(values, idx, merged, 2);
    std::printf("%s_values", tag);
    for (int k = 0; k < 64; ++k) std::printf(" %g", static_cast<double>(static_cast<float>(values.GetValue(k))));
    std::printf("\n%s_index", tag);
    for (int k = 0; k < 64; ++k) std::printf(" %u", idx.GetValue(k));
    std::printf("\n%s_taken %u %u\n", tag, taken[0], taken[1]);
    LocalTensor<T> concat = all[6144].ReinterpretCast<T>();
    Concat(concat, score, values, 4);
    Sort<T, true>(full, concat, index, values, 2);
    Extract(values, idx, full, 2);
    std::printf("%s_full", tag);
    for (int k = 0; k < 64; ++k) std::printf(" %u", idx.GetValue(k));
    std::printf("\n");
    // Exhausted suspension: the merge stops when the 4-element list runs out.
    const uint16_t uneven[4] = {4, 32, 0, 0};
    MrgSort<T, true>(merged, MrgSortSrcList<T>(runs, runs[32 * 8 / sizeof(T)], runs, runs), uneven, taken, 0b11, 1);
    std::printf("%s_suspended %u %u\n", tag, taken[0], taken[1]);
    MrgSort4Info info(uneven, false, 0b11, 1);  // the basic form, merging both lists to the end
    MrgSort(merged, MrgSortSrcList<T>(runs, runs[32 * 8 / sizeof(T)], runs, runs), info);
    Extract(values, idx, merged, 1);
    std::printf("%s_basic", tag);
    for (int k = 0; k < 32; ++k) std::printf(" %u", idx.GetValue(k));
    std::printf("\n");
}

void case_sort() {
    sort_case<float>("f32");
    sort_case<half>("f16");
}

// DataCopyPad with brace lists, as public kernels write it: four elements select DataCopyParams / DataCopyPadParams.
// Also a bfloat16_t built from a uint64_t.
void case_pad_braces() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a;
    pipe.InitBuffer(a, 256);
    LocalTensor<float> x = a.Get<float>();
    GlobalTensor<float> in;
    in.SetGlobalBuffer(G<float>(0), 64);
    const uint32_t count = 8;
    DataCopyPad(x, in[3], {1, static_cast<uint16_t>(count * sizeof(float)), 0, 0}, {false, 0, 0, 0});
    DataCopyExtParams ext{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
    DataCopyPad(x[8], in[20], ext, DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
    print("pad", x.data(), 16);
    const uint64_t big = 3;
    bfloat16_t b = static_cast<bfloat16_t>(big);
    print("bf16", &b, 1);
}

// WaitPreBlock / NotifyNextBlock order four blocks (started in any order) through one GM word; each appends its id
// to a list in GM. Also GetSortLen and DisableDmaAtomic.
void case_ordered() {
    GlobalTensor<int32_t> ws, out;
    ws.SetGlobalBuffer(G<int32_t>(2), 64);
    out.SetGlobalBuffer(G<int32_t>(1), 64);
    TPipe pipe;
    TBuf<TPosition::VECCALC> ub;
    pipe.InitBuffer(ub, 32);
    const int64_t b = GetBlockIdx();
    std::this_thread::sleep_for(std::chrono::milliseconds(10 * (3 - b)));  // the last block is ready first
    WaitPreBlock(ws, ub.Get<int32_t>());
    const int32_t n = out.GetValue(15);
    out.SetValue(n, static_cast<int32_t>(b));
    out.SetValue(15, n + 1);
    NotifyNextBlock(ws, ub.Get<int32_t>());
    if (b == 0) {
        out.SetValue(8, static_cast<int32_t>(GetSortLen<float>(10) * 100 + GetSortLen<half>(10)));
        SetAtomicAdd<int32_t>();
        DisableDmaAtomic();
        out.SetValue(9, tw::cur().atomic);
    }
}

// Pattern reductions over a {4, 8} tensor x[r][c] = (r + 1) * (c - 3), and Broadcast in each direction.
void case_pattern() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf, tmp;
    pipe.InitBuffer(buf, 4096);
    pipe.InitBuffer(tmp, 1024);
    LocalTensor<float> x = buf.Get<float>(32), d = buf.Get<float>()[64], b = buf.Get<float>()[128];
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 8; ++c) x.SetValue(r * 8 + c, static_cast<float>((r + 1) * (c - 3)));
    const uint32_t shape[2] = {4, 8};
    ReduceSum<float, Pattern::Reduce::AR, false>(d, x, tmp.Get<uint8_t>(), shape, true);
    print("sum_ar", d.data(), 4);
    ReduceSum<float, Pattern::Reduce::RA>(d, x, tmp.Get<uint8_t>(), shape, true);
    print("sum_ra", d.data(), 8);
    ReduceMax<float, Pattern::Reduce::AR>(d, x, tmp.Get<uint8_t>(), shape, true);
    print("max_ar", d.data(), 4);
    ReduceMin<float, Pattern::Reduce::RA>(d, x, tmp.Get<uint8_t>(), shape, true);
    print("min_ra", d.data(), 8);
    const uint32_t col[2] = {4, 1}, row[2] = {1, 8}, one[1] = {1}, five[1] = {5};
    Broadcast<float, 2, 1>(b, x, shape, col, tmp.Get<uint8_t>());  // x[0..3] as a column
    print("bcast_col", b.data(), 32);
    Broadcast<float, 2, 0>(b, x, shape, row);                      // x[0..7] as a row
    print("bcast_row", b.data(), 32);
    Broadcast<float, 1, 0>(b, x[7], five, one);
    print("bcast_one", b.data(), 6);
    ReduceSum<float, Pattern::Reduce::AR>(d, x, tmp.Get<uint8_t>(), shape, false);  // unaligned inner axis
}

const std::map<std::string, std::pair<std::function<void()>, int>> CASES = {
    {"aliases", {case_aliases, 1}},
    {"tbuf", {case_tbuf, 1}},
    {"index", {case_index, 1}},
    {"legacy_vector", {case_legacy_vector, 1}},
    {"legacy_copy", {case_legacy_copy, 1}},
    {"legacy_flags_unpaired", {case_legacy_flags_unpaired, 1}},
    {"identity", {case_identity, 3}},
    {"fused", {case_fused, 1}},
    {"math", {case_math, 1}},
    {"scalar_unit", {case_scalar_unit, 1}},
    {"allocator", {case_allocator, 1}},
    {"ib_sync", {case_ib_sync, 2}},
    {"atomic_type", {case_atomic_type, 1}},
    {"init_gm", {case_init_gm, 1}},
    {"sort", {case_sort, 1}},
    {"pad_braces", {case_pad_braces, 1}},
    {"ordered", {case_ordered, 4}},
    {"pattern", {case_pattern, 1}},
    {"cross_core", {case_cross_core, 3}},
    {"cross_core_cube", {case_cross_core_cube, 1}},
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2 || CASES.count(argv[1]) == 0) {
        std::fprintf(stderr, "usage: api_driver <case>\n");
        return 2;
    }
    const auto& [fn, blocks] = CASES.at(argv[1]);
    tw::Launch l;
    gm.assign(3, std::vector<uint8_t>(256, 0));  // two data buffers and a zeroed sync workspace
    for (size_t i = 0; i < 64; ++i) G<float>(0)[i] = static_cast<float>(i);
    for (size_t i = 0; i < gm.size(); ++i)
        l.regions.push_back(tw::GmRegion{gm[i].data(), gm[i].size(), "gm" + std::to_string(i), gm[i].size()});
    std::fflush(stdout);
    auto r = tw::run_blocks(l, blocks, fn);
    print("gm0", G<float>(0), 8);
    print("gm1", G<float>(1), 16);
    std::printf("gm1_i32");
    for (int i = 0; i < 16; ++i) std::printf(" %d", G<int32_t>(1)[i]);
    std::printf("\n");
    std::printf("gm0_i64");
    for (int i = 0; i < blocks; ++i) std::printf(" %lld", static_cast<long long>(G<int64_t>(0)[i]));
    std::printf("\n");
    for (const tw::Warning& w : r.warnings) std::printf("warn:%s %d\n", w.kind.c_str(), w.line);
    if (r.ok) std::printf("result ok\n");
    else std::printf("result error %s %d %s\n", r.kind.c_str(), r.line, r.message.c_str());
    for (const tw::TraceRecord& t : r.blocks[0].trace)
        if (t.kind == tw::Rec::Instr) std::printf("trace %s %d\n", l.names[t.op].c_str(), int(t.pipe));
    return 0;
}
