// Test driver for the emulator's documented semantics (tests/emulator_vector/test_documented_semantics.py).
//
//   semantics_driver <dir> <case> [key=value ...]
//
// Each case runs a few AscendC calls on fixed inputs inside a one-block launch and prints what the test compares:
// <dir>/out.txt (one value per line, halves as 0xHHHH bit patterns), <dir>/result.txt ("ok" or "error <kind>
// <line>" then the message) and <dir>/warnings.txt ("<kind> <line> <count>" then the message, per warning).
// Calls a test locates carry a `// @name` marker; the test finds the line of the marker to check reported lines.
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "tw/runtime/launcher.h"

using namespace AscendC;

namespace {

std::map<std::string, std::string> kv;
std::ostringstream out;

long I(const char* k, long def = 0) {
    auto it = kv.find(k);
    return it == kv.end() ? def : std::stol(it->second, nullptr, 0);
}

void put_half(half h) {
    char b[16];
    std::snprintf(b, sizeof b, "0x%04X", static_cast<unsigned>(h.bits));
    out << b << "\n";
}

// A UB tensor of n elements, its bytes set to `fill`.
template <typename T>
LocalTensor<T> ub(TPipe& pipe, TBuf<TPosition::VECCALC>& buf, uint32_t n, uint8_t fill) {
    pipe.InitBuffer(buf, static_cast<uint32_t>(n * sizeof(T)));
    LocalTensor<T> t = buf.Get<T>(n);
    std::memset(t.data(), fill, n * sizeof(T));
    return t;
}

// Cast float -> half with every documented mode over out-of-range, infinite and nan inputs.
void case_cast_f2h() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bd;
    const float in[] = {70000.0f, -70000.0f, 65519.0f, 65520.0f, 3.4e38f, -3.4e38f, INFINITY, -INFINITY, NAN, 1.5f};
    const uint32_t n = sizeof(in) / sizeof(in[0]);
    LocalTensor<float> src = ub<float>(pipe, bs, 16, 0);
    LocalTensor<half> dst = ub<half>(pipe, bd, 16, 0);
    for (uint32_t i = 0; i < n; ++i) src.data()[i] = in[i];
    const RoundMode modes[] = {RoundMode::CAST_NONE, RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                               RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC, RoundMode::CAST_ODD};
    for (RoundMode m : modes) {
        Cast(dst, src, m, n);
        for (uint32_t i = 0; i < n; ++i) put_half(dst.data()[i]);
    }
}

// Counter mode: a count-form and a mask-form call with isSetMask = false compute the SetVectorMask count; after
// SetMaskNorm and ResetMask the normal forms are back. Prints how many leading elements each call changed.
// Counter mode with the count-form and mask-form calls, in the three set-ups of the reference's mask section
// (掩码.md): `external` sets counter mode and the count outside the calls (SetMaskCount, SetVectorMask<COUNTER>(n),
// then calls with isSetMask = false); `nomaskcount` sets only the count (the count form switches to counter mode
// itself); `internal` calls a count form with isSetMask = true inside counter mode, which computes its own count and
// leaves normal mode with the default mask. Prints how many elements each of four calls changed, then a value check.
void case_counter() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, b1, b2, b3, b4;
    const uint32_t n = 384;
    LocalTensor<half> src = ub<half>(pipe, bs, n, 0);
    for (uint32_t i = 0; i < n; ++i) src.data()[i] = half(static_cast<float>(i % 100));
    LocalTensor<half> d1 = ub<half>(pipe, b1, n, 0x11), d2 = ub<half>(pipe, b2, n, 0x11),
                      d3 = ub<half>(pipe, b3, n, 0x11), d4 = ub<half>(pipe, b4, n, 0x11);
    const int32_t count = static_cast<int32_t>(I("n", 200));
    const std::string mode = kv["mode"];
    if (mode == "external") {
        SetMaskCount();
        SetVectorMask<half, MaskMode::COUNTER>(count);
        Adds<half, false>(d1, src, half(1.0f), 1);
        Muls<half, false>(d2, src, half(2.0f), MASK_PLACEHOLDER, 1, UnaryRepeatParams(1, 1, 8, 8));
        SetMaskNorm();
        ResetMask();
    } else if (mode == "nomaskcount") {
        SetVectorMask<half, MaskMode::COUNTER>(count);
        Adds<half, false>(d1, src, half(1.0f), 1);
        Muls<half, false>(d2, src, half(2.0f), 1);
    } else {  // internal
        SetMaskCount();
        SetVectorMask<half, MaskMode::COUNTER>(count);
        Adds(d1, src, half(1.0f), 10);
        Muls<half, false>(d2, src, half(2.0f), MASK_PLACEHOLDER, 1, UnaryRepeatParams(1, 1, 8, 8));
    }
    Adds(d3, src, half(1.0f), 10);
    Muls(d4, src, half(2.0f), 16, 2, UnaryRepeatParams(1, 1, 8, 8));
    for (LocalTensor<half>* d : {&d1, &d2, &d3, &d4}) {
        uint32_t changed = 0;
        for (uint32_t i = 0; i < n; ++i) changed += d->data()[i].bits != 0x1111;
        out << changed << "\n";
    }
    const bool d1_ok = float(d1.data()[0]) == 1.0f && float(d1.data()[9]) == float(src.data()[9]) + 1.0f;
    out << (d1_ok ? "values-ok" : "values-wrong") << "\n";
}

