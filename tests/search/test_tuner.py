"""The tuner: finds a known optimum, prunes by constraints before paying, records failures, reuses its cache,
applies the best tiling so that the operator still passes, and stops cleanly on Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from opgen import HOST, KERNEL, replace_once, write_operator

from analysis.lint import lint
from analysis.operator import load_operator
from device.emulator import EmulatorDevice
from search.cache import ResultsCache
from search.space import build_space
from search.tuner import Tuner

MANIFEST = """\
[golden]
function = "golden.py:golden"
rtol = 1e-3
atol = 1e-3

[[cases]]
name = "big"
[cases.inputs.x]
shape = [3145728]
dtype = "float16"
"""
GOLDEN = "def golden(x, scale=2.0):\n    return (x.astype('float32') * 2.0).astype('float16')\n"
TUNED_HOST = HOST.replace(
    "constexpr uint32_t BLOCK_DIM = 48;", "constexpr uint32_t BLOCK_DIM = 8;  // tilewise: tune BLOCK_DIM in [1, 8, 48]"
).replace(
    "constexpr uint32_t TILE_LENGTH = 8192;",
    "constexpr uint32_t TILE_LENGTH = 1024;  // tilewise: tune TILE_LENGTH in [1024, 8192]",
)


def make_op(root: Path, host: str = TUNED_HOST, kernel: str = KERNEL) -> Path:
    write_operator(root, kernel=kernel, host=host, manifest=MANIFEST)
    (root / "golden.py").write_text(GOLDEN)
    return root


@pytest.fixture(scope="module")
def op_root(tmp_path_factory) -> Path:
    return make_op(tmp_path_factory.mktemp("tune") / "scale")


def tune(root: Path, emu_cache: Path, strategy="evo", budget=6, cache=None, **kw):
    op = load_operator(root)
    device = EmulatorDevice(cache_dir=emu_cache)
    tuner = Tuner(op, device, op.manifest.cases, strategy=strategy, budget=budget, seed=1, cache=cache, **kw)
    events = list(tuner.events())
    return tuner.result(), events


def test_space_comes_from_the_annotations(op_root):
    space = build_space(load_operator(op_root), EmulatorDevice().chip)
    assert [(k.name, k.domain, k.source) for k in space.knobs] == [
        ("BLOCK_DIM", [1, 8, 48], "annotation"),
        ("TILE_LENGTH", [1024, 8192], "annotation"),
    ]
    assert space.size() == 6 and space.baseline() == {"BLOCK_DIM": 8, "TILE_LENGTH": 1024}


def test_finds_the_known_optimum_and_streams_events(op_root, emu_cache, needs_gxx, tmp_path):
    cache = ResultsCache(tmp_path / "results.sqlite")
    grid, _ = tune(op_root, emu_cache, strategy="grid", budget=6, cache=cache)
    assert grid.evaluations == 6 and not grid.failed
    # Big tiles win; with 8 cores HBM is already nearly saturated, so 48 pay more launch overhead than they gain.
    assert grid.best == {"BLOCK_DIM": 8, "TILE_LENGTH": 8192}
    evo, events = tune(op_root, emu_cache, strategy="evo", budget=6, cache=cache)
    assert evo.best == grid.best and evo.speedup > 2
    assert [e.kind for e in events].count("done") == 1 and len([e for e in events if e.trial]) == 6
    assert events[0].trial.index == 0 and events[0].trial.config == grid.baseline
    # the second tune measured nothing: every configuration came from the persistent cache
    assert evo.cached == evo.evaluations == 6
    assert cache.count() == 6


def test_constraints_prune_before_any_evaluation(tmp_path, emu_cache, needs_gxx):
    kernel = replace_once(
        KERNEL,
        "constexpr int32_t BUFFER_NUM = 2;",
        "constexpr int32_t BUFFER_NUM = 1;  // tilewise: tune BUFFER_NUM in [1, 2]",
    )
    kernel = replace_once(
        kernel,
        "pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(half));",
        "pipe.InitBuffer(inQueueX, BUFFER_NUM, 65536 * sizeof(half));",
    )
    root = make_op(tmp_path / "scale", host=HOST, kernel=kernel)
    result, _ = tune(root, emu_cache, strategy="grid", budget=10)
    assert result.space.size() == 2
    assert [t.config for t in result.trials] == [{"BUFFER_NUM": 1}]  # BUFFER_NUM = 2 needs 256 KiB of UB


def test_failures_are_recorded_with_their_reason_and_never_win(tmp_path, emu_cache, needs_gxx):
    host = TUNED_HOST.replace("[1024, 8192]", "[1000, 1024]")  # 1000 fp16 = 2000 bytes: not a 32-byte multiple
    root = make_op(tmp_path / "scale", host=host)
    result, _ = tune(root, emu_cache, strategy="grid", budget=6)
    failed = {t.config["TILE_LENGTH"] for t in result.failed}
    assert failed == {1000}
    assert all("misaligned" in t.error and "scale.cpp" in t.error for t in result.failed)
    assert result.best["TILE_LENGTH"] == 1024


def test_apply_rewrites_the_literals_and_the_operator_still_passes(tmp_path, emu_cache, needs_gxx, monkeypatch, capsys):
    from server.cli import main

    monkeypatch.setenv("TILEWISE_CACHE", str(emu_cache))
    root = make_op(tmp_path / "scale")
    code = main(["tune", str(root), "--strategy", "grid", "--budget", "6", "--apply", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {"baseline_us", "best_us", "speedup", "best", "evaluations", "failed", "trials"} <= set(data)
    assert data["best"] == {"BLOCK_DIM": 8, "TILE_LENGTH": 8192}
    assert data["applied"]["verified"] is True
    host = (root / "op_host" / "scale.cpp").read_text()
    # the values, and a mark on every knob the search decided, so the rules leave measured choices alone
    assert "TILE_LENGTH = 8192;  // tilewise: tune TILE_LENGTH in [1024, 8192] (tilewise: tuned)\n" in host
    assert "BLOCK_DIM = 8;  // tilewise: tune BLOCK_DIM in [1, 8, 48] (tilewise: tuned)\n" in host
    unmarked = host.replace(" (tilewise: tuned)", "").replace("TILE_LENGTH = 8192;", "TILE_LENGTH = 1024;")
    assert unmarked == TUNED_HOST  # nothing else changed
    assert [f.rule for f in lint(load_operator(root)) if f.rule in ("low-block-dim", "small-copy")] == []


def test_ctrl_c_stops_cleanly_and_keeps_results(tmp_path, emu_cache, needs_gxx):
    host = TUNED_HOST.replace("[1, 8, 48]", "[1, 2, 4, 8, 16, 24, 32, 40, 48]")
    root = make_op(tmp_path / "scale", host=host)
    env = {**os.environ, "TILEWISE_CACHE": str(emu_cache)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "tune", str(root), "--budget", "18", "-v"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )
    deadline = time.time() + 120
    seen = ""
    while time.time() < deadline:
        line = proc.stderr.readline()
        seen += line
        if "#1 " in line or "#2 " in line:
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "interrupted" in err and "Traceback" not in err
    assert "shipped tiling:" in out and "evaluations" in out and "stopped early" in out
    assert ResultsCache(emu_cache / "results.sqlite").count() >= 2


class OverrunDevice:
    """A device whose timing and overruns are set per configuration: TILE_LENGTH 8192 is fastest but reads past a
    GM tensor's end at a site the shipped configuration never touches; every run shares one over-read the
    shipped configuration makes too (which a candidate may keep)."""

    name = "fake"

    def __init__(self, chip):
        self.chip = chip

    def run(self, op, case, knobs=None, **_):
        from device.protocol import Measurement, RunWarning

        shared = RunWarning(kind="gm_out_of_bounds", message="reads 8 bytes past x", file="scale.cpp", line=40)
        warnings = [shared]
        if knobs["TILE_LENGTH"] == 8192:
            warnings.append(
                RunWarning(kind="ub_out_of_bounds", message="Add past its buffer", file="scale.cpp", line=55)
            )
        time_us = 100.0 / knobs["BLOCK_DIM"] / (2 if knobs["TILE_LENGTH"] == 8192 else 1)
        return Measurement(ok=True, correct=True, time_us=time_us, warnings=warnings)


def test_a_tiling_that_overruns_memory_where_the_shipped_one_does_not_is_refused(op_root):
    op = load_operator(op_root)
    tuner = Tuner(op, OverrunDevice(EmulatorDevice().chip), op.manifest.cases, strategy="grid", budget=6, seed=1)
    list(tuner.events())
    result = tuner.result()
    assert result.best == {"BLOCK_DIM": 48, "TILE_LENGTH": 1024}  # the shared over-read does not refuse anything
    refused = {tuple(t.config.values()) for t in result.failed}
    assert refused == {(1, 8192), (8, 8192), (48, 8192)}
    assert all(
        "ub_out_of_bounds at scale.cpp:55" in t.error and "shipped configuration" in t.error for t in result.failed
    )
