"""The tuner's own logic on a fake device (tests/search/fakes.py), no g++: the space comes from the annotations,
constraints prune a configuration before any run pays for it, and a tiling that overruns memory where the shipped
one does not is refused. (On the emulator, finding the optimum, failures, --apply and Ctrl-C are tested in
tests/emulator/test_tune_on_emulator.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import FakeDevice
from opgen import HOST, KERNEL, replace_once, tuned_operator

from tilewise.analysis.chip import load_chip
from tilewise.analysis.operator import load_operator
from tilewise.device.protocol import Measurement, RunWarning
from tilewise.search.space import build_space
from tilewise.search.tuner import Tuner


@pytest.fixture(scope="module")
def op_root(tmp_path_factory) -> Path:
    return tuned_operator(tmp_path_factory.mktemp("tune") / "scale")


def test_space_comes_from_the_annotations(op_root):
    space = build_space(load_operator(op_root), load_chip(None))
    assert [(k.name, k.domain, k.source) for k in space.knobs] == [
        ("BLOCK_DIM", [1, 8, 48], "annotation"),
        ("TILE_LENGTH", [1024, 8192], "annotation"),
    ]
    assert space.size() == 6 and space.baseline() == {"BLOCK_DIM": 8, "TILE_LENGTH": 1024}


def buffered_kernel(halves: int) -> str:
    """The scale kernel with BUFFER_NUM tuned over [1, 2] and its input buffers `halves` halfs each."""
    kernel = replace_once(
        KERNEL,
        "constexpr int32_t BUFFER_NUM = 2;",
        "constexpr int32_t BUFFER_NUM = 1;  // tilewise: tune BUFFER_NUM in [1, 2]",
    )
    return replace_once(
        kernel,
        "pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(half));",
        f"pipe.InitBuffer(inQueueX, BUFFER_NUM, {halves} * sizeof(half));",
    )


def test_constraints_prune_before_any_evaluation(tmp_path):
    kernel = buffered_kernel(65536)
    op = load_operator(tuned_operator(tmp_path / "scale", host=HOST, kernel=kernel))
    device = FakeDevice(lambda knobs: Measurement(ok=True, correct=True, time_us=10.0))
    assert op.manifest is not None
    tuner = Tuner(op, device, op.manifest.cases, strategy="grid", budget=10, seed=1)
    list(tuner.events())
    result = tuner.result()
    assert result.space.size() == 2
    assert [t.config for t in result.trials] == [{"BUFFER_NUM": 1}]  # BUFFER_NUM = 2 needs 256 KiB of UB
    assert device.runs == [{"BUFFER_NUM": 1}]  # pruned before the device was asked


def test_static_checks_that_refuse_the_shipped_configuration_are_not_trusted(tmp_path):
    # The static estimate says even BUFFER_NUM = 1 overflows (three 128 KiB buffers, say in branches that never
    # run together); the device runs it fine. The shipped configuration is measured, and candidates are too.
    kernel = buffered_kernel(196608)
    op = load_operator(tuned_operator(tmp_path / "scale", host=HOST, kernel=kernel))
    device = FakeDevice(lambda knobs: Measurement(ok=True, correct=True, time_us=10.0 / knobs["BUFFER_NUM"]))
    assert op.manifest is not None
    tuner = Tuner(op, device, op.manifest.cases, strategy="grid", budget=10, seed=1)
    list(tuner.events())
    result = tuner.result()
    assert result.baseline_us == pytest.approx(10.0) and result.best == {"BUFFER_NUM": 2}
    assert result.screened == 0 and device.runs == [{"BUFFER_NUM": 1}, {"BUFFER_NUM": 2}]


def overruns(knobs: dict[str, int]) -> Measurement:
    """Timing and overruns set per configuration: TILE_LENGTH 8192 is fastest but reads past a GM tensor's end at a
    site the shipped configuration never touches; every run shares one over-read the shipped configuration makes
    too (which a candidate may keep)."""
    shared = RunWarning(kind="gm_out_of_bounds", message="reads 8 bytes past x", file="scale.cpp", line=40)
    warnings = [shared]
    if knobs["TILE_LENGTH"] == 8192:
        warnings.append(RunWarning(kind="ub_out_of_bounds", message="Add past its buffer", file="scale.cpp", line=55))
    time_us = 100.0 / knobs["BLOCK_DIM"] / (2 if knobs["TILE_LENGTH"] == 8192 else 1)
    return Measurement(ok=True, correct=True, time_us=time_us, warnings=warnings)


def test_a_tiling_that_overruns_memory_where_the_shipped_one_does_not_is_refused(op_root):
    op = load_operator(op_root)
    assert op.manifest is not None
    tuner = Tuner(op, FakeDevice(overruns), op.manifest.cases, strategy="grid", budget=6, seed=1)
    list(tuner.events())
    result = tuner.result()
    assert result.best == {"BLOCK_DIM": 48, "TILE_LENGTH": 1024}  # the shared over-read does not refuse anything
    refused = {tuple(t.config.values()) for t in result.failed}
    assert refused == {(1, 8192), (8, 8192), (48, 8192)}
    assert all(
        "ub_out_of_bounds at scale.cpp:55" in t.error and "shipped configuration" in t.error for t in result.failed
    )


def test_a_gain_within_the_models_error_for_its_kind_is_flagged(op_root, monkeypatch):
    """More cores gives 1.1x here: within a (made-up) 1.25x typical error for core-count changes, so the result
    says to verify on hardware; with no measured error, or a gain beyond it, it says nothing."""
    import tilewise.search.tuner as tuner_module
    from tilewise.analysis.model_error import ModelError

    error = ModelError.model_validate(
        {
            "source": "test",
            "overall": {"factor": 1.5, "cases": 4},
            "kinds": {"core-count": {"factor": 1.25, "cases": 2}},
        }
    )

    def timed_by(gain: float):  # only BLOCK_DIM 48 (with the shipped tile) helps, by `gain`
        def timed(knobs: dict[str, int]) -> Measurement:
            faster = knobs["BLOCK_DIM"] == 48 and knobs["TILE_LENGTH"] == 1024
            return Measurement(ok=True, correct=True, time_us=100.0 / (gain if faster else 1.0))

        return timed

    op = load_operator(op_root)
    assert op.manifest is not None
    for gain, factor_file, expected in [
        (1.1, error, "1.10x is within the model's typical error for core-count changes (1.25x): verify on hardware"),
        (2.0, error, None),
        (1.1, None, None),
    ]:
        monkeypatch.setattr(tuner_module, "load_model_error", lambda f=factor_file: f)
        tuner = Tuner(op, FakeDevice(timed_by(gain)), op.manifest.cases[:1], strategy="grid", budget=6, seed=1)
        list(tuner.events())
        result = tuner.result()
        assert result.best == {"BLOCK_DIM": 48, "TILE_LENGTH": 1024}
        assert result.uncertain == expected


def test_a_name_the_host_and_kernel_give_different_values_is_not_tuned(tmp_path):
    host = replace_once(
        HOST,
        "constexpr uint32_t BLOCK_DIM = 48;",
        "constexpr uint32_t BLOCK_DIM = 48;\nconstexpr uint32_t BUFFER_NUM = 6;",
    )
    op = load_operator(tuned_operator(tmp_path / "scale", host=host, kernel=KERNEL))  # the kernel's BUFFER_NUM is 2
    assert sorted({k.value for k in op.model.knobs if k.name == "BUFFER_NUM"}) == [2, 6]
    names = [k.name for k in build_space(op, load_chip(None)).knobs]
    assert "BUFFER_NUM" not in names and "BLOCK_DIM" in names  # one value would rewrite the other's literal
