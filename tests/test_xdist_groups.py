"""`--dist loadgroup` keeps an `xdist_group` on one worker, as scripts/test.sh relies on (a module's build made once,
one Ray cluster, an example's cases after its first build). pytest 9.2 with pytest-xdist 3.8 silently stopped doing
so (pyproject.toml pins pytest below it): this runs a small suite on two workers and reads where each test ran."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

SUITE = """\
import time

import pytest

pytestmark = pytest.mark.xdist_group("together")


@pytest.mark.parametrize("i", range(6))
def test_grouped(i):
    time.sleep(0.05)
"""
FREE = """\
import pytest


@pytest.mark.parametrize("i", range(6))
def test_free(i):
    pass
"""


def test_a_group_runs_on_one_worker(tmp_path: Path):
    (tmp_path / "test_grouped.py").write_text(SUITE)
    (tmp_path / "test_free.py").write_text(textwrap.dedent(FREE))
    (tmp_path / "conftest.py").write_text("")  # its own root: not this project's conftest or markers
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-n",
            "2",
            "--dist",
            "loadgroup",
            "-v",
            str(tmp_path),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    ran = re.findall(r"\[(gw\d+)\] \[[ \d%]+\] PASSED \S*test_grouped\.py::test_grouped\[\d\](@\w+)?", proc.stdout)
    assert len(ran) == 6, proc.stdout[-3000:]
    assert {group for _, group in ran} == {"@together"}, "the group was not added to the tests' ids"
    assert len({worker for worker, _ in ran}) == 1, ran
