"""What every test shares: one emulator build cache for the whole session, a results cache of each test's own, and
the markers of the fast suite (`scripts/test.sh`) and the whole one (`scripts/test.sh --all`): a test is `slow` by
its decorator or by being named in tests/slow_tests.txt, the list scripts/slow_tests.py makes from a measured run.

The build cache (`TILEWISE_BUILD_CACHE`) is made once by the process that starts the session and inherited by every
xdist worker, every CLI and language-server process a test starts: the runner, the precompiled header and an
example's objects compile once per session, whichever worker asks first. That is safe because the builder names
every object by the hash of what it compiles and writes it under a temporary name before renaming it
(device/emulator/build.py; tests/emulator/test_shared_build_cache.py races two builders to check it). Results are
another matter: a measurement cached by one test would change what another sees, so `TILEWISE_CACHE` (results,
bank, calibration folders) is a fresh folder for each test, and `emu_cache` a folder of each worker's own.
Set TILEWISE_BUILD_CACHE yourself to keep the builds from one session to the next.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

# The tests build many small kernels: -O0 compiles them about three times faster, and neither the results nor the
# simulated times depend on the optimisation level.
os.environ.setdefault("TILEWISE_OPT", "-O0")

_MADE = pytest.StashKey[list[str]]()  # the folders this process made, removed when it ends
# The tests the fast suite leaves out, by what a run measured (scripts/slow_tests.py writes the list).
SLOW_LIST = Path(__file__).resolve().parent / "slow_tests.txt"


def pytest_configure(config: pytest.Config) -> None:
    # The first process of the session (xdist's controller, or the only one) makes the build cache; the workers
    # it starts inherit the variable with the rest of its environment.
    made = config.stash.setdefault(_MADE, [])
    if not hasattr(config, "workerinput") and not os.environ.get("TILEWISE_BUILD_CACHE"):
        os.environ["TILEWISE_BUILD_CACHE"] = tempfile.mkdtemp(prefix="tilewise-builds-")
        made.append(os.environ["TILEWISE_BUILD_CACHE"])
    # Never the user's ~/.cache/tilewise: a results cache for the process until a test's own replaces it (module
    # and session fixtures run before that).
    worker = getattr(config, "workerinput", {}).get("workerid", "main")
    os.environ["TILEWISE_CACHE"] = tempfile.mkdtemp(prefix=f"tilewise-cache-{worker}-")
    made.append(os.environ["TILEWISE_CACHE"])


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark `slow` every test tests/slow_tests.txt names, as if it carried the decorator."""
    listed = {
        ln.strip() for ln in SLOW_LIST.read_text(encoding="utf-8").splitlines() if ln.strip()[:1] not in ("", "#")
    }
    for item in items:
        if item.nodeid in listed:
            item.add_marker(pytest.mark.slow)


def pytest_unconfigure(config: pytest.Config) -> None:
    for folder in config.stash.get(_MADE, []):
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(autouse=True)
def _own_results_cache(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each test's own results cache, so no test sees what another measured (whatever ran before it, on whichever
    worker); a test that sets TILEWISE_CACHE itself replaces it. Builds are not in it (TILEWISE_BUILD_CACHE)."""
    monkeypatch.setenv("TILEWISE_CACHE", str(tmp_path_factory.mktemp("cache", numbered=True)))


@pytest.fixture
def op_dir(tmp_path: Path) -> Path:
    from opgen import write_operator

    return write_operator(tmp_path / "scale")


@pytest.fixture(scope="session")
def emu_cache(tmp_path_factory):
    """A cache folder for the tests of one worker (results, calibration operators; a test's TILEWISE_CACHE when it
    sets one). The builds under it go to the session's shared build cache (TILEWISE_BUILD_CACHE)."""
    return tmp_path_factory.mktemp("tilewise-cache")


@pytest.fixture(scope="session")
def needs_gxx():
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
