"""A kernel entry's GM tensors in every form a kernel declares them, not only `GM_ADDR x`: `__gm__ float* x`,
`const __gm__ half* x`, `__gm__ uint8_t* __restrict__ x` (the C API samples write their kernels so). The parser never
sees `__gm__` (it is blanked before parsing), so the model reads it from the qualifier's mark; a kernel-invocation
operator's outputs are its GM parameters the host reads back, whatever form they take."""

from __future__ import annotations

from pathlib import Path

from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import RunRequest

ENTRY = """\
#include <cstdint>
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void forms(GM_ADDR a, __gm__ float* b, const __gm__ half* c,
                                            __gm__ uint8_t* __restrict__ d, __gm__ const int32_t *e,
                                            float* host, uint32_t n, __gm__ float* const f)
{
}

extern "C" __aicore__ void no_global(__gm__ float* x)
{
}
"""

PROGRAM = """\
#include <cstdint>
#include <vector>
#include "acl/acl.h"
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t N = 128;

__global__ __aicore__ void sub_twice(__gm__ float* x, const __gm__ float* y, __gm__ float* __restrict__ z)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 2 * N * sizeof(float));
    LocalTensor<float> a = buf.Get<float>();
    LocalTensor<float> b = a[N];
    GlobalTensor<float> xg, yg, zg;
    xg.SetGlobalBuffer(x + GetBlockIdx() * N, N);
    yg.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * N, N);
    zg.SetGlobalBuffer(z + GetBlockIdx() * N, N);
    DataCopy(a, xg, N);
    DataCopy(b, yg, N);
    PipeBarrier<PIPE_ALL>();
    Sub(a, a, b, N);
    Sub(a, a, b, N);
    PipeBarrier<PIPE_ALL>();
    DataCopy(zg, a, N);
}

int main()
{
    const uint32_t blocks = 2, total = blocks * N;
    const size_t bytes = total * sizeof(float);
    std::vector<float> hx(total), hy(total), hz(total);
    for (uint32_t i = 0; i < total; ++i) {
        hx[i] = 0.25f * i;
        hy[i] = 1.0f + (i % 3);
    }
    aclInit(nullptr);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    float *dx = nullptr, *dy = nullptr, *dz = nullptr;
    aclrtMalloc((void**)&dx, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void**)&dy, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void**)&dz, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(dx, bytes, hx.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(dy, bytes, hy.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    sub_twice<<<blocks, nullptr, stream>>>(dx, dy, dz);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(hz.data(), bytes, dz, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtFree(dx);
    aclrtFree(dy);
    aclrtFree(dz);
    aclFinalize();
    return 0;
}
"""

MANIFEST = """\
[[cases]]
name = "own_inputs"
[cases.inputs.x]
shape = [256]
dtype = "float32"
[cases.inputs.y]
shape = [256]
dtype = "float32"
"""


def test_every_gm_pointer_form_is_a_gm_parameter(tmp_path):
    root = tmp_path / "forms"
    root.mkdir()
    (root / "forms.cpp").write_text(ENTRY)
    (root / "forms_host.cpp").write_text("int main() { forms<<<1, nullptr, nullptr>>>(0, 0, 0, 0, 0, 0, 0, 0); }\n")
    op = load_operator(root)
    entries = {e.name: e for e in op.model.kernel.entries}
    gm = {p.name: p.is_gm for p in entries["forms"].params}
    assert gm == {"a": True, "b": True, "c": True, "d": True, "e": True, "host": False, "n": False, "f": True}
    # an extern "C" entry without __global__ is a kernel when it takes GM memory, in either spelling
    assert "no_global" in entries


def write(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "sub_twice.cpp").write_text(PROGRAM)
    (root / "tilewise.toml").write_text(MANIFEST)
    (root / "golden.py").write_text("def golden(x, y):\n    return x - 2 * y\n")
    return root


def test_an_invocation_kernel_with_gm_float_pointers_has_its_output(tmp_path):
    op = load_operator(write(tmp_path / "sub_twice"))
    assert [t.name for t in op.model.inputs] == ["x", "y"]
    assert [(t.name, t.dtypes) for t in op.model.outputs] == [("z", ["float32"])]


def test_an_invocation_kernel_with_gm_float_pointers_matches_its_golden(tmp_path, emu_cache, needs_gxx):
    root = write(tmp_path / "sub_twice")
    op = load_operator(root)
    m = EmulatorDevice(cache_dir=emu_cache, timeout_s=60).run(
        op, RunRequest(op.manifest.cases[0], golden=str(root / "golden.py:golden"))
    )
    assert m.ok and m.correct, m.error
    assert [o.name for o in m.outputs] == ["z"] and m.max_abs_err == 0.0
