"""One build cache, many builders at once (a test session's xdist workers share one; so do the CLI and the editor):
two builders of the same operator into one empty cache run every compile and the link at the same moment, and
both end with the same good executable, because each writes under a temporary name of its own and renames
(device/emulator/build.py). The moment is made, not hoped for: each compile waits until the other builder has
reached the same one."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from opgen import small_tuned_operator

from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.emulator import build as emulator_build
from tilewise.device.emulator.build import Builder, build_cache_dir
from tilewise.device.protocol import RunRequest


@pytest.mark.slow  # two whole cold builds, in step: the cache must start empty
def test_two_builders_of_one_operator_at_once_both_end_with_a_good_build(tmp_path: Path, needs_gxx, monkeypatch):
    cache = tmp_path / "builds"
    monkeypatch.setenv("TILEWISE_BUILD_CACHE", str(cache))
    op = load_operator(small_tuned_operator(tmp_path / "scale"))
    assert op.manifest is not None
    real = emulator_build.run_tool
    together = threading.Barrier(2, timeout=300)  # a builder that never comes fails the test, never hangs it
    outputs: list[str] = []

    def paired(argv: list[str], timeout_s: float):
        together.wait()  # both builders are at this compile (or the link), neither has its output yet
        outputs.append(argv[argv.index("-o") + 1])
        return real(argv, timeout_s)

    monkeypatch.setattr(emulator_build, "run_tool", paired)
    devices = [EmulatorDevice(), EmulatorDevice()]
    for device in devices:
        device.builder.jobs = 1  # one compile at a time each: the two builders walk the same steps in step
    request = RunRequest(op.manifest.cases[0])
    with ThreadPoolExecutor(max_workers=2) as pool:
        first, second = pool.map(lambda device: device.run(op, request), devices)
    monkeypatch.setattr(emulator_build, "run_tool", real)

    for m in (first, second):  # both compiled it all, and what each ran is right
        assert m.ok and m.correct and not m.cached_build, m.error
    assert len(outputs) >= 8 and len(set(outputs)) == len(outputs)  # every output under a name of its own
    assert not [p for p in cache.rglob("*") if ".tmp" in p.name], "a temporary file was left in the cache"
    again = EmulatorDevice().run(op, request)  # the renamed objects and executable pass for a finished build
    assert again.ok and again.correct and again.cached_build, again.error


def test_the_build_cache_is_the_variables_else_beside_the_results(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("TILEWISE_BUILD_CACHE", str(tmp_path / "builds"))
    assert build_cache_dir(tmp_path / "mine") == tmp_path / "builds"  # shared whatever the results cache
    assert Builder(cache_dir=tmp_path / "mine").cache == tmp_path / "builds"
    monkeypatch.delenv("TILEWISE_BUILD_CACHE")
    monkeypatch.setenv("TILEWISE_CACHE", str(tmp_path / "cache"))
    assert build_cache_dir(tmp_path / "mine") == tmp_path / "mine" / "emulator"
    assert build_cache_dir() == tmp_path / "cache" / "emulator"
