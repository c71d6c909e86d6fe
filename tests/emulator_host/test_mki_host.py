"""The mki (Ascend Transformer Boost) host headers an operation unit uses (mki_host_selftest.cpp, a program written
for this test): an OpParam header that includes only SVector.h yet compares floats with Mki::Utils::Compare, and
mki/base/operation_base.h's OperationBase: per-parameter tensor counts checked by IsConsistent, InferShape sizing
the outputs and running InferShapeImpl, GetBestKernel picking a REG_KERNEL_BASE kernel with GetKernelByName."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from kernel_drivers import CXX, run_selftest

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "src" / "tilewise" / "device" / "emulator" / "include"
HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.skipif(CXX is None, reason="g++ is not installed")


def test_mki_operation_base(tmp_path: Path):
    run = run_selftest(HERE / "mki_host_selftest.cpp", tmp_path)
    # Each refusal was logged at error level on stderr.
    assert [line.split(": ", 1)[1] for line in run.stderr.splitlines()] == [
        "BlendOperation: 1 input tensors, expected 2",
        "BlendOperation: 1 input tensors, expected 2",
        "Failed to check consistent",
        "BlendOperation: no kernel named BlendNoSuchKernel",
    ]


SOFTMAX_PATH = """\
#include "tiling/softmax/softmax_tiling.h"
#include <cstdio>
int main()
{
    ge::Shape shape({8, 64});
    uint32_t work = AscendC::GetSoftMaxMaxTmpSize(shape, 2, false);
    optiling::SoftMaxTiling tiling;
    AscendC::SoftMaxTilingFunc(shape, 2, work, tiling);
    std::printf("%u %u\\n", work, tiling.get_srcM());
    return 0;
}
"""


def test_softmax_tiling_under_the_high_level_api_path(tmp_path: Path):
    # The path ATB tilings include; its max scratch for [8, 64] half: 8 rows of (64 + 16 + 64) floats.
    src = tmp_path / "softmax_path.cpp"
    src.write_text(SOFTMAX_PATH)
    exe = tmp_path / "softmax_path"
    proc = subprocess.run(
        [CXX, "-std=c++17", "-O0", "-I", str(INCLUDE), str(src), "-o", str(exe)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, "\n".join(proc.stderr.splitlines()[:40])
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.split() == [str(8 * (64 + 16 + 64) * 4), "8"], run.stdout + run.stderr
