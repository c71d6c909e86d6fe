"""The tuner on the emulator: it finds the optimum the timing model has, records a build or run failure with its
reason, applies the best tiling so that the operator still passes, and stops cleanly on Ctrl-C. (What needs only a
device's answers, the space, pruning and refusals, is tested in tests/search/test_tuner.py without g++.)"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from opgen import TUNED_HOST, tuned_operator

from tilewise.analysis.lint import lint
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.report.payloads import ReportPayload
from tilewise.search.cache import ResultsCache
from tilewise.search.tuner import Tuner


@pytest.fixture(scope="module")
def op_root(tmp_path_factory) -> Path:
    return tuned_operator(tmp_path_factory.mktemp("tune") / "scale")


def tune(root: Path, emu_cache: Path, strategy="evo", budget=6, cache=None, **kw):
    op = load_operator(root)
    device = EmulatorDevice(cache_dir=emu_cache)
    tuner = Tuner(op, device, op.manifest.cases, strategy=strategy, budget=budget, seed=1, cache=cache, **kw)
    events = list(tuner.events())
    return tuner.result(), events


def test_finds_the_known_optimum_and_streams_events(op_root, emu_cache, needs_gxx, tmp_path):
    cache = ResultsCache(tmp_path / "results.sqlite")
    grid, _ = tune(op_root, emu_cache, strategy="grid", budget=6, cache=cache)
    assert grid.evaluations == 6 and not grid.failed
    # Big tiles win (a copy's latency and issue cost weigh less), and so do more cores. The grid measured the whole
    # space, so its best is the model's optimum.
    assert grid.best["TILE_LENGTH"] == 8192 and grid.best["BLOCK_DIM"] > 1
    evo, events = tune(op_root, emu_cache, strategy="evo", budget=6, cache=cache)
    assert evo.best == grid.best and evo.speedup > 2
    assert [e.kind for e in events].count("done") == 1 and len([e for e in events if e.trial]) == 6
    assert events[0].trial.index == 0 and events[0].trial.config == grid.baseline
    # the second tune measured nothing: every configuration came from the persistent cache
    assert evo.cached == evo.evaluations == 6
    assert cache.count() == 6


def test_a_tiling_that_cannot_work_is_screened_out_with_its_reason_and_never_measured(tmp_path, emu_cache, needs_gxx):
    host = TUNED_HOST.replace("[1024, 8192]", "[1000, 1024]")  # 1000 fp16 = 2000 bytes: not a 32-byte multiple
    root = tuned_operator(tmp_path / "scale", host=host)
    result, events = tune(root, emu_cache, strategy="grid", budget=6)
    assert {t.config["TILE_LENGTH"] for t in result.screened_trials} == {1000} and result.screened == 3
    assert all(t.failure == "unaligned_copy" and "scale.cpp" in t.error for t in result.screened_trials)
    assert not result.failed and result.evaluations == 3  # the budget went to the configurations that can work
    assert {t.config["TILE_LENGTH"] for t in result.trials} == {1024}
    assert events[-1].screened == 3 and result.best["TILE_LENGTH"] == 1024


def test_apply_rewrites_the_literals_and_the_operator_still_passes(tmp_path, emu_cache, needs_gxx, monkeypatch, capsys):
    from tilewise.cli import main

    monkeypatch.setenv("TILEWISE_CACHE", str(emu_cache))
    (tmp_path / "charts.js").write_text("window.tilewiseCharts = {};")  # a stand-in: the browser test draws it
    monkeypatch.setenv("TILEWISE_CHARTS_JS", str(tmp_path / "charts.js"))
    root = tuned_operator(tmp_path / "scale")
    html = tmp_path / "tune.html"
    argv = [
        "tune",
        str(root),
        "--strategy",
        "grid",
        "--budget",
        "6",
        "--apply",
        "--format",
        "json",
        "--html",
        str(html),
    ]
    code = main(argv)
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    # the report: the convergence of these 6 measurements, then the best configuration's roofline and timeline
    (block,) = re.findall(
        r'<script type="application/json" id="tilewise-report">(.*?)</script>', html.read_text(), re.S
    )
    convergence, roofline, timeline = ReportPayload.model_validate(json.loads(block)).charts
    assert convergence.kind == "convergence" and roofline.kind == "roofline" and timeline.kind == "timeline"
    measured = [p for p in convergence.points if p.status != "screened"]
    assert [p.config for p in measured] == [t["config"] for t in data["trials"]] and len(measured) == 6
    assert convergence.best_config == data["best"] and convergence.shipped_us == data["baseline_us"]
    assert timeline.block_dim == data["best"]["BLOCK_DIM"] and timeline.cores[0].events
    assert {"baseline_us", "best_us", "speedup", "best", "evaluations", "failed", "trials"} <= set(data)
    assert {"screened", "screened_trials", "per_case_speedup", "slower_cases"} <= set(data)
    assert data["best"]["TILE_LENGTH"] == 8192 and data["best"]["BLOCK_DIM"] > 1
    assert data["applied"]["verified"] is True
    host = (root / "op_host" / "scale.cpp").read_text()
    # the values, and a mark on every knob the search decided, so the rules leave measured choices alone
    assert "TILE_LENGTH = 8192;  // tilewise: tune TILE_LENGTH in [1024, 8192] (tilewise: tuned)\n" in host
    cores = data["best"]["BLOCK_DIM"]
    assert f"BLOCK_DIM = {cores};  // tilewise: tune BLOCK_DIM in [1, 8, 48] (tilewise: tuned)\n" in host
    unmarked = host.replace(" (tilewise: tuned)", "").replace("TILE_LENGTH = 8192;", "TILE_LENGTH = 1024;")
    unmarked = unmarked.replace(f"BLOCK_DIM = {cores};", "BLOCK_DIM = 8;")
    assert unmarked == TUNED_HOST  # nothing else changed
    assert [f.rule for f in lint(load_operator(root)) if f.rule in ("low-block-dim", "small-copy")] == []


def test_ctrl_c_stops_cleanly_and_keeps_results(tmp_path, emu_cache, needs_gxx):
    host = TUNED_HOST.replace("[1, 8, 48]", "[1, 2, 4, 8, 16, 24, 32, 40, 48]")
    root = tuned_operator(tmp_path / "scale", host=host)
    env = {**os.environ, "TILEWISE_CACHE": str(emu_cache)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tilewise", "tune", str(root), "--budget", "18", "-v"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
        # A suite started in the background (`cmd &` in a script) hands its children SIGINT ignored, and Python then
        # never raises KeyboardInterrupt: give the tune the default disposition, as a terminal would.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
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
