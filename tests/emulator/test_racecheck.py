"""Racecheck: a cross-pipe access to UB that no sync orders is a `race` warning at the call that makes it, on a small
kernel written for this test (race_driver.cpp). The pipelines synchronised by hand, by PipeBarrier<PIPE_ALL>,
through the scalar pipe or by queues are clean; leaving out one SetFlag/WaitFlag pair is reported where it matters.
The examples must stay clean too (tests/emulator/test_examples_run.py checks their runs have no warning)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from kernel_drivers import build_driver

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).resolve().parent / "race_driver.cpp"
CXX = shutil.which("g++")

# One worker runs this module (--dist loadgroup) and its session fixture compiles there once, whatever runs between.
pytestmark = [pytest.mark.skipif(CXX is None, reason="g++ is not installed"), pytest.mark.xdist_group("test_racecheck")]


def marker_line(name: str) -> int:
    return next(i for i, ln in enumerate(DRIVER.read_text().splitlines(), 1) if ln.rstrip().endswith(f"// @{name}"))


@pytest.fixture(scope="session")
def race(tmp_path_factory: pytest.TempPathFactory):
    exe = build_driver(tmp_path_factory, DRIVER)
    out = exe.parent

    def run(variant: str) -> list[tuple[str, int]]:
        d = Path(tempfile.mkdtemp(dir=out))
        subprocess.run([str(exe), str(d), variant], check=True, timeout=60)
        assert (d / "result.txt").read_text().strip() == "ok"
        # the emulator runs the calls in order, so the numbers are right whatever the sync: 2 * sum(i % 50)
        assert float((d / "out.txt").read_text()) == 2 * sum(i % 50 for i in range(512))
        warnings = [(k, int(n)) for k, n in (ln.split() for ln in (d / "warnings.txt").read_text().splitlines())]
        shutil.rmtree(d)
        return warnings

    return run


@pytest.mark.parametrize("variant", ["none", "queues", "barrier", "scalar"])
def test_synchronised_pipelines_are_clean(race, variant):
    assert race(variant) == []


def test_a_missing_mte2_to_v_flag_is_a_race_at_the_vector_instruction(race):
    assert race("mte2_v") == [("race", marker_line("muls"))]


def test_a_missing_v_to_mte3_flag_is_a_race_at_the_copy_out(race):
    assert race("v_mte3") == [("race", marker_line("copyout"))]


def test_a_missing_v_to_mte2_flag_is_a_race_at_the_next_copy_in(race):
    """The second tile's copy overwrites the buffer the first tile's Muls may still be reading."""
    assert race("v_mte2") == [("race", marker_line("copyin"))]
