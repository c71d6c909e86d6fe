"""Each timing constant is declared once, in analysis/chip.py's table (`TIMING_CONSTANTS`); the run spec, the
emulator's TimingParams, the calibration's copy constants and the sensitivity check follow it.

The C++ side is generated (tw/timing/constants.h, an X-macro list): the committed header must be what the table
writes, and a driver built on the real TimingParams must read every constant a chip file gives into the field of
the same name. Adding a constant to the table without regenerating the header fails here."""

from __future__ import annotations

import subprocess

import pytest
from kernel_drivers import CXX, build_driver
from paths import ROOT

from tilewise.analysis.chip import TIMING_CONSTANTS, TimingConfig, builtin_chips, load_chip, timing_config
from tilewise.device.emulator.timing import spec_lines
from tilewise.device.emulator.timing_header import HEADER, header_text, main
from tilewise.search.calibrate.kernels import COPY_KEYS
from tilewise.search.robustness import SENSITIVE

DRIVER = ROOT / "tests" / "emulator" / "timing_params_driver.cpp"


def test_the_committed_header_is_the_tables():
    assert HEADER.read_text(encoding="utf-8") == header_text(), "run: python -m tilewise.device.emulator.timing_header"
    assert main(["--check"]) == 0


def test_every_timing_field_is_a_declared_constant():
    names = [c.name for c in TIMING_CONSTANTS]
    assert len(names) == len(set(names))
    assert set(TimingConfig.model_fields) <= set(names)  # no `timing` field without its row in the table
    assert {"clock_ghz", "vector_cores", "hbm_gbps"} <= set(names)  # the chip-level figures the runner reads
    for c in TIMING_CONSTANTS:
        assert c.unit and c.prices, c.name
        assert c.default is None or c.section == "timing", c.name  # a chip-level figure is every chip file's


def test_calibration_and_sensitivity_follow_the_table():
    assert tuple(c.name for c in TIMING_CONSTANTS if c.fit in ("copy", "launch")) == COPY_KEYS
    assert tuple(c.name for c in TIMING_CONSTANTS if c.sensitive) == SENSITIVE
    # the constants (and, for the fit's first stage, their order) they had when each was a list of its own
    assert COPY_KEYS == (
        "launch_us_base", "launch_us_per_core", "dma_peak_gibps", "dma_out_gibps", "dma_issue_cycles",
        "mte2_latency_cycles", "mte3_latency_cycles", "hbm_gbps",
    )  # fmt: skip
    assert set(SENSITIVE) == {
        "launch_us_base", "launch_us_per_core", "dma_peak_gibps", "dma_out_gibps", "dma_issue_cycles",
        "mte2_latency_cycles", "vector_latency_cycles", "scalar_issue_cycles", "l2_gbps", "hbm_gbps", "clock_ghz",
        "vector",
    }  # fmt: skip


@pytest.mark.parametrize("name", builtin_chips())
def test_the_spec_sends_every_constant_once(name: str):
    chip = load_chip(name)
    lines = [line.split() for line in spec_lines(chip)]
    keys = [words[1] for words in lines if words[1] != "vcost"]
    assert keys == [c.name for c in TIMING_CONSTANTS if c.type != "table"]
    rows = [(words[2], words[3]) for words in lines if words[1] == "vcost"]
    assert len(rows) == len(set(rows)) == 2 * len(timing_config(chip).vector)


@pytest.mark.skipif(CXX is None, reason="g++ is not installed")
def test_timing_params_reads_every_constant_into_its_field(tmp_path_factory: pytest.TempPathFactory):
    exe = build_driver(tmp_path_factory, DRIVER)
    for name in builtin_chips():
        chip = load_chip(name)
        t = timing_config(chip)
        p = subprocess.run(
            [str(exe)], input="\n".join(spec_lines(chip)) + "\n", capture_output=True, text=True, timeout=60
        )
        assert p.returncode == 0, p.stderr
        read = {}
        vcost = set()
        for line in p.stdout.splitlines():
            key, *words = line.split()
            if key == "vcost":
                vcost.add((words[0], int(words[1]), float(words[2]), float(words[3])))
            else:
                read[key] = [float(w) for w in words]
        for c in TIMING_CONSTANTS:
            if c.type == "table":
                continue
            value = getattr(chip if c.section == "chip" else t, c.name)
            assert read.pop(c.name) == (list(value) if c.type == "row" else [value]), (name, c.name)
        assert read == {}  # TimingParams has no field the table does not declare
        assert vcost == {
            (op, size, *(cost.fp16 if size == 2 else cost.fp32)) for op, cost in t.vector.items() for size in (2, 4)
        }
