// Test driver for API forms the public-operator corpus needed beyond the emulator's first surface: the three-argument
// TPipe::InitBuffer on a TBuf, ParamOffset<T>, the SliceInfo forms of DataCopy and SetPadValue with DataCopyPad,
// TBuf's queue calls, Copy in counter mode, get_imm and the instruction-cache prefetch.
//
//   gaps_driver <case>
//
// Each case is a small kernel written for this test, run in a launch of its own. It prints `key value...` lines that
// test_corpus_gaps.py checks against the documented semantics, then `result ok` or `result error <kind> <line> ...`,
// then one `trace <name> <pipe> <bytes> <repeats>` line per instruction of block 0.
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "tw/runtime/launcher.h"
#include "tiling/tiling_api.h"  // SoftMaxTilingFunc, called here the way a host calls it
// Twice, as an operator whose kernel includes its guard-less tiling-key header directly and through another header.
#include "tpl_twice_key.h"
#include "tpl_twice_key.h"

using namespace AscendC;

namespace {

std::vector<std::vector<uint8_t>> gm;  // GM buffers of the running case, registered with the launch

template <typename T>
T* G(size_t i) { return reinterpret_cast<T*>(gm[i].data()); }

template <typename T>
void print(const char* key, const T* p, size_t n) {
    std::printf("%s", key);
    for (size_t i = 0; i < n; ++i) std::printf(" %.9g", static_cast<double>(static_cast<float>(p[i])));
    std::printf("\n");
}

// InitBuffer(TBuf, num, len): num blocks of len bytes (each rounded up to 32), one TBuf over all of them.
void case_tbuf_num() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> one, two;
    TBuf<> after;
    pipe.InitBuffer(one, 1, 100);  // 128 bytes
    pipe.InitBuffer(two, 2, 64);   // 128 bytes
    pipe.InitBuffer(after, 32);
    LocalTensor<float> a = one.Get<float>();
    LocalTensor<float> b = two.Get<float>();
    LocalTensor<float> c = after.Get<float>();
    std::printf("sizes %u %u %u\n", a.GetSize(), b.GetSize(), c.GetSize());
    std::printf("addr %llu %llu %llu\n", static_cast<unsigned long long>(a.GetPhyAddr()),
                static_cast<unsigned long long>(b.GetPhyAddr()), static_cast<unsigned long long>(c.GetPhyAddr()));
}

void case_tbuf_num_overflow() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> big;
    pipe.InitBuffer(big, 2, 100 * 1024);  // 200 KiB: over the 192 KiB UB (a warning: the device does not check)
    LocalTensor<float> all = big.Get<float>();
    Duplicate(all, 1.0f, 2 * 100 * 1024 / 4);  // writing all of it reaches past the UB's end: the error
}

// Four blocks each write their id at the start of their share (ParamOffset<int32_t>(gm, 4)).
void case_param_offset() {
    GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(ParamOffset<int32_t>(G<uint8_t>(1), 4)), 4);
    g.SetValue(0, 100 + static_cast<int32_t>(GetBlockIdx()));
    g.SetValue(3, 200 + static_cast<int32_t>(GetBlockIdx()));
}

// The reference's slice example: from a 3 x 87 float source, segments of 24 elements (3 blocks) 7 apart on rows 0
// and 2, into a 2 x 48 UB tile; then the tile goes back to rows 0 and 2 of a 3 x 64 GM array as two 24-element
// segments from column 8, 8 apart (row 1 untouched).
void case_slice() {
    GlobalTensor<float> src, dst;
    src.SetGlobalBuffer(G<float>(0), 3 * 87);
    dst.SetGlobalBuffer(G<float>(1), 3 * 64);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 2 * 48 * sizeof(float));
    LocalTensor<float> t = buf.Get<float>();
    SliceInfo srcIn[] = {{16, 70, 7, 3, 87}, {0, 2, 1, 1, 3}};
    SliceInfo tile[] = {{0, 47, 0, 3, 48}, {0, 1, 0, 1, 2}};
    DataCopy(t, src, tile, srcIn, 2);
    print("tile", t.data(), 96);
    SliceInfo dstOut[] = {{8, 63, 8, 3, 64}, {0, 2, 1, 1, 3}};
    DataCopy(dst, t, dstOut, tile, 2);
}

