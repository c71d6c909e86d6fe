"""`tilewise calibrate` (search/calibrate/): with the emulator on a chip whose constants were moved standing in for
the device, the fit recovers the moved constants from the base chip, the model's error falls to nothing, and the
chip file it writes loads and reproduces the device's times. A formula device (no g++) checks the fit itself:
what it recovers, and which constants it leaves when the micro-kernels cannot pin them (one core: no per-core
launch cost). The CLI writes the file and prints the table; bad input is one line."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from recorded import Recording, RecordingDevice, ReplayDevice, recording_wanted

from tilewise.analysis.chip import Chip, chip_in_soc, load_chip, timing_config
from tilewise.analysis.operator import Operator
from tilewise.cli import main
from tilewise.cli.calibrate_command import print_calibration
from tilewise.device import registry
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import Device, Measurement, RunError, RunRequest
from tilewise.search.calibrate import VECTOR_CLASSES, CalibrationError, calibrate, write_chip
from tilewise.search.calibrate.kernels import micro_kernels


def moved(base: str, name: str, dma_peak=0.7, launch_base=1.0, exp_slope=1.5, mte2_latency=1.2) -> dict:
    """The base chip's file with four constants moved: the device's 'true' constants."""
    data = load_chip(base).model_dump()
    t = data["timing"]
    t["dma_peak_gibps"] *= dma_peak
    t["launch_us_base"] += launch_base
    t["mte2_latency_cycles"] = t.get("mte2_latency_cycles", 0.0) * mte2_latency
    head, slope = t["vector"]["Exp"]["fp16"]
    t["vector"]["Exp"]["fp16"] = [head, slope * exp_slope]
    data["name"] = name
    return data


def fitted(cal, key: str) -> float:
    [change] = [c for c in cal.constants if c.key == key]
    assert change.fitted, change
    return change.after


@pytest.mark.slow  # every micro-kernel built and run on the emulator, again at each step of the fit
def test_the_fit_recovers_moved_constants_from_the_emulator(tmp_path, emu_cache, needs_gxx):
    """The emulator itself; with TILEWISE_RECORD=1 it records the times the test below replays (tests/recorded.py)."""
    recording = Recording("calibrate_fit")
    if recording_wanted():
        recording.times.clear()  # a recording holds only what this run asks for

    def device_for(chip: Chip) -> Device:
        device = EmulatorDevice(chip=chip, cache_dir=emu_cache)
        return RecordingDevice(device, recording) if recording_wanted() else device

    recovers_moved_constants(tmp_path, emu_cache / "calibrate", device_for)
    if recording_wanted():
        recording.save()


def test_the_fit_recovers_moved_constants_from_recorded_emulator_times(tmp_path):
    """The same fit over the emulator's times as the test above recorded them (tests/recorded/calibrate_fit.json)."""
    recording = Recording("calibrate_fit")
    recovers_moved_constants(tmp_path, tmp_path / "calibrate", lambda chip: ReplayDevice(chip, recording))


def recovers_moved_constants(tmp_path: Path, workdir: Path, device_for: Callable[[Chip], Device]) -> None:
    truth = Chip.model_validate(moved("910B2", "910B2-moved"))
    base = load_chip("910B2")
    start = time.perf_counter()
    cal = calibrate(
        device_for(truth),
        base,
        model_for=device_for,
        classes=("Add", "Exp"),
        dtypes=("float16",),
        workdir=workdir,
        name="910B2-recovered",
    )
    took = time.perf_counter() - start
    t, t0 = timing_config(truth), timing_config(base)
    assert all(not r.note for r in cal.rows), [(r.name, r.note) for r in cal.rows if r.note]
    # the moved constants come back ...
    assert fitted(cal, "dma_peak_gibps") == pytest.approx(t.dma_peak_gibps, rel=0.02)
    assert fitted(cal, "launch_us_base") == pytest.approx(t.launch_us_base, rel=0.02)
    assert fitted(cal, "mte2_latency_cycles") == pytest.approx(t.mte2_latency_cycles, rel=0.02)
    assert fitted(cal, "vector.Exp.fp16.per_repeat") == pytest.approx(t.vector["Exp"].fp16[1], rel=0.02)
    # ... and the ones left alone stay where they were
    for key in ("dma_out_gibps", "dma_issue_cycles", "mte3_latency_cycles", "launch_us_per_core"):
        assert fitted(cal, key) == pytest.approx(getattr(t0, key), rel=0.03), key
    assert fitted(cal, "hbm_gbps") == pytest.approx(base.hbm_gbps, rel=0.03)
    assert fitted(cal, "vector.Add.fp16.per_repeat") == pytest.approx(t0.vector["Add"].fp16[1], rel=0.03)
    # the model's error before and after, per micro-kernel
    assert max(abs(r.error_before or 0) for r in cal.rows) > 0.1
    assert max(abs(r.error_after or 0) for r in cal.rows) < 0.005, [(r.name, r.error_after) for r in cal.rows]
    assert cal.typical_after < 1.002 < cal.typical_before
    # the chip file loads, says what was calibrated, and reproduces the device's times
    out = tmp_path / "chip.json"
    write_chip(cal.chip, out)
    chip = load_chip(str(out))
    assert chip.name == "910B2-recovered"
    assert "calibrated by tilewise calibrate on emulator" in chip.sources["timing.dma_peak_gibps"]
    assert "was 100.9" in chip.sources["timing.dma_peak_gibps"]
    assert "fp16 per repeat was 4" in chip.sources["timing.vector.Exp"]
    assert "vector_latency_cycles" in json.loads(out.read_text())["calibration"]["left"]
    assert timing_config(chip).vector["Exp"].fp32 == t0.vector["Exp"].fp32  # not timed: as it was
    print(f"calibration: {len(cal.rows)} micro-kernels, {cal.runs} runs, {took:.1f} s")


