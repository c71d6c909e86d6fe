"""An operator's op_host/op_api/ folder is its aclnn layer (aclnnXxxGetWorkspaceSize / aclnnXxx over opdev's
executor), which the ops repositories build into a separate library: the emulator's host build leaves its sources
out, as that build does, while every other op_host source is still compiled. Checked on the scale operator of
tests/opgen.py with an aclnn source that only a full CANN install could compile."""

from __future__ import annotations

from pathlib import Path

import pytest
from opgen import write_operator

from tilewise.analysis.operator import load_operator
from tilewise.device.emulator.build import Builder, BuildError

ACLNN_SOURCE = """\
#include "aclnn/aclnn_base.h"
#include "opdev/op_executor.h"
aclnnStatus aclnnScaleGetWorkspaceSize(const aclTensor* x, aclTensor* y, uint64_t* size, aclOpExecutor** executor);
"""


def test_the_aclnn_layer_is_left_out_of_the_host_build(emu_cache: Path, needs_gxx, tmp_path: Path):
    root = write_operator(tmp_path / "scale")
    (root / "op_host" / "op_api").mkdir()
    (root / "op_host" / "op_api" / "aclnn_scale.cpp").write_text(ACLNN_SOURCE)
    Builder(cache_dir=emu_cache).build(load_operator(root), {})  # builds: op_api/ is not compiled


def test_other_op_host_sources_are_still_compiled(emu_cache: Path, needs_gxx, tmp_path: Path):
    root = write_operator(tmp_path / "scale")
    (root / "op_host" / "extra").mkdir()
    (root / "op_host" / "extra" / "aclnn_scale.cpp").write_text(ACLNN_SOURCE)
    with pytest.raises(BuildError) as e:
        Builder(cache_dir=emu_cache).build(load_operator(root), {})
    assert "aclnn/aclnn_base.h" in e.value.error.message
