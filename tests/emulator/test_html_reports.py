"""`tilewise run --html` and `tilewise tune --html` on the emulator: the page embeds the charts a user expects
(run: roofline and timeline of that run; tune: the convergence, then the best configuration's run), built from the
real run's figures. The bundle is a stand-in here (TILEWISE_CHARTS_JS): the drawing is the browser test's
(scripts/e2e.sh opens real reports in Chromium with the network off)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from paths import EXAMPLES

from tilewise.cli import main
from tilewise.report.payloads import ReportPayload

BUNDLE = "window.tilewiseCharts = {stand_in: true};"


def embedded(page: Path) -> ReportPayload:
    text = page.read_text(encoding="utf-8")
    assert BUNDLE in text  # the bundle inlined, whole
    (data,) = re.findall(r'<script type="application/json" id="tilewise-report">(.*?)</script>', text, re.S)
    return ReportPayload.model_validate(json.loads(data))


def stand_in(tmp_path: Path, monkeypatch) -> None:
    bundle = tmp_path / "charts.js"
    bundle.write_text(BUNDLE)
    monkeypatch.setenv("TILEWISE_CHARTS_JS", str(bundle))


def test_run_html_holds_the_runs_roofline_and_timeline(tmp_path, emu_cache, needs_gxx, monkeypatch, capsys):
    monkeypatch.setenv("TILEWISE_CACHE", str(emu_cache))
    stand_in(tmp_path, monkeypatch)
    root = EXAMPLES / "add_custom_slow_single_buffer"
    code = main(["run", str(root), "--html", str(tmp_path / "run.html"), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["report"] == str(tmp_path / "run.html")
    assert data["trace_path"] is None  # the report's trace was a scratch file, gone with it
    report = embedded(tmp_path / "run.html")
    roofline, timeline = report.charts
    assert roofline.kind == "roofline" and timeline.kind == "timeline"
    assert roofline.time_us == data["time_us"] and roofline.bytes_read > 0 and roofline.bytes_written > 0
    assert roofline.floor_us < roofline.time_us and roofline.bottleneck == data["bottleneck"]
    # the L2 model's count: the inputs come cold from HBM, the outputs stay in L2 during the kernel
    assert roofline.bytes_read <= roofline.hbm_bytes < roofline.bytes_read + roofline.bytes_written
    assert timeline.core_count == data["block_dim"] and len(timeline.cores) == data["block_dim"]
    kernel = str(root / "op_kernel" / "add_custom.cpp")
    assert {s.file for s in timeline.sites} == {kernel} and all(c.events for c in timeline.cores)
    assert any(c.waits for c in timeline.cores)  # the single buffer makes pipes wait on each other


def test_run_html_says_where_it_cannot_write_in_one_line(tmp_path, emu_cache, needs_gxx, monkeypatch, capsys):
    monkeypatch.setenv("TILEWISE_CACHE", str(emu_cache))
    stand_in(tmp_path, monkeypatch)
    (tmp_path / "file").write_text("")
    code = main(["run", str(EXAMPLES / "add_custom"), "--html", str(tmp_path / "file" / "run.html")])
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and "choose a writable path" in lines[0] and "run.html" in lines[0]


def test_html_without_the_bundle_stops_before_running(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TILEWISE_CHARTS_JS", str(tmp_path / "missing.js"))
    code = main(["run", str(EXAMPLES / "add_custom"), "--html", str(tmp_path / "r.html")])
    err = capsys.readouterr().err
    assert code == 2 and "npm --prefix vscode-client run bundle" in err and not (tmp_path / "r.html").exists()
