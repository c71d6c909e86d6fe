"""benchmarks/fidelity.py: case files are read strictly, the error figure is computed as documented, and a pair of
operators runs end to end on the emulator. The published figures here are made up for the test; real cases live in
benchmarks/fidelity/cases with their sources."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from benchmarks.fidelity import Outcome, Published, figure, load_case, main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

CASE = """\
[case]
kind = "core-count"
source = "made up for the test of the harness"
hardware = "none"
conditions = "fp16 [48, 4096]"
summary = "one core -> every core"
[published]
speedup = {speedup}
[run]
case = "fp16_base"
"""


def test_the_figure_is_the_geometric_mean_of_the_factors_off():
    two_x_over = Outcome("a", "k", "s", published=2.0, predicted_us=(40.0, 10.0))  # predicted 4x: off by 2
    exact = Outcome("b", "k", "s", published=3.0, predicted_us=(30.0, 10.0))
    half_under = Outcome("c", "k", "s", published=4.0, predicted_us=(20.0, 10.0))  # predicted 2x: off by 2
    failed = Outcome("d", "k", "s", published=5.0, error="slow: wrong output")  # not counted
    assert figure([two_x_over, exact, half_under, failed]) == pytest.approx(math.exp(2 * math.log(2) / 3))
    assert figure([failed]) is None


def test_published_figures_need_a_complete_measure():
    assert Published(slow_us=10, fast_us=4).ratio() == 2.5
    assert Published(slow_cycles=300, fast_cycles=100).ratio() == 3.0
    assert Published(speedup=1.5).ratio() == 1.5
    with pytest.raises(ValueError, match="both the slow and the fast"):
        Published(slow_us=10)
    with pytest.raises(ValueError, match="give slow_us and fast_us"):
        Published()


def test_kernel_measure_and_scale_are_read_and_bounded(tmp_path):
    text = CASE.format(speedup=2.0).replace(
        'case = "fp16_base"', 'case = "fp16_base"\nmeasure = "kernel"\nscale = 0.25'
    )
    (tmp_path / "case.toml").write_text(text)
    info = load_case(tmp_path)
    assert (info.run.measure, info.run.scale) == ("kernel", 0.25)
    (tmp_path / "case.toml").write_text(text.replace("scale = 0.25", "scale = 4"))
    with pytest.raises(SystemExit, match="run.scale: Input should be less than or equal to 1"):
        load_case(tmp_path)


def test_a_malformed_case_file_names_the_file_and_the_field(tmp_path):
    (tmp_path / "case.toml").write_text(CASE.format(speedup=2.0).replace('kind = "core-count"\n', ""))
    with pytest.raises(SystemExit, match=r"case.toml: case.kind: Field required"):
        load_case(tmp_path)
    (tmp_path / "case.toml").write_text("[case\n")
    with pytest.raises(SystemExit, match="case.toml: .*fix the TOML syntax"):
        load_case(tmp_path)


def test_a_pair_runs_on_the_emulator_and_is_compared(tmp_path, emu_cache, needs_gxx, monkeypatch, capsys):
    monkeypatch.setenv("TILEWISE_CACHE", str(emu_cache))
    case = tmp_path / "cases" / "one-core-to-all"
    shutil.copytree(EXAMPLES / "add_custom_slow_block_dim_1", case / "slow")
    shutil.copytree(EXAMPLES / "add_custom", case / "fast")
    (case / "case.toml").write_text(CASE.format(speedup=2.0))
    code = main(["--cases", str(tmp_path / "cases"), "--json", str(tmp_path / "out.json")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "1/1 cases ran" in out
    [row] = json.loads((tmp_path / "out.json").read_text())
    assert row["predicted"] > 1.1  # one core to 48: faster, though launch overhead dominates at this size
    assert row["log_error"] == pytest.approx(abs(math.log(row["predicted"] / 2.0)))
    assert f"{math.exp(row['log_error']):.2f}" in out
    assert f"  one-core-to-all: {row['source']}" in out  # every case's source is named