# ---- the fit on a formula device (no build) -----------------------------------------------------------------------


class FormulaDevice:
    """Times the micro-kernels by a formula of the chip's constants with the emulator's structure (a copy costs the
    longest of its issue, its bytes at the core's rate and at its share of HBM; latencies on each waited copy;
    a vector instruction behind a barrier its startup, its repeats and the latency), instantly."""

    name = "formula"

    def __init__(self, chip: Chip):
        self.chip = chip

    def run(self, op: Operator, request: RunRequest) -> Measurement:
        case = request.case
        t, chip, a = timing_config(self.chip), self.chip, case.attrs
        hz = chip.clock_ghz * 1e9
        if "mode" in a:
            blocks, nbytes, tiles = int(a["blocks"]), int(a["tile"]) * 2, int(a["tiles"])
            hbm = nbytes * blocks / (chip.hbm_gbps * 1e9) * hz * 2  # both directions share HBM
            cin = max(t.dma_issue_cycles, nbytes / (t.dma_peak_gibps * 2**30) * hz, hbm)
            cout = max(t.dma_issue_cycles, nbytes / (t.dma_out_gibps * 2**30) * hz, hbm)
            one = cin + t.mte2_latency_cycles + cout + t.mte3_latency_cycles
            body = {
                (0, 1): tiles * one,
                (0, 2): (tiles - 1) * max(cin, cout) + one,
                (1, 1): tiles * (cin + t.mte2_latency_cycles) + cout + t.mte3_latency_cycles,
                (2, 1): cin + t.mte2_latency_cycles + tiles * (cout + t.mte3_latency_cycles),
            }[(int(a["mode"]), int(a["depth"]))]
        else:
            blocks = 1
            width = 2 if case.inputs["x"].dtype == "float16" else 4
            span = int(a["span"]) * width
            copies = 2 * span / (t.dma_peak_gibps * 2**30) * hz + t.mte2_latency_cycles
            copies += span / (t.dma_out_gibps * 2**30) * hz + t.mte3_latency_cycles
            head, slope = t.vector_row(list(VECTOR_CLASSES)[int(a["opcode"])], width)
            repeats = t.vector_repeats(int(a["count"]), width)
            body = copies + int(a["reps"]) * (head + slope * repeats + t.vector_latency_cycles)
        launch = t.launch_us_base + t.launch_us_per_core * min(blocks, chip.vector_cores)
        return Measurement(ok=True, correct=True, time_us=launch + body / hz * 1e6, launch_us=launch)

    def screen(self, *args, **kwargs):  # pragma: no cover - the calibration never screens
        raise NotImplementedError


def test_the_fit_recovers_a_formula_device_and_names_what_it_cannot_pin(tmp_path, capsys):
    truth = Chip.model_validate(moved("910B2", "moved", dma_peak=1.3, launch_base=0.5, exp_slope=0.5))
    cal = calibrate(
        FormulaDevice(truth),
        load_chip("910B2"),
        model_for=FormulaDevice,
        classes=("Add", "Exp"),
        workdir=tmp_path,
    )
    print_calibration(cal, "mine.json")
    text = capsys.readouterr().out
    for words in ("micro-kernel", "launch 48 blocks", "Exp fp16 x32, 48 repeats", "dma_peak_gibps", "typical model"):
        assert words in text
    assert "use it with --chip mine.json" in text
    t = timing_config(truth)
    assert fitted(cal, "dma_peak_gibps") == pytest.approx(t.dma_peak_gibps, rel=1e-3)
    assert fitted(cal, "mte2_latency_cycles") == pytest.approx(t.mte2_latency_cycles, rel=1e-3)
    assert fitted(cal, "vector.Exp.fp16.per_repeat") == pytest.approx(t.vector["Exp"].fp16[1], rel=1e-3)
    assert fitted(cal, "vector.Exp.fp32.per_repeat") == pytest.approx(t.vector["Exp"].fp32[1], rel=1e-3)
    assert cal.typical_after == pytest.approx(1.0, abs=1e-4)

    one_core = Chip.model_validate({**moved("310B", "moved-310B", launch_base=0.3), "vector_cores": 1})
    cal = calibrate(
        FormulaDevice(one_core), load_chip("310B"), model_for=FormulaDevice, classes=("Add",), workdir=tmp_path
    )
    left = {c.key: c.why for c in cal.constants if not c.fitted}
    assert "cannot tell it from launch_us_base" in left["launch_us_per_core"]  # one core: a launch is one figure
    assert "no micro-kernel's time depends on it" in left["hbm_gbps"]  # one core never reaches HBM's share
    assert fitted(cal, "launch_us_base") + timing_config(one_core).launch_us_per_core == pytest.approx(
        timing_config(one_core).launch_us_base + timing_config(one_core).launch_us_per_core, rel=1e-3
    )
    assert fitted(cal, "dma_peak_gibps") == pytest.approx(timing_config(one_core).dma_peak_gibps, rel=1e-3)