// One dimension, a single segment: the 1-D form is a plain offset copy.
void case_slice_1d() {
    GlobalTensor<float> src;
    src.SetGlobalBuffer(G<float>(0), 64);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64);
    LocalTensor<float> t = buf.Get<float>();
    SliceInfo s[] = {{8, 23, 0, 2, 64}};
    SliceInfo d[] = {{0, 15, 0, 2, 16}};
    DataCopy(t, src, d, s);
    print("tile", t.data(), 16);
}

// The two sides select different element counts (32 vs 16): an error.
void case_slice_mismatch() {
    GlobalTensor<float> src;
    src.SetGlobalBuffer(G<float>(0), 64);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 128);
    LocalTensor<float> t = buf.Get<float>();
    SliceInfo s[] = {{0, 31, 0, 4, 64}};
    SliceInfo d[] = {{0, 15, 0, 2, 32}};
    DataCopy(t, src, d, s);
}

// DataCopyPad with isPad = false and right padding: SetPadValue's value fills the padding and the filler; a
// paddingValue in the params is ignored. Rows of 5 floats + 3 padding = 32 bytes.
void case_pad_value() {
    GlobalTensor<float> src;
    src.SetGlobalBuffer(G<float>(0), 64);
    GlobalTensor<half> srch;
    srch.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(G<uint8_t>(1)), 64);
    for (int i = 0; i < 8; ++i) srch.SetValue(i, static_cast<half>(static_cast<float>(i + 1)));
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 512);
    LocalTensor<float> t = buf.Get<float>();
    SetPadValue(-1.0f);
    DataCopyPad(t, src[2], DataCopyExtParams{2, 5 * sizeof(float), 3 * sizeof(float), 0, 0},
                DataCopyPadExtParams<float>{false, 0, 3, 9.0f});
    print("pad", t.data(), 16);
    // half: 2 left, 3 data, 1 right = 6 elements, filler up to 16 elements from the register.
    LocalTensor<half> h = buf.GetWithOffset<half>(16, 256);
    SetPadValue<half>(static_cast<half>(0.5f));
    DataCopyPad(h, srch, DataCopyExtParams{1, 3 * sizeof(half), 0, 0, 0}, DataCopyPadExtParams<half>{false, 2, 1, 0});
    print("padh", h.data(), 16);
}

// Without SetPadValue, isPad = false leaves padding unspecified: the emulator's poison (all bits set, a NaN).
void case_pad_unset() {
    GlobalTensor<float> src;
    src.SetGlobalBuffer(G<float>(0), 64);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64);
    LocalTensor<float> t = buf.Get<float>();
    DataCopyPad(t, src, DataCopyExtParams{1, 5 * sizeof(float), 0, 0, 0}, DataCopyPadExtParams<float>{false, 0, 3, 9.0f});
    print("pad", t.data(), 8);
}

// SetL2CacheHint with the reference's enumerators, on the source (default read/write mode) and on the destination
// (an explicit mode); the copy through UB is the same with either hint.
static_assert(static_cast<int>(CacheMode::CACHE_MODE_DISABLE) == 0 && static_cast<int>(CacheMode::CACHE_MODE_NORMAL) == 1,
              "CacheMode values as in the API reference");
static_assert(CacheRwMode::READ == 1 && CacheRwMode::WRITE == 2 && CacheRwMode::RW == 3,
              "CacheRwMode values as in the API reference");
void case_l2_cache_hint() {
    GlobalTensor<float> src, dst;
    src.SetGlobalBuffer(G<float>(0), 16);
    dst.SetGlobalBuffer(G<float>(1), 16);
    src.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
    dst.SetL2CacheHint<CacheRwMode::WRITE>(AscendC::CacheMode::CACHE_MODE_NORMAL);
    LocalTensor<float> t(TPosition::VECCALC, 0, 16);
    DataCopy(t, src, 16);
    SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    DataCopy(dst, t, 16);
}

// The twice-expanded ASCENDC_TPL_* declarations are one declaration: two parameters, and the selection's 2 x 1
// combinations (mode 0 or 2, flag 1).
constexpr size_t kTplCombos = ::tw::tplargs::combo_count(tw_tpl_decl, tw_tpl_sel, true);
static_assert(sizeof(tw_tpl_decl) / sizeof(tw_tpl_decl[0]) == 2, "one declaration of two parameters");

