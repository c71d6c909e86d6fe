"""The emulator is a `device.protocol.Device`: it has the members the protocol names, its `run` and `screen` (and
the NPU device's) take exactly the protocol's `(op, request)`, the `RunRequest` is one picklable value (what Ray
ships), the emulator reports a failure in the measurement instead of raising, and it hands over the produced arrays
exactly when asked to keep them."""

from __future__ import annotations

import inspect
import pickle
from dataclasses import FrozenInstanceError, replace

import numpy as np
import pytest
from opgen import SCALE_GOLDEN, scale_manifest, write_operator

from tilewise.analysis.manifest import Case
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.inputs import make_inputs
from tilewise.device.npu.device import NpuDevice
from tilewise.device.protocol import Device, RunRequest
from tilewise.device.registry import make_device


def test_the_emulator_satisfies_the_protocol() -> None:
    device: Device = EmulatorDevice()  # the static check: a type checker refuses this line if the class drifts
    assert isinstance(device, Device) and isinstance(make_device("emulator"), Device)
    assert isinstance(device.name, str) and device.chip.name


def npu_as_device(npu: NpuDevice) -> Device:
    """The NPU device's static check (making one needs CANN): a type checker refuses this return if it drifts."""
    return npu


@pytest.mark.parametrize("method", ["run", "screen"])
@pytest.mark.parametrize("cls", [EmulatorDevice, NpuDevice], ids=["emulator", "npu"])
def test_run_and_screen_take_the_protocols_request(cls, method):
    want = inspect.signature(getattr(Device, method))
    got = inspect.signature(getattr(cls, method))
    # the same parameters, in order, of the same kinds and annotations: (self, op, request), nothing more required
    assert [(p.name, p.kind, p.annotation) for p in got.parameters.values()] == [
        (p.name, p.kind, p.annotation) for p in want.parameters.values()
    ], f"{cls.__name__}.{method}{got} drifted from Device.{method}{want}"
    assert got.return_annotation == want.return_annotation


def test_a_request_is_one_picklable_value_and_a_variant_leaves_it_alone() -> None:
    """What Ray ships to a worker: a round trip through pickle keeps every field (arrays included)."""
    case = Case.model_validate({"name": "c", "inputs": {"x": {"shape": [4], "dtype": "float16"}}})
    x = np.arange(4, dtype=np.float16)
    request = RunRequest(case, knobs={"TILE": 64}, seed=3, inputs={"x": x}, texts={"k.cpp": "int k;"}, sites=True)
    back = pickle.loads(pickle.dumps(request))
    assert back.case == case and back.knobs == {"TILE": 64} and back.seed == 3 and back.sites
    assert back.texts == {"k.cpp": "int k;"} and np.array_equal(back.inputs["x"], x)
    kept = replace(request, keep_outputs=True)
    assert kept.keep_outputs and not request.keep_outputs and kept.knobs == request.knobs
    with pytest.raises(FrozenInstanceError):
        request.seed = 4  # type: ignore[misc]
    assert RunRequest(case).knobs == {} and RunRequest(case).texts is None  # the shipped sources and values


def test_a_failure_is_a_measurement_not_an_exception(tmp_path):
    op = load_operator(write_operator(tmp_path / "scale", manifest=scale_manifest(1024)))
    wrong = Case.model_validate({"name": "wrong", "inputs": {"q": {"shape": [8], "dtype": "float16"}}})
    m = EmulatorDevice().run(op, RunRequest(wrong))
    assert not m.ok and m.error is not None and m.error.kind == "bad_case"
    assert m.produced_outputs() is None


def test_the_produced_outputs_come_back_only_when_kept(tmp_path, emu_cache, needs_gxx):
    root = write_operator(tmp_path / "scale", manifest=scale_manifest(8192 * 48))
    (root / "golden.py").write_text(SCALE_GOLDEN)
    op = load_operator(root)
    device = EmulatorDevice(cache_dir=emu_cache, timeout_s=60)
    case = op.manifest.cases[0]
    kept = device.run(op, RunRequest(case, seed=5, keep_outputs=True))
    assert kept.ok and kept.correct, kept.error
    (y,) = kept.produced_outputs()
    x = make_inputs(case, 5)["x"]  # the inputs the device drew for seed 5
    assert y.shape == x.shape and np.array_equal(y, (x.astype(np.float32) * 2).astype(np.float16).astype(y.dtype))
    plain = device.run(op, RunRequest(case, seed=5))
    assert plain.ok and plain.produced_outputs() is None
    assert "_outputs" not in kept.model_dump()  # arrays never go into a dump or the results cache
