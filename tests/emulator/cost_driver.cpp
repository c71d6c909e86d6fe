// Test driver for the cost-model agreement test (test_cost_agreement.py): one AscendC call, run on one block through
// the emulator's API headers, then scheduled by the timing model (tw/timing/model.h) with the constants read from stdin as
// `timing KEY VALUES...` lines (the run spec's form, device/emulator/timing.py). It prints the busy cycles of each
// pipe and the call's trace record, which the test compares with analysis.chip.TimingConfig's estimate.
//
//   cost_driver <case> <dtype> <n> [<m> ...]
//
// Cases (dtype: half, float, int16 or int32):
//   copy_in  N         DataCopy GM -> UB of N elements (count form)
//   copy_out N         DataCopy UB -> GM of N elements
//   params   ROWS BLK  DataCopy GM -> UB with DataCopyParams: ROWS blocks of BLK 32-byte units
//   pad      ROWS LEN  DataCopyPad GM -> UB: ROWS rows of LEN bytes
//   add N / adds N / sigmoid N   one count-form vector instruction over N elements
//   chain N            Add, Add: two independent vector instructions back to back
//   chain_barrier N    Add, PipeBarrier<PIPE_V>, Add: the second waits for the first to complete
//   copy_flag_add N    DataCopy GM -> UB, SetFlag/WaitFlag MTE2 -> V, Add over what was copied
//
// UB bank cases (tw/timing/ub_banks.h), operands at fixed UB byte addresses (decimal or 0x hex):
//   add_mask_at R SRC0 SRC1 DST [BLK0 REP0]  Add, full mask, R repeats, block / repeat strides 1 / 8 (src0's BLK0 /
//                                            REP0 when given)
//   add_count_at N SRC0 SRC1 DST             count-form Add over N elements
//   copy_at R DSTSTRIDE                      Copy, full mask, R repeats, CopyRepeatParams{DSTSTRIDE, 1, 1, 8}, src at
//                                            0x0 and dst at 0x10000 (an ND -> NZ column copy)
//
// The buffers of the other cases are laid out without bank conflicts (x at 0x0, y at 0x10100, z at 0x20100: x and y
// in opposite halves of the bank groups, z in bank 2), so their vector costs are the chip table's alone.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "tw/runtime/launcher.h"
#include "tw/timing/model.h"

using namespace AscendC;