void case_tpl_twice() {
    constexpr auto table = ::tw::tplargs::combos<kTplCombos>(tw_tpl_decl, tw_tpl_sel, true);
    std::printf("tpl %zu", kTplCombos);
    for (const auto& c : table) std::printf(" %llu,%llu", static_cast<unsigned long long>(c.v[0]),
                                            static_cast<unsigned long long>(c.v[1]));
    std::printf("\n");
}

// SoftMax over 3 rows of 16 floats (GM 0's values 0..47 scaled by 0.25), with the row max and sum out, then
// SimpleSoftMax of the same rows from those; then half data with float sum/max, shape from the shape info with the
// reductions over the first 12 elements of each row; the tiling comes from the host's SoftMaxTilingFunc.
void case_softmax() {
    GlobalTensor<float> src;
    src.SetGlobalBuffer(G<float>(0), 64);
    TPipe pipe;
    TBuf<TPosition::VECCALC> xb, yb, sb, mb, zb, hb, hy, fs, fm;
    pipe.InitBuffer(xb, 48 * 4);
    pipe.InitBuffer(yb, 48 * 4);
    pipe.InitBuffer(sb, 3 * 32);
    pipe.InitBuffer(mb, 3 * 32);
    pipe.InitBuffer(zb, 48 * 4);
    pipe.InitBuffer(hb, 48 * 2);
    pipe.InitBuffer(hy, 48 * 2);
    pipe.InitBuffer(fs, 3 * 32);
    pipe.InitBuffer(fm, 3 * 32);
    LocalTensor<float> x = xb.Get<float>(), y = yb.Get<float>(), s = sb.Get<float>(), m = mb.Get<float>();
    DataCopy(x, src, 48);
    Muls(x, x, 0.25f, 48);
    SoftMaxTiling tiling;  // the kernel-side name of the struct the host fills
    SoftMaxTilingFunc(ge::Shape({3, 16}), sizeof(float), GetSoftMaxMinTmpSize(ge::Shape({3, 16}), 4, false), tiling);
    SoftMax<float>(y, s, m, x, tiling);
    print("sm", y.data(), 48);
    print("sum", s.data(), 24);
    print("max", m.data(), 24);
    LocalTensor<float> z = zb.Get<float>();
    SimpleSoftMax<float>(z, s, m, x, tiling);
    print("simple", z.data(), 48);
    LocalTensor<half> h = hb.Get<half>(), hout = hy.Get<half>();
    Cast(h, x, RoundMode::CAST_NONE, 48);
    LocalTensor<float> hs = fs.Get<float>(), hm = fm.Get<float>();
    SoftMax<half, float>(hout, hs, hm, h, tiling, SoftMaxShapeInfo{3, 16, 3, 12});
    print("smh", hout.data(), 48);
    print("sumh", hs.data(), 24);
}

// TBuf's queue calls: AllocTensor and DeQue give the whole buffer (as Get), EnQue and FreeTensor change nothing.
void case_tbuf_queue_calls() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64 * sizeof(float));
    LocalTensor<float> a = buf.AllocTensor<float>();
    for (int i = 0; i < 64; ++i) a.SetValue(i, static_cast<float>(i) * 0.5f);
    buf.EnQue(a);
    LocalTensor<float> d = buf.DeQue<float>();
    buf.FreeTensor(d);
    LocalTensor<float> g = buf.Get<float>();
    std::printf("sizes %u %u %u\n", a.GetSize(), d.GetSize(), g.GetSize());
    std::printf("addr %llu %llu\n", static_cast<unsigned long long>(d.GetPhyAddr()),
                static_cast<unsigned long long>(g.GetPhyAddr()));
    print("vals", g.data(), 4);
}

