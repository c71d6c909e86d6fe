// Test driver for the racecheck (device/emulator/include/tw/runtime/racecheck.h), tests/emulator/test_racecheck.py.
//
//   race_driver <dir> <variant>
//
// One block copies two tiles of 256 halves in, doubles them and copies them out, synchronised one of several ways;
// <dir>/warnings.txt gets "<kind> <line>" per warning, <dir>/result.txt "ok" or "error <kind> <line>", <dir>/out.txt
// the output values' sum. The lines a test locates end in a `// @name` marker.
#include <fstream>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "tw/runtime/launcher.h"

using namespace AscendC;

namespace {

constexpr uint32_t TILE = 256;
std::vector<half> gx(2 * TILE), gy(2 * TILE);

// TBuf and manual SetFlag/WaitFlag; `drop` leaves one pair out.
void manual(const std::string& drop) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> xb, yb;
    pipe.InitBuffer(xb, TILE * sizeof(half));
    pipe.InitBuffer(yb, TILE * sizeof(half));
    LocalTensor<half> x = xb.Get<half>(), y = yb.Get<half>();
    GlobalTensor<half> xg, yg;
    xg.SetGlobalBuffer(gx.data(), gx.size());
    yg.SetGlobalBuffer(gy.data(), gy.size());
    for (uint32_t t = 0; t < 2; ++t) {
        DataCopy(x, xg[t * TILE], TILE);  // @copyin
        if (drop != "mte2_v") {
            SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
            WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
        }
        Muls(y, x, half(2.0f), TILE);  // @muls
        if (drop != "v_mte2") {
            SetFlag<HardEvent::V_MTE2>(EVENT_ID1);
            WaitFlag<HardEvent::V_MTE2>(EVENT_ID1);
        }
        if (drop != "v_mte3") {
            SetFlag<HardEvent::V_MTE3>(EVENT_ID2);
            WaitFlag<HardEvent::V_MTE3>(EVENT_ID2);
        }
        DataCopy(yg[t * TILE], y, TILE);  // @copyout
        SetFlag<HardEvent::MTE3_V>(EVENT_ID3);
        WaitFlag<HardEvent::MTE3_V>(EVENT_ID3);
    }
}

// The same with PipeBarrier<PIPE_ALL> after each step, or through the scalar pipe (MTE2 -> S, then S -> V).
void barrier(bool via_scalar) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> xb, yb;
    pipe.InitBuffer(xb, TILE * sizeof(half));
    pipe.InitBuffer(yb, TILE * sizeof(half));
    LocalTensor<half> x = xb.Get<half>(), y = yb.Get<half>();
    GlobalTensor<half> xg, yg;
    xg.SetGlobalBuffer(gx.data(), gx.size());
    yg.SetGlobalBuffer(gy.data(), gy.size());
    for (uint32_t t = 0; t < 2; ++t) {
        DataCopy(x, xg[t * TILE], TILE);
        if (via_scalar) {
            SetFlag<HardEvent::MTE2_S>(EVENT_ID0);
            WaitFlag<HardEvent::MTE2_S>(EVENT_ID0);
        } else {
            PipeBarrier<PIPE_ALL>();
        }
        Muls(y, x, half(2.0f), TILE);
        PipeBarrier<PIPE_ALL>();
        DataCopy(yg[t * TILE], y, TILE);
        PipeBarrier<PIPE_ALL>();
    }
}

// The queue pipeline of every sample: no flags written by hand.
void queues() {
    TPipe pipe;
    TQue<TPosition::VECIN, 2> inq;
    TQue<TPosition::VECOUT, 2> outq;
    pipe.InitBuffer(inq, 2, TILE * sizeof(half));
    pipe.InitBuffer(outq, 2, TILE * sizeof(half));
    GlobalTensor<half> xg, yg;
    xg.SetGlobalBuffer(gx.data(), gx.size());
    yg.SetGlobalBuffer(gy.data(), gy.size());
    for (uint32_t t = 0; t < 2; ++t) {
        LocalTensor<half> x = inq.AllocTensor<half>();
        DataCopy(x, xg[t * TILE], TILE);
        inq.EnQue(x);
        LocalTensor<half> xin = inq.DeQue<half>();
        LocalTensor<half> y = outq.AllocTensor<half>();
        Muls(y, xin, half(2.0f), TILE);
        outq.EnQue(y);
        inq.FreeTensor(xin);
        LocalTensor<half> yout = outq.DeQue<half>();
        DataCopy(yg[t * TILE], yout, TILE);
        outq.FreeTensor(yout);
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) return 2;
    const std::string dir = argv[1], v = argv[2];
    for (size_t i = 0; i < gx.size(); ++i) gx[i] = half(static_cast<float>(i % 50));
    tw::Launch l;
    tw::LaunchResult r = tw::run_blocks(l, 1, [&] {
        if (v == "queues") queues();
        else if (v == "barrier") barrier(false);
        else if (v == "scalar") barrier(true);
        else manual(v);
    });
    float sum = 0;
    for (half h : gy) sum += float(h);
    std::ofstream(dir + "/out.txt") << sum << "\n";
    std::ofstream(dir + "/result.txt") << (r.ok ? "ok" : "error " + r.kind + " " + std::to_string(r.line)) << "\n";
    std::ofstream f(dir + "/warnings.txt");
    for (const tw::Warning& w : r.warnings) f << w.kind << " " << w.line << "\n";
    return 0;
}
