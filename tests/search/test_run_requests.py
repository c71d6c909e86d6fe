"""What the tuner asks its device for, as the `RunRequest` a device (or a Ray worker) is handed: the tune's data
seed and given inputs on every screening and measurement, each candidate's knob values, and the produced outputs
kept exactly when there is no golden to compare them with. On a fake device (no g++)."""

from __future__ import annotations

import numpy as np
from fakes import FakeDevice
from opgen import scale_manifest, tuned_operator, write_operator

from tilewise.analysis.operator import load_operator
from tilewise.device.protocol import Measurement, RunRequest
from tilewise.search.executors import LocalExecutor
from tilewise.search.tuner import Tuner


def ok(knobs: dict[str, int]) -> Measurement:
    return Measurement(ok=True, correct=True, time_us=10.0 + sum(knobs.values()) % 7)


def test_every_measurement_carries_the_tunes_seed_inputs_and_knobs(tmp_path):
    op = load_operator(tuned_operator(tmp_path / "scale"))
    (case,) = op.manifest.cases
    x = np.ones(case.inputs["x"].shape, np.float16)
    device = FakeDevice(ok)
    tuner = Tuner(op, device, [case], strategy="grid", budget=4, data_seed=7, inputs={"x": x}, workers=1)
    list(tuner.events())
    assert len(device.requests) == 4
    for request, knobs in zip(device.requests, device.runs, strict=True):
        assert isinstance(request, RunRequest) and request.case == case and request.knobs == knobs
        assert request.seed == 7 and request.inputs is not None and request.inputs["x"] is x
        assert not request.keep_outputs  # the operator has a golden: the device checks, nothing comes back
        assert request.texts is None and request.trace_path is None and not request.sites
    assert [t.config for t in tuner.result().trials] == device.runs


def test_without_a_golden_the_outputs_are_asked_for(tmp_path):
    root = write_operator(tmp_path / "scale", manifest=scale_manifest(1024, golden=False))
    op = load_operator(root)
    device = FakeDevice(ok)
    list(Tuner(op, device, op.manifest.cases, strategy="grid", budget=2, executor=LocalExecutor(device)).events())
    assert device.requests and all(r.keep_outputs and r.seed == 0 and r.inputs is None for r in device.requests)


def test_a_ray_task_gets_the_drivers_build_folders_and_nothing_unset():
    from tilewise.search.executors import forwarded_env

    environ = {
        "TILEWISE_BUILD_CACHE": "/builds",
        "TILEWISE_PREBUILT": "/prebuilt",
        "TILEWISE_OPT": "-O0",
        "TILEWISE_CXX": "",  # set but empty: as good as unset
        "HOME": "/root",  # not tilewise's: the node's own
    }
    assert forwarded_env(environ) == {
        "TILEWISE_BUILD_CACHE": "/builds",
        "TILEWISE_PREBUILT": "/prebuilt",
        "TILEWISE_OPT": "-O0",
    }
