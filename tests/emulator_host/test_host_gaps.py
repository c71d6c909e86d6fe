"""Host headers public operators needed (issue 12), checked by host_gaps_selftest.cpp, a program written for this test
that includes only CANN header names: the standard headers CANN's register/, graph/ and tiling headers bring in
(std::set, std::unordered_map, std::function, std::ceil, ... used without an include), tiling_api.h declaring
namespace AscendC, graph/c_types.h, the SoftMax host tiling (GetSoftMaxMinTmpSize / GetSoftMaxMaxTmpSize,
SoftMaxTilingFunc into a TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, ...) field) and acl/acl_prof.h."""

from __future__ import annotations

from pathlib import Path

import pytest
from kernel_drivers import CXX, run_selftest

HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.skipif(CXX is None, reason="g++ is not installed")


def test_host_headers_public_operators_needed(tmp_path: Path):
    src = (HERE / "host_gaps_selftest.cpp").read_text()
    assert "#include <" not in src  # every std name must come through the CANN headers
    run = run_selftest(HERE / "host_gaps_selftest.cpp", tmp_path)
    # The invalid type size was reported, as the library's host check does.
    assert "GetSoftMaxMinTmpSize: dataTypeSize 3" in run.stderr
