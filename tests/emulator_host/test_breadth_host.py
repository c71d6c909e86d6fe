"""Host names public operators needed next (breadth of the host tiling infrastructure), checked by
breadth_host_selftest.cpp, a program written for this test: ge::GetSizeInBytes (sub-byte types packed, -1 for what
has no size), ge::GetPrimaryFormat / GetSubFormat / GetFormatName, PlatformAscendC::GetCurNpuArch,
gert::ComputeNodeInfo as every context hands it out (counts, IR instance info, compile-time tensor descriptions,
attributes), Mki::TensorDesc::IsContiguous, `likely` / `unlikely` and the OP_LOGE_WITH_INVALID_* /
OP_LOGE_FOR_INVALID_TENSORNUM logs."""

from __future__ import annotations

from pathlib import Path

import pytest
from kernel_drivers import CXX, run_selftest

HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.skipif(CXX is None, reason="g++ is not installed")


def test_host_breadth_names(tmp_path: Path):
    run = run_selftest(HERE / "breadth_host_selftest.cpp", tmp_path)
    # Each log names the node, what was invalid and the arguments, at error level.
    assert run.stderr.splitlines() == [
        "[E] Cat_1: invalid input dtype; x; DT_INT8; DT_FLOAT, DT_FLOAT16",
        "[E] Cat_1: invalid input; platform_info",
        "[E] Cat_1: invalid tensor number; tensor_list; 70; at most 64",
    ]
