"""A kernel-invocation host that launches with `ACLRT_LAUNCH_KERNEL(kernel)(blockDim, stream, args...)` includes
`aclrtlaunch_<kernel>.h`, which CANN's ascendc_library step generates; the emulator's build writes an equivalent
from the kernel's signature: a GM pointer as `void*`, a structure taken by value as a pointer to it, other scalars as
themselves (device/emulator/launch_header.py), so the host compiles and its launch runs the kernel."""

from __future__ import annotations

from tilewise.analysis.host_copies import launch_roles
from tilewise.analysis.model import KernelEntry, KernelParam, Loc
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.emulator.launch_header import launch_header, launchable
from tilewise.device.protocol import RunRequest

KERNEL = """\
#include <cstdint>
#include "kernel_operator.h"
#include "coeffs.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void affine(GM_ADDR x, __gm__ float* z, uint32_t perBlock, Coeffs c)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, perBlock * sizeof(float));
    LocalTensor<float> a = buf.Get<float>();
    GlobalTensor<float> xg, zg;
    xg.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * perBlock, perBlock);
    zg.SetGlobalBuffer(z + GetBlockIdx() * perBlock, perBlock);
    DataCopy(a, xg, perBlock);
    PipeBarrier<PIPE_ALL>();
    Muls(a, a, c.scale, perBlock);
    Adds(a, a, c.shift, perBlock);
    PipeBarrier<PIPE_ALL>();
    DataCopy(zg, a, perBlock);
}
"""

COEFFS = """\
#pragma once
struct Coeffs {
    float scale;
    float shift;
};
"""

HOST = """\
#include <cstdint>
#include <cstdio>
#include <vector>
#include "acl/acl.h"
#include "coeffs.h"
#include "aclrtlaunch_affine.h"

int main()
{
    const uint32_t blocks = 2, perBlock = 64, total = blocks * perBlock;
    std::vector<float> x(total), z(total);
    FILE* in = std::fopen("input_x.bin", "rb");
    if (in == nullptr || std::fread(x.data(), sizeof(float), total, in) != total) return 1;
    std::fclose(in);
    Coeffs coeffs{3.0f, -1.0f};
    aclrtStream stream = nullptr;
    uint32_t ret = ACLRT_LAUNCH_KERNEL(affine)(blocks, stream, x.data(), z.data(), perBlock, &coeffs);
    if (ret != 0) return 2;
    FILE* out = std::fopen("output_z.bin", "wb");
    std::fwrite(z.data(), sizeof(float), total, out);
    std::fclose(out);
    return 0;
}
"""

MANIFEST = """\
[golden]
function = "golden.py:affine"

[[cases]]
name = "two_blocks"
[cases.inputs.x]
shape = [2, 64]
dtype = "float32"
"""


def test_the_header_declares_what_canns_generator_declares():
    loc = Loc(file="k.cpp", line=1, col=1, end_line=1, end_col=1)
    entry = KernelEntry(
        name="affine",
        file="k.cpp",
        loc=loc,
        params=[
            KernelParam(type="GM_ADDR", name="x"),
            KernelParam(type="float*", name="z", gm=True),
            KernelParam(type="uint32_t", name="perBlock"),
            KernelParam(type="Coeffs", name="c"),
        ],
    )
    text = launch_header(entry)
    assert "#define ACLRT_LAUNCH_KERNEL(kernel_func) aclrtlaunch_##kernel_func" in text
    assert (
        'extern "C" uint32_t aclrtlaunch_affine(uint32_t blockDim, aclrtStream stream, void* x, void* z, '
        "uint32_t perBlock, Coeffs* c);"
    ) in text
    # one header per kernel name; a template gets none
    assert [e.name for e in launchable([entry, entry], set())] == ["affine"]
    assert launchable([entry], {"affine"}) == []


def test_a_host_launching_with_aclrt_launch_kernel_compiles_and_runs(tmp_path, emu_cache, needs_gxx):
    root = tmp_path / "affine"
    root.mkdir()
    (root / "affine.cpp").write_text(KERNEL)
    (root / "coeffs.h").write_text(COEFFS)
    (root / "main.cpp").write_text(HOST)
    (root / "tilewise.toml").write_text(MANIFEST)
    (root / "golden.py").write_text("def affine(x):\n    return x * 3 - 1\n")
    op = load_operator(root)
    assert op.model.layout == "invocation"
    m = EmulatorDevice(cache_dir=emu_cache, timeout_s=60).run(op, RunRequest(op.manifest.cases[0]))
    assert m.ok and m.correct, m.error
    assert [o.name for o in m.outputs] == ["z"] and m.block_dim == 2 and m.max_abs_err == 0.0


def test_the_host_copies_around_a_generated_launch_say_the_roles():
    # blockDim and the stream come before the kernel's arguments; a declaration of the function is no launch
    host = """\
extern "C" uint32_t aclrtlaunch_affine(uint32_t blockDim, aclrtStream stream, void* x, void* z, uint32_t n);
aclrtMemcpy(dx, bytes, hx, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
uint32_t ret = ACLRT_LAUNCH_KERNEL(affine)(blocks, stream, dx, dz, n);
aclrtMemcpy(hz, bytes, dz, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
"""
    assert launch_roles([host], "affine") == {0: "input", 1: "output"}
    assert launch_roles([host.replace("ACLRT_LAUNCH_KERNEL(affine)", "aclrtlaunch_affine")], "affine") == {
        0: "input",
        1: "output",
    }