// ShiftLeft and ShiftRight of signed and unsigned 16- and 32-bit values, count and mask forms: the reference's own
// example bits (0b1010101010101010), shifted by `by`. Prints each result as an unsigned hex pattern.
template <typename T>
void shifts(TPipe& pipe, TBuf<TPosition::VECCALC>& bs, TBuf<TPosition::VECCALC>& bd, uint64_t bits, int by) {
    const uint32_t n = 256 / sizeof(T);
    LocalTensor<T> src = ub<T>(pipe, bs, n, 0), dst = ub<T>(pipe, bd, n, 0);
    using U = std::make_unsigned_t<T>;
    for (uint32_t i = 0; i < n; ++i) src.data()[i] = static_cast<T>(static_cast<U>(bits));
    src.data()[1] = static_cast<T>(3);
    ShiftLeft(dst, src, static_cast<T>(by), 2);
    for (uint32_t i = 0; i < 2; ++i) out << std::hex << uint64_t(static_cast<U>(dst.data()[i])) << std::dec << "\n";
    ShiftLeft(dst, src, static_cast<T>(by), static_cast<uint64_t>(n), 1, UnaryRepeatParams(1, 1, 8, 8));
    out << std::hex << uint64_t(static_cast<U>(dst.data()[n - 1])) << std::dec << "\n";
    ShiftRight(dst, src, static_cast<T>(by), 1);
    out << std::hex << uint64_t(static_cast<U>(dst.data()[0])) << std::dec << "\n";
}

void case_shift() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b[8];
    const int by = static_cast<int>(I("by", 1));
    shifts<int16_t>(pipe, b[0], b[1], 0xAAAA, by);
    shifts<uint16_t>(pipe, b[2], b[3], 0xAAAA, by);
    shifts<int32_t>(pipe, b[4], b[5], 0xAAAAAAAA, by);
    shifts<uint32_t>(pipe, b[6], b[7], 0xAAAAAAAA, by);
}

// Cast float -> bfloat16_t with every mode the A2 table lists over out-of-range, infinite and nan inputs. Prints
// the bit patterns.
void case_cast_f2bf() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bd;
    const float in[] = {3.4028235e38f, -3.4028235e38f, 3.3961e38f, 3.3895314e38f, INFINITY, -INFINITY, NAN, 1.5f};
    const uint32_t n = sizeof(in) / sizeof(in[0]);
    LocalTensor<float> src = ub<float>(pipe, bs, 16, 0);
    LocalTensor<bfloat16_t> dst = ub<bfloat16_t>(pipe, bd, 16, 0);
    for (uint32_t i = 0; i < n; ++i) src.data()[i] = in[i];
    const RoundMode modes[] = {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                               RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC};
    for (RoundMode m : modes) {
        Cast(dst, src, m, n);
        for (uint32_t i = 0; i < n; ++i) {
            char w[16];
            std::snprintf(w, sizeof w, "0x%04X", static_cast<unsigned>(dst.data()[i].bits));
            out << w << "\n";
        }
    }
}

