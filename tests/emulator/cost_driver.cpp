// Test driver for the cost-model agreement test (test_cost_agreement.py): one AscendC call, run on one block through
// the emulator's API headers, then scheduled by the timing model (tw/timing.h) with the constants read from stdin as
// `timing KEY VALUES...` lines (the run spec's form, device/emulator/timing.py). It prints the busy cycles of each
// pipe and the call's trace record, which the test compares with analysis.chip.TimingConfig's estimate.
//
//   cost_driver <case> <dtype> <n> [<m>]
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
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "tw/launcher.h"
#include "tw/timing.h"

using namespace AscendC;

namespace {

constexpr size_t kGmBytes = 1 << 20;
std::vector<std::vector<uint8_t>> gm;

template <typename T>
void run_case(const std::string& name, uint32_t n, uint32_t m) {
    GlobalTensor<T> src, dst;
    src.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(gm[0].data()), kGmBytes / sizeof(T));
    dst.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(gm[1].data()), kGmBytes / sizeof(T));
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b, c;
    pipe.InitBuffer(a, 64 * 1024);
    pipe.InitBuffer(b, 64 * 1024);
    pipe.InitBuffer(c, 64 * 1024);
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
        std::fprintf(stderr, "usage: cost_driver <case> <dtype> <n> [<m>]\n");
        return 2;
    }
    const std::string name = argv[1], dtype = argv[2];
    const uint32_t n = static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10));
    const uint32_t m = argc > 4 ? static_cast<uint32_t>(std::strtoul(argv[4], nullptr, 10)) : 0;

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
        if (dtype == "half") run_case<half>(name, n, m);
        else if (dtype == "float") run_case<float>(name, n, m);
        else if (dtype == "int16") run_case<int16_t>(name, n, m);
        else if (dtype == "int32") run_case<int32_t>(name, n, m);
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
            std::printf("record %s %llu %u %u\n", l.names[t.op].c_str(), static_cast<unsigned long long>(t.bytes),
                        t.repeats, unsigned(t.dtype));
    return 0;
}
