"""The host tiling infrastructure CANN-style operators build on (tiling_infra_selftest.cpp, a program written for
this test): tiling headers that include only register/tilingdata_base.h but use ge:: / gert:: types,
TilingBaseClass::DoTiling running its steps in the documented order and stopping at the first failure,
fe::PlatformInfoManager and PlatFormInfos::GetPlatformResWithLock answering from the runner's chip, ge::Shape, and
the OP_CHECK_IF / OPS_CHECK / OP_TILING_CHECK macros logging and returning the given value."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "device" / "emulator" / "include"
HERE = Path(__file__).resolve().parent
CXX = shutil.which("g++")

pytestmark = pytest.mark.skipif(CXX is None, reason="g++ is not installed")


def test_tiling_infrastructure(tmp_path: Path):
    exe = tmp_path / "infra"
    proc = subprocess.run(
        [
            CXX,
            "-std=c++17",
            "-O0",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-I",
            str(INCLUDE),
            str(HERE / "tiling_infra_selftest.cpp"),
            "-o",
            str(exe),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, "\n".join(proc.stderr.splitlines()[:40])
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "all checks passed" in run.stdout
    # Each failed check logged its message at error level before returning.
    assert run.stderr.splitlines() == [
        "[E] Infra: cols is 0",
        "[E] checked: negative -5",
        "[E] checked: zero",
        "[E] checked: too big",
        "[E] checked: invalid value; v; 7; is 7",
        "[E] checked: eight: 8",
    ]