// Rsqrt on half and float, count and mask forms.
void case_rsqrt() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b1, b2, b3, b4;
    LocalTensor<float> f = ub<float>(pipe, b1, 64, 0), fo = ub<float>(pipe, b2, 64, 0);
    LocalTensor<half> h = ub<half>(pipe, b3, 128, 0), ho = ub<half>(pipe, b4, 128, 0);
    for (uint32_t i = 0; i < 64; ++i) f.data()[i] = static_cast<float>(i + 1);
    for (uint32_t i = 0; i < 128; ++i) h.data()[i] = half(static_cast<float>(i + 1));
    Rsqrt(fo, f, 64);  // @rsqrt_count
    Rsqrt(ho, h, 128, 1, UnaryRepeatParams(1, 1, 8, 8));  // @rsqrt_mask
    for (uint32_t i = 0; i < 64; ++i) {
        char w[32];
        std::snprintf(w, sizeof w, "%a", static_cast<double>(fo.data()[i]));
        out << w << "\n";
    }
    for (uint32_t i = 0; i < 128; ++i) put_half(ho.data()[i]);
}

// DataCopyPad GM -> UB, three rows of 5 halves (10 bytes) 2 halves apart in GM, one spare 32-byte block between UB
// rows; the padding parameters come from the command line. Prints every UB half.
void case_pad() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bd;
    std::vector<half> gm(64);
    for (size_t i = 0; i < gm.size(); ++i) gm[i] = half(static_cast<float>(i + 1));
    GlobalTensor<half> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    LocalTensor<half> dst = ub<half>(pipe, bd, 96, 0x11);
    DataCopyExtParams p(3, 5 * sizeof(half), 2 * sizeof(half), 1, 0);
    DataCopyPadExtParams<half> pad(I("ispad") != 0, static_cast<uint8_t>(I("left")), static_cast<uint8_t>(I("right")),
                                   half(static_cast<float>(I("value"))));
    DataCopyPad(dst, g, p, pad);
    for (uint32_t i = 0; i < 96; ++i) put_half(dst.data()[i]);
}

// Brcb with dstBlkStride 0 (documented as 1): 2 repeats of 8 halves.
void case_brcb0() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bd;
    LocalTensor<half> src = ub<half>(pipe, bs, 16, 0);
    for (uint32_t i = 0; i < 16; ++i) src.data()[i] = half(static_cast<float>(i + 1));
    LocalTensor<half> dst = ub<half>(pipe, bd, 256, 0x11);
    Brcb(dst, src, 2, BrcbRepeatParams(0, 8));
    for (uint32_t i = 0; i < 256; ++i) put_half(dst.data()[i]);
}

// DataCopy count form of 20 halves (40 bytes): GM -> UB then UB -> GM.
void case_datacopy_tail() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bd;
    std::vector<half> gm(64), back(64, half::from_bits(0x2222));
    for (size_t i = 0; i < gm.size(); ++i) gm[i] = half(static_cast<float>(i + 1));
    GlobalTensor<half> g, h;
    g.SetGlobalBuffer(gm.data(), gm.size());
    h.SetGlobalBuffer(back.data(), back.size());
    LocalTensor<half> dst = ub<half>(pipe, bd, 32, 0x11);
    DataCopy(dst, g, 20);  // @copyin
    // MTE3 reads what MTE2 wrote: ordered by a flag, as on the device (without it the racecheck rightly warns)
    SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    DataCopy(h, dst, 20);  // @copyout
    for (uint32_t i = 0; i < 32; ++i) put_half(dst.data()[i]);
    for (uint32_t i = 0; i < 32; ++i) put_half(back[i]);
}

// Cast int32 -> half through SetDeqScale (the round mode given is ignored).
void case_deq() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bd;
    const int32_t in[] = {0, 1, -3, 1000, 70000, 2147483647, -2147483647 - 1, 3};
    LocalTensor<int32_t> src = ub<int32_t>(pipe, bs, 8, 0);
    LocalTensor<half> dst = ub<half>(pipe, bd, 16, 0x11);
    for (uint32_t i = 0; i < 8; ++i) src.data()[i] = in[i];
    if (I("set")) SetDeqScale(half(static_cast<float>(I("scale_x4")) / 4.0f));
    Cast(dst, src, RoundMode::CAST_FLOOR, 8);  // @deqcast
    for (uint32_t i = 0; i < 8; ++i) put_half(dst.data()[i]);
}

