"""The pictures' Python half: the roofline payload from a run's figures (bytes from its call sites, the floor, the
verdict), and the self-contained HTML page (the data round-trips, no markup can escape its block, the one inline
script is allowed by its hash and nothing else is, the write is atomic, a missing bundle is one line with the fix).
The charts bundle itself is drawn in Chromium by the browser test (scripts/e2e.sh)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import stat
from pathlib import Path

import pytest

from tilewise.analysis.chip import load_chip, timing_config
from tilewise.analysis.errors import TilewiseError
from tilewise.device.protocol import Measurement, PipeUse, SiteUse
from tilewise.report.html import BUNDLE_ENV, charts_bundle, render_report, write_report
from tilewise.report.payloads import ConvergencePayload, ReportPayload, TimelinePayload, TimelineSite
from tilewise.report.reports import run_report
from tilewise.report.roofline import roofline_payload

CHIP = load_chip("910B2")


def site(pipe: str, nbytes: int, block: int = 0) -> SiteUse:
    return SiteUse(
        block=block, pipe=pipe, api="DataCopy", file="/k.cpp", line=3, calls=1, bytes=nbytes, min_bytes=nbytes,
        max_bytes=nbytes, repeats=1, min_repeats=1, max_repeats=1, busy_us=1.0,
    )  # fmt: skip


def run(time_us: float, launch_us: float, read: int, written: int, bottleneck: str = "mte2") -> Measurement:
    pipes = {
        "vector": PipeUse(busy_us=2.0, ratio=0.2),
        "mte2": PipeUse(busy_us=9.0, ratio=0.9 if bottleneck == "mte2" else 0.1),
        "mte3": PipeUse(busy_us=3.0, ratio=0.3),
        "scalar": PipeUse(busy_us=1.0, ratio=0.05),
    }
    sites = [site("MTE2", read // 2, 0), site("MTE2", read - read // 2, 1), site("MTE3", written), site("VECTOR", 99)]
    return Measurement(
        ok=True, correct=True, time_us=time_us, launch_us=launch_us, pipes=pipes, bottleneck=bottleneck, sites=sites,
        case="big", chip="910B2",
    )  # fmt: skip


def test_the_roofline_counts_the_copies_bytes_and_names_the_bottleneck():
    p = roofline_payload(run(40.0, 2.0, 30_000_000, 15_000_000), CHIP, "Add")
    assert p is not None
    assert (p.bytes_read, p.bytes_written) == (30_000_000, 15_000_000)  # vector sites move no GM bytes
    assert p.hbm_floor_us == pytest.approx(45_000_000 / (CHIP.hbm_gbps * 1e3))
    assert p.floor_us == pytest.approx(2.0 + p.hbm_floor_us) and p.efficiency == pytest.approx(p.floor_us / 40.0)
    assert [b.pipe for b in p.pipes] == ["SCALAR", "VECTOR", "MTE2", "MTE3"] and p.kernel_us == 38.0
    assert p.efficiency >= 0.8 and p.verdict.startswith("Within") and "MTE2 is the busiest pipe (90%" in p.verdict


def test_the_floor_counts_what_crossed_hbm_and_every_byte_at_l2_speed():
    m = run(40.0, 2.0, 30_000_000, 15_000_000)
    m.hbm_bytes = 30_000_000.0  # the writes stayed in L2 (written back after the kernel)
    p = roofline_payload(m, CHIP, "Add")
    assert p is not None and p.hbm_bytes == 30_000_000
    assert p.hbm_floor_us == pytest.approx(30_000_000 / (CHIP.hbm_gbps * 1e3))
    m.hbm_bytes = 0.0  # everything hit L2: L2's bandwidth bounds it
    p = roofline_payload(m, CHIP, "Add")
    assert p is not None and p.hbm_floor_us == pytest.approx(45_000_000 / (timing_config(CHIP).l2_gbps * 1e3))


def test_the_verdict_says_which_regime_the_run_is_in():
    slow = roofline_payload(run(200.0, 2.0, 3_000_000, 1_000_000, bottleneck="vector"), CHIP, "Add")
    assert slow is not None and slow.verdict.startswith(f"{200.0 / slow.floor_us:.1f}x the HBM roofline")
    assert "VECTOR is the busiest pipe" in slow.verdict
    tiny = roofline_payload(run(3.0, 2.0, 1000, 1000), CHIP, "Add")
    assert tiny is not None and tiny.verdict.startswith("Launch overhead is 67% of the run")
    assert roofline_payload(Measurement(ok=False), CHIP, "Add") is None  # no timing, no roofline


def report() -> ReportPayload:
    sneaky = "</script><script>alert(1)</script><!--"
    return ReportPayload(
        title=f"tilewise run: {sneaky}",
        charts=[
            TimelinePayload(operator=sneaky, sites=[TimelineSite(api="DataCopy", file=f"/x/{sneaky}.cpp", line=4)]),
            ConvergencePayload(operator="Add", strategy="evo", budget=8, shipped_us=10.0),
        ],
    )


def test_the_page_keeps_its_data_in_one_block_and_allows_only_its_own_script():
    bundle = "window.tilewiseCharts = {}; /* a bundle may say </script> in a string */"
    page = render_report(report(), bundle)
    blocks = re.findall(r'<script type="application/json" id="tilewise-report">(.*?)</script>', page, re.S)
    assert len(blocks) == 1 and "<" not in blocks[0]  # nothing in the data can open or close markup
    assert ReportPayload.model_validate(json.loads(blocks[0])) == report()
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    assert len(scripts) == 1 and "alert" not in scripts[0]
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert csp and f"script-src 'sha256-{digest}'" in csp.group(1) and "default-src 'none'" in csp.group(1)
    assert "http://" not in page and "https://" not in page  # nothing from the network
    assert "<title>tilewise run: &lt;/script&gt;" in page


def test_the_report_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    bundle = tmp_path / "charts.js"
    bundle.write_text("window.tilewiseCharts = {};")
    monkeypatch.setenv(BUNDLE_ENV, str(bundle))
    target = write_report(tmp_path / "out" / "report.html", report())
    assert target.read_text().startswith("<!DOCTYPE html>") and sorted(p.name for p in target.parent.iterdir()) == [
        "report.html"
    ]  # no temporary file left beside it
    mask = os.umask(0o022)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask  # as any file the user makes, not mkstemp's 0600

    def fail(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("tilewise.report.html.os.replace", fail)
    with pytest.raises(OSError):
        write_report(target, ReportPayload(title="second"))
    assert "tilewise run:" in target.read_text()  # the earlier report is intact
    assert sorted(p.name for p in target.parent.iterdir()) == ["report.html"]


def test_a_missing_bundle_is_one_line_with_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv(BUNDLE_ENV, str(tmp_path / "nowhere.js"))
    with pytest.raises(TilewiseError) as exc:
        charts_bundle()
    line = exc.value.one_line()
    assert str(tmp_path / "nowhere.js") in line and "npm --prefix vscode-client run bundle" in line
    assert "\n" not in line


def test_the_repositorys_bundle_is_where_the_report_looks(monkeypatch):
    monkeypatch.delenv(BUNDLE_ENV, raising=False)
    expected = Path(__file__).resolve().parents[1] / "vscode-client" / "media" / "charts.js"
    try:
        assert charts_bundle() == expected
    except TilewiseError as exc:  # not built on this machine: the error names that very path
        assert exc.file == str(expected)


def test_a_run_whose_trace_cannot_be_read_keeps_its_roofline_and_says_why(tmp_path):
    trace = tmp_path / "trace.json"
    trace.write_text('{"traceEvents": [{"ph": "X", "pid": 0')  # cut short, as a killed run leaves it
    m = run(40.0, 2.0, 30_000_000, 15_000_000)
    m.trace_path = str(trace)
    report, notes = run_report(m, CHIP, "Add")
    assert [c.kind for c in report.charts] == ["roofline"]
    assert len(notes) == 1 and notes[0].startswith(f"no timeline: {trace}") and notes[0] in report.subtitle
