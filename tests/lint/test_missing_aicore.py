"""missing-aicore stays silent on SIMT kernels (issue 13).

Ascend 950's SIMT programming model declares a kernel `__global__` alone and launches it with four launch arguments
(`<<<grid, block, dynUbufSize, stream>>>`); its body reads the thread built-ins. The corpus's SIMT histogram sample
was reported as missing `__aicore__`, which such a kernel must not have added. An AscendC entry without it still
fires.
"""

from __future__ import annotations

from pathlib import Path

from opgen import KERNEL, replace_once, write_operator

from tilewise.analysis.lint import lint
from tilewise.analysis.operator import load_operator

SIMT_KERNEL = """\
#include "kernel_operator.h"

__global__ void fill_simt(float* y, int32_t n)
{
    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = 1.0f;
    }
}

int32_t main()
{
    float* y = nullptr;
    void* stream = nullptr;
    fill_simt<<<8, 256, 0, stream>>>(y, 2048);
    return 0;
}
"""


# the folder's AscendC kernel, which makes it an operator (a SIMT-only folder is not one for the project loader)
SCALAR_KERNEL = """\
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void fill_scalar(GM_ADDR y)
{
    AscendC::GlobalTensor<float> yGm;
    yGm.SetGlobalBuffer((__gm__ float*)y, 8);
    yGm.SetValue(0, 1.0f);
}

int32_t main()
{
    void* stream = nullptr;
    fill_scalar<<<1, nullptr, stream>>>(nullptr);
    return 0;
}
"""


def simt_operator(root: Path, simt: str = SIMT_KERNEL) -> Path:
    root.mkdir()
    (root / "fill_scalar.asc").write_text(SCALAR_KERNEL)
    (root / "fill_simt.asc").write_text(simt)
    return root


def missing_aicore(root: Path):
    op = load_operator(root)
    assert not op.model.syntax_errors
    return [f for f in lint(op) if f.rule == "missing-aicore"]


def test_simt_kernel_reading_thread_builtins_is_not_missing_aicore(tmp_path: Path):
    root = simt_operator(tmp_path / "simt")
    assert "fill_simt" in {e.name for e in load_operator(root).model.kernel.entries}
    assert missing_aicore(root) == []


def test_simt_launch_alone_proves_it(tmp_path: Path):
    # a body that reads no built-in (it calls a helper that does): the four launch arguments say SIMT
    text = SIMT_KERNEL.replace("    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;\n", "    int32_t i = Lane();\n")
    root = simt_operator(tmp_path / "simt", text)
    assert missing_aicore(root) == []
    (root / "fill_simt.asc").write_text(text.replace("<<<8, 256, 0, stream>>>", "<<<8, nullptr, stream>>>"))
    (f,) = missing_aicore(root)  # AscendC's three-argument launch: the qualifier is missing
    assert "fill_simt" in f.message


def test_ascendc_entry_without_aicore_still_fires(tmp_path: Path):
    kernel = replace_once(KERNEL, 'extern "C" __global__ __aicore__ void', 'extern "C" __global__ void')
    (f,) = missing_aicore(write_operator(tmp_path / "op", kernel=kernel))
    assert f.severity == "error"
