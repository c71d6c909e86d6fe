"""The convergence payload from a real search's event stream (the fake device of tests/search/fakes.py, no g++):
every measured and screened candidate is a point in the order proposed, the shipped tiling is the reference, and
the best matches the tuner's result, both live (each event) and at the end."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import FakeDevice
from opgen import scale_manifest, write_operator
from test_tuner_screening import SPACE, overflows, screen_ub, timed

from tilewise.analysis.operator import Operator, load_operator
from tilewise.device.protocol import Measurement
from tilewise.report.convergence import ConvergenceRecorder
from tilewise.search.tuner import Tuner


@pytest.fixture
def op(tmp_path: Path) -> Operator:
    write_operator(tmp_path / "scale", manifest=scale_manifest(1024, golden=False))
    return load_operator(tmp_path / "scale")


def test_every_candidate_is_a_point_and_the_best_is_the_tuners(op):
    def answer(c):  # one configuration fails its output check: a failed point
        if c["BLOCK_DIM"] == 24:
            return Measurement(ok=False, correct=False)
        return timed(c)

    device = FakeDevice(answer, screen=screen_ub)
    tuner = Tuner(op, device, op.manifest.cases, strategy="grid", budget=28, space=SPACE, workers=1)
    recorder = ConvergenceRecorder(op.model.operator, "grid", 28, cases=[c.name for c in tuner.cases])
    live = []
    for ev in tuner.events():
        recorder.add(ev)
        live.append(recorder.payload())
    result = tuner.result()
    recorder.finish(result)
    final = recorder.payload()

    assert not live[0].done and live[-1].done and final.done and not final.stopped
    measured = [p for p in final.points if p.status != "screened"]
    screened = [p for p in final.points if p.status == "screened"]
    assert [p.config for p in measured] == [t.config for t in result.trials]
    assert [p.evaluation for p in measured] == list(range(1, result.evaluations + 1))
    assert len(screened) == result.screened > 0 and all(overflows(p.config) and p.reason for p in screened)
    assert all(p.time_us is None for p in screened)
    failed = [p for p in measured if p.status == "failed"]
    assert failed and all(p.config["BLOCK_DIM"] == 24 and p.time_us is None for p in failed)
    # a screened point sits between the measurements made before it and the next one
    for i, p in enumerate(final.points):
        if p.status == "screened":
            before = [q.evaluation for q in final.points[:i] if q.status != "screened"]
            assert p.evaluation == (before[-1] if before else 0)
    assert final.shipped_config == result.baseline and final.shipped_us == result.baseline_us
    assert final.best_config == result.best and final.best_us == result.best_us
    ok_times = [p.time_us for p in measured if p.status == "ok"]
    assert final.best_us == min(ok_times)
    assert len(live) == len(final.points) + 1  # one event per candidate, then "done"
