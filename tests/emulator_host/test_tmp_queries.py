"""The host-side library queries and names of issue 32's list, checked by tmp_queries_selftest.cpp, a program written
for this test: the math, activation and reduction APIs' Get<Api>MaxMinTmpSize and Get<Api>TmpBufferFactorSize and
the byte-mask Select's queries with the reference's signatures (held as pointers of those types) on the model
tw_host/tmp_size_queries.h states, AscendC::TensorShape / TensorDataType, gert::TilingParseContext through
register/tilingdata_base.h, error/ops_error.h, tiling/tiling_type.h and the library's host include paths."""

from __future__ import annotations

from pathlib import Path

import pytest
from kernel_drivers import CXX, run_selftest

HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.skipif(CXX is None, reason="g++ is not installed")


def test_host_tmp_size_queries_and_names(tmp_path: Path):
    run = run_selftest(HERE / "tmp_queries_selftest.cpp", tmp_path)
    # A pattern the A2 does not support is reported, as the library's host check does; the TilingParse without
    # compile info failed through OPS_ERR_IF, which logged at error level.
    assert "GetReduceSumMaxMinTmpSize: a 2-d shape" in run.stderr
    assert "[E] ParseForTest: no compile info" in run.stderr
