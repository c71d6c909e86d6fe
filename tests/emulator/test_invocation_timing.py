"""A kernel-invocation program is timed like a launched operator: the launcher replays each launch's trace through the
pipeline model with the chip's constants (TW_TIMING, tw/runtime/invocation.h) and the run reports the launches' summed
time. Without it such a program had outputs but no time, so nothing that compares times (tune, the fidelity suite) could
use one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import RunRequest

PROGRAM = """\
#include <cstdint>
#include <cstdio>
#include <vector>
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t LAUNCHES = @LAUNCHES@;
constexpr uint32_t BLOCKS = 4;
constexpr uint32_t PER_BLOCK = 512;

extern "C" __global__ __aicore__ void triple(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, PER_BLOCK * sizeof(float));
    LocalTensor<float> a = buf.Get<float>();
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * PER_BLOCK, PER_BLOCK);
    yg.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * PER_BLOCK, PER_BLOCK);
    DataCopy(a, xg, PER_BLOCK);
    PipeBarrier<PIPE_ALL>();
    Muls(a, a, 3.0f, PER_BLOCK);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, a, PER_BLOCK);
}

int main()
{
    std::vector<float> x(BLOCKS * PER_BLOCK), y(BLOCKS * PER_BLOCK);
    FILE* in = std::fopen("input_x.bin", "rb");
    if (in == nullptr || std::fread(x.data(), sizeof(float), x.size(), in) != x.size()) return 1;
    std::fclose(in);
    for (uint32_t i = 0; i < LAUNCHES; ++i) {
        triple<<<BLOCKS, nullptr, nullptr>>>((GM_ADDR)x.data(), (GM_ADDR)y.data());
    }
    FILE* out = std::fopen("output_y.bin", "wb");
    std::fwrite(y.data(), sizeof(float), y.size(), out);
    std::fclose(out);
    return 0;
}
"""

MANIFEST = """\
[golden]
function = "golden.py:triple"

[[cases]]
name = "four_blocks"
[cases.inputs.x]
shape = [4, 512]
dtype = "float32"
"""


def _run(tmp_path: Path, emu_cache: Path, launches: int):
    root = tmp_path / f"triple_{launches}"
    root.mkdir()
    (root / "triple.cpp").write_text(PROGRAM.replace("@LAUNCHES@", str(launches)))
    (root / "tilewise.toml").write_text(MANIFEST)
    (root / "golden.py").write_text("def triple(x):\n    return x * 3\n")
    op = load_operator(root)
    assert op.manifest is not None
    m = EmulatorDevice(cache_dir=emu_cache, timeout_s=60).run(op, RunRequest(op.manifest.cases[0]))
    assert m.ok and m.correct, m.error
    return m


def test_an_invocation_program_reports_the_models_time(tmp_path, emu_cache, needs_gxx):
    m = _run(tmp_path, emu_cache, 1)
    assert m.time_us is not None and m.launch_us is not None and m.cycles is not None
    assert m.launch_us > 0 and m.cycles > 0
    assert m.time_us > m.launch_us  # the kernel's own time comes on top of the launch
    assert m.pipes["vector"].busy_us > 0 and m.pipes["mte2"].busy_us > 0 and m.pipes["mte3"].busy_us > 0
    assert m.chip is not None and m.waves == 1


def test_two_launches_take_twice_the_time_of_one(tmp_path, emu_cache, needs_gxx):
    one = _run(tmp_path, emu_cache, 1)
    two = _run(tmp_path, emu_cache, 2)
    assert one.time_us is not None and two.time_us is not None
    assert two.time_us == pytest.approx(2 * one.time_us, rel=1e-6)
    assert two.launch_us == pytest.approx(2 * (one.launch_us or 0), rel=1e-6)
    assert two.cycles == pytest.approx(2 * (one.cycles or 0), rel=1e-6)
