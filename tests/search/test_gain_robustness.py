"""Where a tuned gain comes from (search/robustness.py): the kernel body's speedup beside the total, and the gain
re-evaluated with each timing constant moved by 25%, on a fake device whose times follow its chip's constants."""

from __future__ import annotations

import pytest
from fakes import FakeDevice
from opgen import tuned_operator

from tilewise.analysis.chip import Chip, load_chip, timing_config
from tilewise.analysis.operator import load_operator
from tilewise.device.protocol import Measurement
from tilewise.search.robustness import SENSITIVE, explain_gain, moved_chip

SHIPPED = {"BLOCK_DIM": 8, "TILE_LENGTH": 1024}
FEWER_CORES = {"BLOCK_DIM": 1, "TILE_LENGTH": 1024}


def device_on(chip: Chip) -> FakeDevice:
    """A kernel whose body takes 10 us on any core count and whose launch costs base + per_core * cores: fewer
    cores win only through the launch constants."""
    t = timing_config(chip)

    def answer(knobs: dict[str, int]) -> Measurement:
        launch = t.launch_us_base + t.launch_us_per_core * knobs["BLOCK_DIM"]
        body = 10.0 * (chip.clock_ghz / 1.8)  # (the clock moves it too, alike for both configurations)
        return Measurement(ok=True, correct=True, time_us=body + launch, launch_us=launch)

    return FakeDevice(answer, chip=chip)


@pytest.fixture
def op(tmp_path):
    return load_operator(tuned_operator(tmp_path / "scale"))


def test_moved_chip_moves_one_constant():
    chip = load_chip("910B2")
    moved = moved_chip(chip, "launch_us_base", 1.25)
    assert timing_config(moved).launch_us_base == pytest.approx(timing_config(chip).launch_us_base * 1.25)
    assert timing_config(moved).dma_peak_gibps == timing_config(chip).dma_peak_gibps
    assert moved_chip(chip, "hbm_gbps", 0.75).hbm_gbps == pytest.approx(chip.hbm_gbps * 0.75)
    vector = timing_config(moved_chip(chip, "vector", 2.0)).vector["Add"].fp16
    assert vector == pytest.approx([c * 2 for c in timing_config(chip).vector["Add"].fp16])


def test_a_launch_only_gain_has_no_body_speedup_and_hinges_on_the_launch_constants(op):
    chip = load_chip("910B2")
    report = explain_gain(op, device_on(chip), device_on, op.manifest.cases[0], SHIPPED, FEWER_CORES)
    assert report is not None
    assert report.total > 1.0
    assert report.body == pytest.approx(1.0)  # the body takes as long: the whole gain is the launch's
    by_name = {s.constant: s for s in report.sensitivities}
    assert set(by_name) == set(SENSITIVE)
    assert by_name["launch_us_per_core"].swing > 1.0  # the per-core launch cost decides the gain
    assert by_name["dma_peak_gibps"].swing == pytest.approx(1.0)  # a constant this kernel never pays
    assert "launch_us_per_core" in report.summary() and "launch excluded" in report.summary()


def test_without_a_chip_factory_only_the_body_speedup_is_measured(op):
    device = device_on(load_chip("910B2"))
    report = explain_gain(op, device, None, op.manifest.cases[0], SHIPPED, FEWER_CORES)
    assert report is not None and report.sensitivities == [] and report.worst is None
    assert len(device.runs) == 2
