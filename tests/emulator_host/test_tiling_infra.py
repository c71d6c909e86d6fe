"""The host tiling infrastructure CANN-style operators build on (tiling_infra_selftest.cpp, a program written for
this test): tiling headers that include only register/tilingdata_base.h but use ge:: / gert:: types,
TilingBaseClass::DoTiling running its steps in the documented order and stopping at the first failure,
fe::PlatformInfoManager and PlatFormInfos::GetPlatformResWithLock answering from the runner's chip, ge::Shape, and
the OP_CHECK_IF / OPS_CHECK / OP_TILING_CHECK macros logging and returning the given value."""

from __future__ import annotations

from pathlib import Path

import pytest
from kernel_drivers import CXX, run_selftest

HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.skipif(CXX is None, reason="g++ is not installed")


def test_tiling_infrastructure(tmp_path: Path):
    run = run_selftest(HERE / "tiling_infra_selftest.cpp", tmp_path)
    # Each failed check logged its message at error level before returning.
    assert run.stderr.splitlines() == [
        "[E] Infra: cols is 0",
        "[E] checked: negative -5",
        "[E] checked: zero",
        "[E] checked: too big",
        "[E] checked: invalid value; v; 7; is 7",
        "[E] checked: eight: 8",
    ]
