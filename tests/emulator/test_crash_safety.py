"""A killed tune loses nothing: `kill -9` of the tune, of g++ or of `--apply` at a chosen point leaves a results cache
that passes `PRAGMA integrity_check`, every measurement finished before the kill is reused and none is made twice,
no half-written object passes for a build, and every source file is old or new, never half of each.

The kills are real SIGKILLs of real processes at points chosen by analysis/testhooks.py (`TILEWISE_TEST_KILL`) or
by a g++ wrapper that kills itself: nothing here waits for a moment to come."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from opgen import small_tuned_operator
from tuneproc import REPO, cache_state, fresh_cache, run, tune_argv

from tilewise.analysis.chip import load_chip
from tilewise.analysis.findings import Fix
from tilewise.analysis.operator import load_operator
from tilewise.analysis.rewrite import apply_fix, tuned_edits
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.emulator import build as emulator_build
from tilewise.device.protocol import RunRequest
from tilewise.search.cache import ResultsCache
from tilewise.search.space import platform_figures
from tilewise.search.tuner import Tuner

KILLED = -signal.SIGKILL


def test_a_tune_killed_after_two_results_keeps_them_and_measures_nothing_twice(tmp_path, emu_cache, needs_gxx):
    root = small_tuned_operator(tmp_path / "scale")
    cache, env = fresh_cache(tmp_path / "cache", emu_cache)
    killed = run(tune_argv(root), {**env, "TILEWISE_TEST_KILL": "stored:2"})  # dies as the 2nd result is committed
    assert killed.returncode == KILLED, killed.stderr
    assert cache_state(cache) == ("ok", 2)

    again = run(tune_argv(root), env)
    assert again.returncode == 0, again.stderr
    data = json.loads(again.stdout)
    # The first two configurations come from the cache; only the other two of the budget of four are measured.
    assert data["evaluations"] == 4 and [t["cached"] for t in data["trials"]] == [True, True, False, False]
    assert all(t["ok"] for t in data["trials"]), data["failed"]
    assert data["best"] != data["baseline"]  # (so that --apply below has a file to write)
    assert cache_state(cache) == ("ok", 4)  # 2 + 2 measurements in all: the budget, none twice

    # `--apply` killed right after it replaced the host source (every result is cached now: nothing is measured).
    host = root / "op_host" / "scale.cpp"
    op = load_operator(root)
    edits = tuned_edits(op.model, op.sources, data["best"], platform=platform_figures(load_chip(None)), cases=["small"])
    new = {Path(path).resolve(): text for path, text in apply_fix(Fix(title="tuned", edits=edits)).items()}
    assert list(new) == [host.resolve()]  # the one file --apply writes here
    applied = run(tune_argv(root, "--apply"), {**env, "TILEWISE_TEST_KILL": "applied:1"})
    assert applied.returncode == KILLED, applied.stderr
    assert host.read_text() == new[host.resolve()]  # the new text, whole
    assert not list(root.rglob("*.tilewise-tmp"))


NEW_FILES = 3


@pytest.mark.parametrize("after", [1, 2])
def test_apply_killed_between_two_files_leaves_each_file_old_or_new(tmp_path, after):
    files = [tmp_path / f"f{i}.cpp" for i in range(NEW_FILES)]
    for i, f in enumerate(files):
        f.write_text(f"old {i}\n" * 5000)
    job = tmp_path / "job.json"
    job.write_text(json.dumps({str(f): f"new {i}\n" * 5000 for i, f in enumerate(files)}))
    code = (
        "import json, sys\n"
        "from tilewise.analysis.rewrite import write_files\n"
        "write_files(json.loads(open(sys.argv[1]).read()))"
    )
    env = {**os.environ, "TILEWISE_TEST_KILL": f"applied:{after}"}
    proc = subprocess.run([sys.executable, "-c", code, str(job)], env=env, cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == KILLED, proc.stderr
    states = [f.read_text() for f in files]
    assert states == [f"new {i}\n" * 5000 for i in range(after)] + [f"old {i}\n" * 5000 for i in range(after, 3)]


# g++, except that the first object compile writes half an object where it was told to and is killed by SIGKILL.
KILLED_ONCE = """\
#!/bin/sh
case " $* " in
*" -c "*)
    if [ ! -e "MARKER" ]; then
        : > "MARKER"
        out=""; prev=""
        for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
        printf 'half an object' > "$out"
        kill -9 $$
    fi
    ;;
esac
exec g++ "$@"
"""


def _half(path: Path) -> bool:
    return path.stat().st_size == len(b"half an object") and path.read_bytes() == b"half an object"


def test_a_compiler_killed_mid_build_is_built_again_not_reused(tmp_path, emu_cache, needs_gxx, monkeypatch):
    wrapper = tmp_path / "g++-killed-once"
    marker = tmp_path / "killed"
    wrapper.write_text(KILLED_ONCE.replace("MARKER", str(marker)))
    wrapper.chmod(0o755)
    monkeypatch.setattr(emulator_build, "CXX", str(wrapper))
    root = small_tuned_operator(tmp_path / "scale", tag=f"a kernel only {tmp_path.name} builds")
    op = load_operator(root)
    case = op.manifest.cases[0]
    device = EmulatorDevice(cache_dir=emu_cache)
    # What every build shares is built once per installation and compiler (prebuilt.py; a killed build of that is
    # tests/emulator/test_prebuilt.py's): build it first with the wrapper spared, so the compile killed is the kernel's.
    marker.touch()
    assert device.builder.prebuilt.build_all()
    marker.unlink()

    first = device.run(op, RunRequest(case))
    assert first.error is not None and first.error.kind == "build_killed", first.error
    # The half object went to a temporary name, which the failed build removed: nothing in the cache holds it.
    assert marker.exists() and not [p for p in device.builder.cache.rglob("*") if p.is_file() and _half(p)]
    second = device.run(op, RunRequest(case))
    assert second.ok and second.correct and not second.cached_build, second.error

    # In a tune, the compile killed is the first screening's: the screening is not kept, the measurement builds.
    marker.unlink()
    op = load_operator(small_tuned_operator(tmp_path / "scale2", tag=f"another kernel only {tmp_path.name} builds"))
    cache = ResultsCache(tmp_path / "results.sqlite")
    tuner = Tuner(op, device, op.manifest.cases, budget=1, cache=cache)
    list(tuner.events())
    assert marker.exists()
    (trial,) = tuner.result().trials
    assert trial.ok and cache.count() == 1, trial.error
    kept = cache._db.execute("SELECT screening FROM screens").fetchall()
    assert not any("build" in row[0] for row in kept), kept
