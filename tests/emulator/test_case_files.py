"""A kernel-invocation program that reads a data file besides its inputs (a tiling.bin its data script writes) gets
it from the case's `files`, with the fixed values the manifest gives, laid out as the dtypes say; random input files
could not stand for a blockDim or a length. Without it the program would read no tiling and produce nothing."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tilewise.analysis.manifest import parse_manifest
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.inputs import write_case_files
from tilewise.device.protocol import RunRequest

PROGRAM = """\
#include <cstdint>
#include <cstdio>
#include <vector>
#include "kernel_operator.h"
using namespace AscendC;

struct ScaleTiling {
    uint32_t blockDim;
    uint32_t perBlock;
    float scale;
};

extern "C" __global__ __aicore__ void scale_rows(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    const __gm__ ScaleTiling* t = reinterpret_cast<const __gm__ ScaleTiling*>(tiling);
    uint32_t n = t->perBlock;
    float scale = t->scale;
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, n * sizeof(float));
    LocalTensor<float> a = buf.Get<float>();
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * n, n);
    yg.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * n, n);
    DataCopy(a, xg, n);
    PipeBarrier<PIPE_ALL>();
    Muls(a, a, scale, n);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, a, n);
}

static size_t Read(const char* path, void* dst, size_t bytes)
{
    FILE* f = std::fopen(path, "rb");
    if (f == nullptr) return 0;
    size_t got = std::fread(dst, 1, bytes, f);
    std::fclose(f);
    return got;
}

int main()
{
    ScaleTiling tiling{0, 0, 0.0f};
    Read("./input/tiling.bin", &tiling, sizeof(tiling));
    size_t total = size_t(tiling.blockDim) * tiling.perBlock;
    std::vector<float> x(total), y(total);
    Read("./input/input_x.bin", x.data(), total * sizeof(float));
    if (total != 0) {
        scale_rows<<<tiling.blockDim, nullptr, nullptr>>>((GM_ADDR)x.data(), (GM_ADDR)y.data(), (GM_ADDR)&tiling);
    }
    FILE* out = std::fopen("./output/output_y.bin", "wb");
    std::fwrite(y.data(), sizeof(float), total, out);
    std::fclose(out);
    return 0;
}
"""

MANIFEST = """\
[golden]
function = "golden.py:scale_rows"

[[cases]]
name = "three_blocks"
[cases.inputs.x]
shape = [3, 64]
dtype = "float32"
[[cases.files]]
path = "input/tiling.bin"
dtype = "uint32"
values = [3, 64]       # blockDim, perBlock
[[cases.files]]
path = "input/tiling.bin"
dtype = "float32"
values = [-2.5]        # scale
"""


def test_case_files_are_written_packed_in_order(tmp_path):
    case = parse_manifest(MANIFEST, "tilewise.toml").cases[0]
    (written,) = write_case_files(case, tmp_path)
    assert written == tmp_path / "input" / "tiling.bin"
    raw = written.read_bytes()
    assert raw == np.array([3, 64], "<u4").tobytes() + np.array([-2.5], "<f4").tobytes()


def test_an_invocation_program_reads_its_tiling_file_from_the_case(tmp_path, emu_cache, needs_gxx):
    root: Path = tmp_path / "scale_rows"
    root.mkdir()
    (root / "scale_rows.cpp").write_text(PROGRAM)
    (root / "tilewise.toml").write_text(MANIFEST)
    (root / "golden.py").write_text("def scale_rows(x):\n    return x * -2.5\n")
    op = load_operator(root)
    m = EmulatorDevice(cache_dir=emu_cache, timeout_s=60).run(op, RunRequest(op.manifest.cases[0]))
    assert m.ok and m.correct, m.error
    assert m.block_dim == 3 and m.max_abs_err == 0.0
