"""A kernel-invocation program that draws its own inputs and checks its own result, reading and writing no data
file (as Huawei's newer samples do): its kernel's parameters x, y, z are told apart by the host's ACL copies (x and
y copied to the device before the launch, z copied back after it; analysis/host_copies.py), and the run is judged
on what the kernel got and left at its launch (tw/runtime/invocation.h's capture), not on inputs the harness drew."""

from __future__ import annotations

from pathlib import Path

from tilewise.analysis.host_copies import launch_roles, output_file_names
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import RunRequest

PROGRAM = """\
#include <cstdint>
#include <vector>
#include "acl/acl.h"
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void mul_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t n)
{
    TPipe pipe;
    TQue<TPosition::VECIN, 1> qx, qy;
    TQue<TPosition::VECOUT, 1> qz;
    pipe.InitBuffer(qx, 1, n * sizeof(float));
    pipe.InitBuffer(qy, 1, n * sizeof(float));
    pipe.InitBuffer(qz, 1, n * sizeof(float));
    GlobalTensor<float> xg, yg, zg;
    xg.SetGlobalBuffer((__gm__ float *)x + GetBlockIdx() * n, n);
    yg.SetGlobalBuffer((__gm__ float *)y + GetBlockIdx() * n, n);
    zg.SetGlobalBuffer((__gm__ float *)z + GetBlockIdx() * n, n);
    LocalTensor<float> a = qx.AllocTensor<float>();
    LocalTensor<float> b = qy.AllocTensor<float>();
    DataCopy(a, xg, n);
    DataCopy(b, yg, n);
    qx.EnQue(a);
    qy.EnQue(b);
    a = qx.DeQue<float>();
    b = qy.DeQue<float>();
    LocalTensor<float> c = qz.AllocTensor<float>();
    Mul(c, a, b, n);
    Add(c, c, a, n);
    qz.EnQue(c);
    qx.FreeTensor(a);
    qy.FreeTensor(b);
    c = qz.DeQue<float>();
    DataCopy(zg, c, n);
    qz.FreeTensor(c);
}

int main()
{
    const uint32_t blocks = 4, n = 256, total = blocks * n;
    const size_t bytes = total * sizeof(float);
    std::vector<float> hostA(total), hostB(total), hostC(total);
    for (uint32_t i = 0; i < total; ++i) {
        hostA[i] = 0.5f * (i % 17) - 3.0f;
        hostB[i] = 0.25f * (i % 5) + 1.0f;
    }
    aclInit(nullptr);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    void *devA = nullptr, *devB = nullptr, *devC = nullptr;
    aclrtMalloc(&devA, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&devB, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&devC, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(devA, bytes, hostA.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(devB, bytes, hostB.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    mul_add<<<blocks, nullptr, stream>>>((uint8_t *)devA, (uint8_t *)devB, (uint8_t *)devC, n);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(hostC.data(), bytes, devC, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    int bad = 0;
    for (uint32_t i = 0; i < total; ++i) bad += hostC[i] != hostA[i] * hostB[i] + hostA[i];
    aclrtFree(devA);
    aclrtFree(devB);
    aclrtFree(devC);
    aclFinalize();
    return bad == 0 ? 0 : 1;
}
"""

MANIFEST = """\
[operator]
name = "mul_add"

[[cases]]
name = "own_inputs"
[cases.inputs.A]
shape = [1024]
dtype = "float32"
[cases.inputs.B]
shape = [1024]
dtype = "float32"
"""

GOLDEN = "def golden(a, b):\n    return a * b + a\n"


def write(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "mul_add.cpp").write_text(PROGRAM)
    (root / "tilewise.toml").write_text(MANIFEST)
    (root / "golden.py").write_text(GOLDEN)
    return root


def test_the_host_copies_say_which_parameters_are_inputs_and_outputs(tmp_path):
    assert launch_roles([PROGRAM], "mul_add") == {0: "input", 1: "input", 2: "output"}
    op = load_operator(write(tmp_path / "mul_add"))
    assert [t.name for t in op.model.inputs] == ["A", "B"]
    assert [t.name for t in op.model.outputs] == ["z"]  # not x and y, though the manifest names neither


def test_a_program_with_its_own_inputs_is_judged_on_what_its_launch_got(tmp_path, emu_cache, needs_gxx):
    root = write(tmp_path / "mul_add")
    op = load_operator(root)
    m = EmulatorDevice(cache_dir=emu_cache, timeout_s=60).run(
        op, RunRequest(op.manifest.cases[0], golden=str(root / "golden.py:golden"))
    )
    # The harness's own random A and B never reach the program: only the captured ones make the golden agree.
    assert m.ok and m.correct, m.error
    assert [o.name for o in m.outputs] == ["z"] and m.block_dim == 4
    assert m.max_abs_err == 0.0


def test_output_file_names_in_host_code():
    host = 'WriteFile("./output/output_z.bin", z, n); std::printf("Output: %f\\n", z[0]); auto p = "output_" + name;'
    assert output_file_names([host]) == ["./output/output_z.bin", "output_"]
    assert output_file_names([PROGRAM]) == []  # draws its own inputs, checks its own result


def test_a_program_that_writes_its_outputs_is_not_captured(tmp_path, emu_cache, needs_gxx):
    # the launch is read (every device argument copied to disk) only for a program naming no output file: this
    # one writes output_z.bin, and would fail if it were run with TW_CAPTURE set
    program = PROGRAM.replace("#include <vector>", "#include <cstdio>\n#include <cstdlib>\n#include <vector>").replace(
        "    int bad = 0;",
        """\
    if (std::getenv("TW_CAPTURE") != nullptr) return 7;
    FILE* out = std::fopen("output_z.bin", "wb");
    std::fwrite(hostC.data(), sizeof(float), total, out);
    std::fclose(out);
    int bad = 0;""",
    )
    root = write(tmp_path / "mul_add")
    (root / "mul_add.cpp").write_text(program)
    op = load_operator(root)
    m = EmulatorDevice(cache_dir=emu_cache, timeout_s=60).run(
        op, RunRequest(op.manifest.cases[0], golden=str(root / "golden.py:golden"))
    )
    # the harness's inputs never reach this program either, so only whether it ran uncaptured is judged here
    assert m.ok, m.error
    assert [o.name for o in m.outputs] == ["z"]


def test_a_program_that_launches_twice_and_writes_nothing_is_refused(tmp_path, emu_cache, needs_gxx):
    # which launch a case's golden describes is not known (the second may start from the first's outputs)
    launch = "    mul_add<<<blocks, nullptr, stream>>>((uint8_t *)devA, (uint8_t *)devB, (uint8_t *)devC, n);\n"
    root = write(tmp_path / "mul_add")
    (root / "mul_add.cpp").write_text(PROGRAM.replace(launch, launch + launch))
    op = load_operator(root)
    m = EmulatorDevice(cache_dir=emu_cache, timeout_s=60).run(
        op, RunRequest(op.manifest.cases[0], golden=str(root / "golden.py:golden"))
    )
    assert not m.ok and m.error.kind == "bad_output"
    assert "launched kernels 2 times" in m.error.message and "output_<name>.bin" in m.error.message
