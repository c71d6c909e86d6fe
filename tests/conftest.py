from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture
def op_dir(tmp_path: Path) -> Path:
    from opgen import write_operator

    return write_operator(tmp_path / "scale")


@pytest.fixture(scope="session")
def emu_cache(tmp_path_factory):
    """One build cache for the whole session, so the runner and host objects compile once."""
    return tmp_path_factory.mktemp("tilewise-cache")


@pytest.fixture(scope="session")
def needs_gxx():
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")


# The tests build many small kernels: -O0 compiles them about three times faster, and neither the results nor the
# simulated times depend on the optimisation level.
os.environ.setdefault("TILEWISE_OPT", "-O0")