def test_a_device_that_runs_nothing_is_one_error(tmp_path):
    class Broken(FormulaDevice):
        def run(self, op: Operator, request: RunRequest) -> Measurement:
            return Measurement(ok=False, error=RunError(kind="build_error", message="the project has no build.sh"))

    with pytest.raises(
        CalibrationError,
        match="no micro-kernel ran on both the formula and the emulator; the first: "
        "device: build_error: the project has no build.sh",
    ):
        calibrate(
            Broken(load_chip("910B2")), load_chip("910B2"), model_for=FormulaDevice, classes=("Add",), workdir=tmp_path
        )


def test_a_calibrated_chip_belongs_to_its_base_chips_soc():
    assert chip_in_soc("910B2-calibrated-box", "ascend910b") and not chip_in_soc("910B2-calibrated-box", "ascend310b")


def test_the_micro_kernels_fit_the_chip():
    """Every copy fits in the UB twice over and no launch asks for more blocks than the chip has cores."""
    for name in ("910B2", "310B"):
        chip = load_chip(name)
        for k in micro_kernels(chip):
            assert k.blocks <= chip.vector_cores, k.name
            if "tile" in k.case.attrs:
                assert 2 * 2 * int(k.case.attrs["tile"]) <= chip.ub_bytes, k.name


# ---- the CLI -------------------------------------------------------------------------------------------------------


@pytest.mark.slow  # the command's whole calibration on the emulator
def test_cli_calibrates_against_a_stand_in_and_writes_the_chip(tmp_path, emu_cache, needs_gxx, monkeypatch, capsys):
    """On the emulator; with TILEWISE_RECORD=1 it records the times the test below replays (tests/recorded.py)."""
    monkeypatch.setenv("TILEWISE_CACHE", str(emu_cache))
    recording = Recording("calibrate_cli")
    if recording_wanted():
        recording.times.clear()
        real = registry.make_device
        monkeypatch.setattr(registry, "make_device", lambda name, **kw: RecordingDevice(real(name, **kw), recording))
    cli_calibrates_against_a_stand_in(tmp_path, capsys)
    if recording_wanted():
        recording.save()


def test_cli_calibrates_from_recorded_emulator_times(tmp_path, monkeypatch, capsys):
    """The command over the emulator's times as the test above recorded them (tests/recorded/calibrate_cli.json)."""
    recording = Recording("calibrate_cli")

    def replay(name: str, *, chip=None, **_) -> Device:
        assert name == "emulator", name
        return ReplayDevice(chip, recording)

    monkeypatch.setattr(registry, "make_device", replay)
    cli_calibrates_against_a_stand_in(tmp_path, capsys)


def cli_calibrates_against_a_stand_in(tmp_path: Path, capsys) -> None:
    stand_in = tmp_path / "stand_in.json"
    stand_in.write_text(json.dumps(moved("910B2", "stand-in", launch_base=2.0)))
    out = tmp_path / "mine.json"
    argv = ["calibrate", "--device-chip", str(stand_in), "--out", str(out), "--classes", "Exp", "--dtypes", "float16"]
    code = main([*argv, "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert report["chip"] == str(out) and report["base"] == "910B2" and report["device"] == "emulator"
    rows = {r["name"]: r for r in report["micro_kernels"]}
    assert abs(rows["launch 1 block"]["error_after"]) < 0.005 < abs(rows["launch 1 block"]["error_before"])
    constants = {c["key"]: c for c in report["constants"]}
    assert constants["launch_us_base"]["after"] == pytest.approx(3.7, rel=0.02)
    assert load_chip(str(out)).name.startswith("910B2-calibrated-")


@pytest.mark.parametrize(
    ("extra", "flag", "words"),
    [
        (["--out", "/nonexistent-folder/chip.json"], "--out", "does not exist"),
        (["--out", "{tmp}/chip.json", "--device", "gpu"], "--device", "unknown device 'gpu'"),
        (["--out", "{tmp}/chip.json", "--classes", "Add,Frobnicate"], "--classes", "Frobnicate"),
        (["--out", "{tmp}"], "--out", "is a folder"),
    ],
)
def test_cli_bad_input_is_one_line(tmp_path, capsys, extra, flag, words):
    code = main(["calibrate", *[e.replace("{tmp}", str(tmp_path)) for e in extra]])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith(f"error: {flag}: ") and words in err, err
    assert not (Path(tmp_path) / "chip.json").exists()