// Copy in counter mode: the mask register's count is per repeat and repeatTime applies. (1) the reference's
// scenario 3, [18, 64] int32 -> the first block of each row, one repeat of 144 elements, srcStride 8; (2) one row
// of 16 floats replicated 3 times (srcRepeatSize 0, dstRepeatSize 2 blocks).
void case_copy_counter() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 2048 * 4);
    LocalTensor<int32_t> src = buf.Get<int32_t>();
    LocalTensor<int32_t> dst = src[18 * 64];
    for (int i = 0; i < 18 * 64; ++i) src.SetValue(i, i);
    for (int i = 0; i < 160; ++i) dst.SetValue(i, -1);
    SetMaskCount();
    SetVectorMask<int32_t, MaskMode::COUNTER>(144);
    Copy<int32_t, false>(dst, src, MASK_PLACEHOLDER, 1, {1, 8, 8, 8});
    SetMaskNorm();
    ResetMask();
    print("rows", dst.data(), 160);
    LocalTensor<float> f = buf.GetWithOffset<float>(16, 0);
    LocalTensor<float> rep = buf.GetWithOffset<float>(64, 256);
    for (int i = 0; i < 16; ++i) f.SetValue(i, static_cast<float>(i + 1));
    for (int i = 0; i < 64; ++i) rep.SetValue(i, -1.0f);
    SetMaskCount();
    SetVectorMask<float, MaskMode::COUNTER>(16);
    Copy<float, false>(rep, f, MASK_PLACEHOLDER, 3, {1, 1, 2, 0});
    SetMaskNorm();
    ResetMask();
    print("replicated", rep.data(), 64);
}

// get_imm: the immediate of up to four 16-bit pieces; cast to a UB pointer, it addresses the UB at that offset.
void case_get_imm() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64);
    LocalTensor<uint32_t> t = buf.Get<uint32_t>();
    t.SetValue(0, 7u);
    t.SetValue(3, 42u);
    uint64_t packed = get_imm(1, 2, 3);
    __ubuf__ uint32_t* p = (__ubuf__ uint32_t*)get_imm(0);
    __ubuf__ uint32_t* q = (__ubuf__ uint32_t*)get_imm(12);
    std::printf("imm %llu %llu %u %u\n", static_cast<unsigned long long>(packed),
                static_cast<unsigned long long>(get_imm(0x12345)), p[0], q[0]);
}

// ICachePreLoad / PRELOAD: no data changes, one scalar instruction each; the length must stay below 8 (2 KiB units
// of the vector core's 16 KiB instruction cache).
void case_preload() {
    ICachePreLoad(2);
    PRELOAD(3);
}
void case_preload_too_long() { PRELOAD(8); }

const std::map<std::string, std::pair<std::function<void()>, int>> CASES = {
    {"softmax", {case_softmax, 1}},
    {"tbuf_queue_calls", {case_tbuf_queue_calls, 1}},
    {"copy_counter", {case_copy_counter, 1}},
    {"get_imm", {case_get_imm, 1}},
    {"preload", {case_preload, 1}},
    {"preload_too_long", {case_preload_too_long, 1}},
    {"tpl_twice", {case_tpl_twice, 1}},
    {"tbuf_num", {case_tbuf_num, 1}},
    {"tbuf_num_overflow", {case_tbuf_num_overflow, 1}},
    {"param_offset", {case_param_offset, 4}},
    {"slice", {case_slice, 1}},
    {"slice_1d", {case_slice_1d, 1}},
    {"slice_mismatch", {case_slice_mismatch, 1}},
    {"pad_value", {case_pad_value, 1}},
    {"pad_unset", {case_pad_unset, 1}},
    {"l2_cache_hint", {case_l2_cache_hint, 1}},
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2 || CASES.count(argv[1]) == 0) {
        std::fprintf(stderr, "usage: gaps_driver <case>\n");
        return 2;
    }
    const auto& [fn, blocks] = CASES.at(argv[1]);
    tw::Launch l;
    gm.assign(2, std::vector<uint8_t>(2048, 0));
    for (size_t i = 0; i < 3 * 87; ++i) G<float>(0)[i] = static_cast<float>(i);
    for (size_t i = 0; i < gm.size(); ++i)
        l.regions.push_back(tw::GmRegion{gm[i].data(), gm[i].size(), "gm" + std::to_string(i), gm[i].size()});
    std::fflush(stdout);
    auto r = tw::run_blocks(l, blocks, fn);
    print("gm1", G<float>(1), 3 * 64);
    std::printf("gm1_i32");
    for (int i = 0; i < 16; ++i) std::printf(" %d", G<int32_t>(1)[i]);
    std::printf("\n");
    if (r.ok) std::printf("result ok\n");
    else std::printf("result error %s %d %s\n", r.kind.c_str(), r.line, r.message.c_str());
    for (const tw::TraceRecord& t : r.blocks[0].trace)
        if (t.kind == tw::Rec::Instr)
            std::printf("trace %s %d %llu %u\n", l.names[t.op].c_str(), int(t.pipe),
                        static_cast<unsigned long long>(t.bytes), t.repeats);
    return 0;
}