// A round mode the reference's table does not list for the pair.
void case_bad_mode() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b1, b2, b3;
    LocalTensor<half> h = ub<half>(pipe, b1, 64, 0);
    LocalTensor<float> f = ub<float>(pipe, b2, 64, 0);
    LocalTensor<int32_t> i32 = ub<int32_t>(pipe, b3, 64, 0);
    const std::string which = kv["pair"];
    if (which == "h2f") Cast(f, h, RoundMode::CAST_RINT, 64);  // @h2f
    if (which == "f2i") Cast(i32, f, RoundMode::CAST_NONE, 64);  // @f2i
    if (which == "f2h_odd") Cast(h, f, RoundMode::CAST_ODD, 64);  // @f2h_odd
    if (which == "h2f_none") Cast(f, h, RoundMode::CAST_NONE, 64);
}

// Compare of 80 floats (320 bytes, not a multiple of 256): only the first 64 are compared.
void case_compare_tail() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ba, bb, bd;
    LocalTensor<float> a = ub<float>(pipe, ba, 128, 0), b = ub<float>(pipe, bb, 128, 0);
    for (uint32_t i = 0; i < 128; ++i) { a.data()[i] = 2.0f; b.data()[i] = 1.0f; }
    LocalTensor<uint8_t> d = ub<uint8_t>(pipe, bd, 32, 0);
    Compare(d, a, b, CMPMODE::GT, static_cast<uint32_t>(I("count", 80)));  // @compare
    for (uint32_t i = 0; i < 16; ++i) out << int(d.data()[i]) << "\n";
}

// ReduceMax / ReduceSum with a work buffer of `work` elements.
void case_reduce_work() {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bd, bw;
    LocalTensor<float> src = ub<float>(pipe, bs, 1280, 0);
    for (uint32_t i = 0; i < 1280; ++i) src.data()[i] = static_cast<float>(i % 97);
    LocalTensor<float> dst = ub<float>(pipe, bd, 8, 0);
    LocalTensor<float> work = ub<float>(pipe, bw, static_cast<uint32_t>(I("work")), 0);
    const std::string api = kv["api"];
    if (api == "max") ReduceMax(dst, src, work, 512, I("index") != 0);  // @reducemax
    if (api == "max_mask") ReduceMax(dst, src, work, 64, 20, 8, I("index") != 0);  // @reducemax_mask
    if (api == "sum_mask") ReduceSum(dst, src, work, 64, 20, 8);  // @reducesum_mask
    if (api == "sum") ReduceSum(dst, src, work, 1280);
    out << dst.data()[0] << "\n";
}

void case_event() {
    const int32_t id = static_cast<int32_t>(I("id"));
    SetFlag<HardEvent::V_S>(id);  // @setflag
    WaitFlag<HardEvent::V_S>(id);
}

void dispatch(const std::string& c) {
    if (c == "cast_f2h") return case_cast_f2h();
    if (c == "counter") return case_counter();
    if (c == "shift") return case_shift();
    if (c == "cast_f2bf") return case_cast_f2bf();
    if (c == "rsqrt") return case_rsqrt();
    if (c == "pad") return case_pad();
    if (c == "brcb0") return case_brcb0();
    if (c == "datacopy_tail") return case_datacopy_tail();
    if (c == "deq") return case_deq();
    if (c == "bad_mode") return case_bad_mode();
    if (c == "compare_tail") return case_compare_tail();
    if (c == "reduce_work") return case_reduce_work();
    if (c == "event") return case_event();
    throw std::runtime_error("no case " + c);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: semantics_driver <dir> <case> [key=value ...]\n");
        return 2;
    }
    const std::string dir = argv[1], c = argv[2];
    for (int i = 3; i < argc; ++i) {
        const std::string a = argv[i];
        const size_t eq = a.find('=');
        kv[a.substr(0, eq)] = eq == std::string::npos ? "1" : a.substr(eq + 1);
    }
    tw::Launch l;
    tw::LaunchResult r = tw::run_blocks(l, 1, [&] { dispatch(c); });
    std::ofstream(dir + "/out.txt") << out.str();
    {
        std::ofstream f(dir + "/result.txt");
        if (r.ok) f << "ok\n";
        else f << "error " << r.kind << " " << r.line << "\n" << r.message << "\n";
    }
    std::ofstream f(dir + "/warnings.txt");
    for (const tw::Warning& w : r.warnings) f << w.kind << " " << w.line << " " << w.count << "\n" << w.message << "\n";
    return 0;
}
