"""The emulator is a `device.protocol.Device`: it has the members the protocol names, its `run` and `screen` take
every option the protocol's do (same names, kinds and defaults, so a caller typed against the protocol can pass any
of them), it reports a failure in the measurement instead of raising, and it hands over the produced arrays exactly
when asked to keep them."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from opgen import SCALE_GOLDEN, scale_manifest, write_operator

from tilewise.analysis.manifest import Case
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.emulator.inputs import make_inputs
from tilewise.device.protocol import Device
from tilewise.device.registry import make_device


def test_the_emulator_satisfies_the_protocol() -> None:
    device: Device = EmulatorDevice()  # the static check: a type checker refuses this line if the class drifts
    assert isinstance(device, Device) and isinstance(make_device("emulator"), Device)
    assert isinstance(device.name, str) and device.chip.name


@pytest.mark.parametrize("method", ["run", "screen"])
def test_run_and_screen_take_every_option_of_the_protocol(method):
    want = inspect.signature(getattr(Device, method)).parameters
    got = inspect.signature(getattr(EmulatorDevice, method)).parameters
    for name, p in want.items():
        assert name in got, f"EmulatorDevice.{method} lacks {name}"
        assert (got[name].kind, got[name].default) == (p.kind, p.default), name
    # nothing more it would require of a caller
    extra = [n for n, p in got.items() if n not in want and p.default is inspect.Parameter.empty]
    assert not extra, extra


def test_a_failure_is_a_measurement_not_an_exception(tmp_path):
    op = load_operator(write_operator(tmp_path / "scale", manifest=scale_manifest(1024)))
    wrong = Case.model_validate({"name": "wrong", "inputs": {"q": {"shape": [8], "dtype": "float16"}}})
    m = EmulatorDevice().run(op, wrong)
    assert not m.ok and m.error is not None and m.error.kind == "bad_case"
    assert m.produced_outputs() is None


def test_the_produced_outputs_come_back_only_when_kept(tmp_path, emu_cache, needs_gxx):
    root = write_operator(tmp_path / "scale", manifest=scale_manifest(8192 * 48))
    (root / "golden.py").write_text(SCALE_GOLDEN)
    op = load_operator(root)
    device = EmulatorDevice(cache_dir=emu_cache, timeout_s=60)
    case = op.manifest.cases[0]
    kept = device.run(op, case, seed=5, keep_outputs=True)
    assert kept.ok and kept.correct, kept.error
    (y,) = kept.produced_outputs()
    x = make_inputs(case, 5)["x"]  # the inputs the device drew for seed 5
    assert y.shape == x.shape and np.array_equal(y, (x.astype(np.float32) * 2).astype(np.float16).astype(y.dtype))
    plain = device.run(op, case, seed=5)
    assert plain.ok and plain.produced_outputs() is None
    assert "_outputs" not in kept.model_dump()  # arrays never go into a dump or the results cache
