"""One cost model: the estimates the analysis makes without running (analysis.chip.TimingConfig's methods, which
hover, explain and the lint rules' gains use) against the emulator's timing model (tw/timing/model.h) on the same call.

cost_driver.cpp runs one AscendC call on one block through the emulator's headers and schedules its trace with the
chip's constants, sent the way a run sends them (device/emulator/timing.py's spec lines). The test computes the same
call's cycles with TimingConfig (the bytes a count-form DataCopy keeps, the bursts of a parameter copy, DataCopyPad's
rows, the repeats of a count-form vector instruction, the fp16 or fp32 column, the default row) and wants the same
figure. Changing either side's formula (or how the trace counts bursts and repeats) makes it fail."""

from __future__ import annotations

import subprocess

import pytest
from kernel_drivers import CXX, build_driver
from paths import ROOT

from tilewise.analysis.chip import Chip, TimingConfig, load_chip, timing_config
from tilewise.device.emulator.timing import spec_lines

# One worker runs this module (--dist loadgroup) and its session fixture compiles there once, whatever runs between.
pytestmark = [
    pytest.mark.skipif(CXX is None, reason="g++ is not installed"),
    pytest.mark.xdist_group("test_cost_agreement"),
]

DRIVER = ROOT / "tests" / "emulator" / "cost_driver.cpp"
SIZES = {"half": 2, "int16": 2, "float": 4, "int32": 4}
API = {"add": "Add", "adds": "Adds", "sigmoid": "Sigmoid"}


@pytest.fixture(scope="session")
def driver(tmp_path_factory: pytest.TempPathFactory):
    exe = build_driver(tmp_path_factory, DRIVER)

    def run(chip: Chip, *args: str | int) -> dict[str, list[str]]:
        p = subprocess.run(
            [str(exe), *map(str, args)],
            input="\n".join(spec_lines(chip)) + "\n",
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert p.returncode == 0, p.stderr
        out = {}
        for line in p.stdout.splitlines():
            key, *words = line.split()
            out[key if key != "busy" else words.pop(0)] = words
        assert out["result"] == ["ok"], p.stdout
        return out

    return run


def expected(t: TimingConfig, chip: Chip, case: str, dtype: str, n: int, m: int) -> tuple[str, float]:
    """The pipe the call runs on and its cycles, from TimingConfig alone. One block copying one way gets all of HBM,
    which is what the scheduler's share comes to for this launch."""
    size, clock, cap = SIZES[dtype], chip.clock_ghz, chip.hbm_gbps * 1e9
    if case in ("copy_in", "copy_out"):
        cycles = t.dma_cycles(t.datacopy_bytes(n, size), clock, cap_bytes_per_s=cap, outward=case == "copy_out")
        return ("MTE2" if case == "copy_in" else "MTE3"), cycles
    if case == "params":  # n blocks of m 32-byte units: one burst per block
        return "MTE2", t.dma_cycles(n * m * 32, clock, bursts=n, cap_bytes_per_s=cap)
    if case == "pad":  # n rows of m bytes: one burst per row, and the padding work per row
        return "MTE2", t.dma_cycles(n * m, clock, bursts=n, pad=True, cap_bytes_per_s=cap)
    name = API[case] if API[case] in t.vector else None  # an API the chip file does not list takes the default row
    return "VECTOR", t.vector_busy_cycles(name, size, t.vector_repeats(n, size))


CASES = [
    ("copy_in", "half", 4096, 0),  # aligned, mid-size
    ("copy_in", "float", 16384, 0),  # large (64 KiB): near the peak
    ("copy_in", "half", 100, 0),  # 200 bytes: the device keeps 192 (whole 32-byte blocks)
    ("copy_in", "int32", 8, 0),  # one block: startup-dominated
    ("copy_out", "float", 6144, 0),
    ("params", "float", 4, 3),  # four 96-byte bursts
    ("params", "half", 64, 16),
    ("pad", "half", 3, 100),  # three 100-byte rows
    ("pad", "float", 1, 4000),
    ("add", "half", 1000, 0),  # 2000 bytes: 8 repeats, the last partial
    ("add", "float", 64, 0),  # exactly one repeat, fp32 column
    ("add", "int16", 128, 0),  # 2-byte integers take the fp16 column
    ("adds", "float", 129, 0),  # 516 bytes: 3 repeats
    ("adds", "half", 16384, 0),  # 128 repeats
    ("sigmoid", "half", 300, 0),  # not in the chip file: the default row
]


@pytest.mark.parametrize(("case", "dtype", "n", "m"), CASES, ids=lambda v: str(v))
def test_the_estimate_is_the_emulators_cost(driver, case: str, dtype: str, n: int, m: int):
    chip = load_chip()
    t = timing_config(chip)
    out = driver(chip, case, dtype, n, m)
    pipe, cycles = expected(t, chip, case, dtype, n, m)
    assert float(out[pipe][0]) == pytest.approx(cycles, rel=1e-12)
    others = [p for p in ("VECTOR", "MTE2", "MTE3") if p != pipe]
    assert all(float(out[p][0]) == 0 for p in others)


def test_the_hbm_share_caps_a_copy_in_both(driver):
    """With HBM slower than one core's DMA fit, the scheduler's cap decides the copy's bandwidth: the estimate
    takes the same cap."""
    chip = load_chip().model_copy(update={"hbm_gbps": 40.0})
    t = timing_config(chip)
    out = driver(chip, "copy_in", "float", 16384, 0)
    capped = t.dma_cycles(65536, chip.clock_ghz, cap_bytes_per_s=40e9)
    assert capped > t.dma_cycles(65536, chip.clock_ghz)  # the cap binds at this size
    assert float(out["MTE2"][0]) == pytest.approx(capped, rel=1e-12)