namespace {

constexpr size_t kGmBytes = 1 << 20;
std::vector<std::vector<uint8_t>> gm;

// A tensor of `bytes` at UB byte address `addr` (static tensor programming).
template <typename T>
LocalTensor<T> at(uint64_t addr, uint64_t bytes) {
    return LocalTensor<T>(TPosition::VECCALC, static_cast<uint32_t>(addr), static_cast<uint32_t>(bytes / sizeof(T)));
}

// The UB bank cases: no TPipe, every operand where the arguments put it.
template <typename T>
bool run_bank_case(const std::string& name, uint32_t n, const std::vector<uint64_t>& arg) {
    constexpr uint64_t kSpan = 40 * 1024;  // covers each operand of every case below
    if (name == "add_mask_at" || name == "add_count_at") {
        LocalTensor<T> x = at<T>(arg.at(0), kSpan), y = at<T>(arg.at(1), kSpan), z = at<T>(arg.at(2), kSpan);
        if (name == "add_count_at") {
            Add(z, x, y, static_cast<int32_t>(n));
            return true;
        }
        BinaryRepeatParams p(1, 1, 1, 8, 8, 8);
        if (arg.size() > 4) {
            p.src0BlkStride = static_cast<uint8_t>(arg[3]);
            p.src0RepStride = static_cast<uint8_t>(arg[4]);
        }
        Add(z, x, y, 256 / sizeof(T), static_cast<uint8_t>(n), p);
        return true;
    }
    if (name == "copy_at") {
        LocalTensor<T> src = at<T>(0x0, kSpan), dst = at<T>(0x10000, kSpan);
        Copy(dst, src, 256 / sizeof(T), static_cast<uint8_t>(n),
             CopyRepeatParams(static_cast<uint16_t>(arg.at(0)), 1, 1, 8));
        return true;
    }
    return false;
}

template <typename T>
void run_case(const std::string& name, uint32_t n, uint32_t m, const std::vector<uint64_t>& arg) {
    if (run_bank_case<T>(name, n, arg)) return;
    GlobalTensor<T> src, dst;
    src.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(gm[0].data()), kGmBytes / sizeof(T));
    dst.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(gm[1].data()), kGmBytes / sizeof(T));
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b, c;
    pipe.InitBuffer(a, 64 * 1024 + 256);
    pipe.InitBuffer(b, 64 * 1024);
    pipe.InitBuffer(c, 64 * 1024 - 256);
    LocalTensor<T> x = a.Get<T>(), y = b.Get<T>(), z = c.Get<T>();
    if (name == "copy_in") {
        DataCopy(x, src, n);
    } else if (name == "copy_out") {
        DataCopy(dst, x, n);
    } else if (name == "params") {
        DataCopyParams p;
        p.blockCount = static_cast<uint16_t>(n);
        p.blockLen = static_cast<uint16_t>(m);
        DataCopy(x, src, p);
    } else if (name == "pad") {
        DataCopyPad(x, src, DataCopyExtParams(static_cast<uint16_t>(n), m, 0, 0, 0),
                    DataCopyPadExtParams<T>(false, 0, 0, 0));
    } else if (name == "add") {
        Add(z, x, y, n);
    } else if (name == "adds") {
        Adds(z, x, static_cast<T>(1), n);
    } else if (name == "sigmoid") {
        Sigmoid(z, x, n);
    } else if (name == "chain" || name == "chain_barrier") {
        Add(z, x, y, n);
        if (name == "chain_barrier") PipeBarrier<PIPE_V>();
        Add(x, y, y, n);
    } else if (name == "copy_flag_add") {
        DataCopy(x, src, n);
        SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
        Add(z, x, y, n);
    } else {
        std::fprintf(stderr, "unknown case %s\n", name.c_str());
        std::exit(2);
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: cost_driver <case> <dtype> <n> [<m> ...]\n");
        return 2;
    }
    const std::string name = argv[1], dtype = argv[2];
    const uint32_t n = static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10));
    std::vector<uint64_t> arg;  // the arguments after n (base 0: decimal or 0x hex)
    for (int i = 4; i < argc; ++i) arg.push_back(std::strtoull(argv[i], nullptr, 0));
    const uint32_t m = arg.empty() ? 0 : static_cast<uint32_t>(arg[0]);

    tw::TimingParams params;
    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string word, key;
        in >> word >> key;
        if (word != "timing" || !params.set(key, in)) {
            std::fprintf(stderr, "bad timing line: %s\n", line.c_str());
            return 2;
        }
    }

    tw::Launch l;
    gm.assign(2, std::vector<uint8_t>(kGmBytes, 0));
    for (size_t i = 0; i < gm.size(); ++i)
        l.regions.push_back(tw::GmRegion{gm[i].data(), gm[i].size(), "gm" + std::to_string(i), gm[i].size()});
    auto r = tw::run_blocks(l, 1, [&] {
        if (dtype == "half") run_case<half>(name, n, m, arg);
        else if (dtype == "float") run_case<float>(name, n, m, arg);
        else if (dtype == "int16") run_case<int16_t>(name, n, m, arg);
        else if (dtype == "int32") run_case<int32_t>(name, n, m, arg);
    });
    if (!r.ok) {
        std::printf("result error %s %d %s\n", r.kind.c_str(), r.line, r.message.c_str());
        return 0;
    }
    tw::Scheduler scheduler(params, l.names, 1, false);
    tw::KernelTiming kt = scheduler.run(r.blocks);
    std::printf("result ok\n");
    std::printf("cycles %.17g\n", kt.cycles);
    for (int p = tw::TP_VECTOR; p < tw::TP_COUNT; ++p)
        std::printf("busy %s %.17g\n", tw::timed_pipe_name(p), kt.cores[0].busy[p]);
    for (const tw::TraceRecord& t : r.blocks[0].trace)
        if (t.kind == tw::Rec::Instr)
            std::printf("record %s %llu %u %u %d\n", l.names[t.op].c_str(), static_cast<unsigned long long>(t.bytes),
                        t.repeats, unsigned(t.dtype), int(t.a));
    for (const tw::TraceRecord& t : r.blocks[0].trace) {
        tw::BankBeats beats;
        if (t.kind == tw::Rec::Instr && tw::unpack_bank_beats(t.a, beats))
            std::printf("beats %.17g %.17g %.17g\n", beats.read, beats.write, beats.rw);
    }
    return 0;
}
