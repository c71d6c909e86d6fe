"""A tuned configuration is accepted only if every dtype path the OpDef declares still runs correct
(search/dtype_paths.py), on tests/search/fakes.py's device: each declared combination the tuned cases leave out
gets a check case (the manifest's, else one made up from the tuned case), a candidate about to become the best is
run on them, and one that breaks a path the shipped tiling runs correct is refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from fakes import FakeDevice
from opgen import HOST, scale_manifest, write_operator

from tilewise.analysis.operator import Operator, load_operator
from tilewise.device.protocol import Measurement, RunError
from tilewise.search.dtype_paths import check_cases, declared_combinations
from tilewise.search.space import Config, KnobSpec, SearchSpace
from tilewise.search.tuner import Tuner

THREE_DTYPES = "{ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16}"
HOST_3 = HOST.replace("DataType({ge::DT_FLOAT16})", f"DataType({THREE_DTYPES})")
FLOAT32_CASE = '\n[[cases]]\nname = "wide"\n[cases.inputs.x]\nshape = [512]\ndtype = "float32"\n'

SPACE = SearchSpace(
    knobs=[
        KnobSpec(
            name="TILE_LENGTH", file="k.cpp", line=1, current=256, domain=[256, 512, 1024, 2048, 4096], source="t"
        ),
        KnobSpec(name="BLOCK_DIM", file="h.cpp", line=2, current=8, domain=[8, 48], source="t"),
    ]
)


def write(tmp_path: Path, host: str = HOST_3, extra: str = FLOAT32_CASE) -> Operator:
    manifest = scale_manifest(1024, golden=False) + extra
    return load_operator(write_operator(tmp_path / "scale", host=host, manifest=manifest))


def fp16_cases(op: Operator):
    assert op.manifest is not None
    return [c for c in op.manifest.cases if c.name == "small"]


def test_the_opdefs_lists_read_by_position_are_its_dtype_paths(tmp_path):
    op = write(tmp_path)
    assert declared_combinations(op.model) == [
        {"x": "float16", "y": "float16"},
        {"x": "float32", "y": "float32"},
        {"x": "bfloat16", "y": "bfloat16"},
    ]
    assert declared_combinations(write(tmp_path / "one", host=HOST).model) == [{"x": "float16", "y": "float16"}]


def test_each_path_the_tuned_cases_leave_out_gets_a_case_the_manifests_or_one_made_up(tmp_path):
    op = write(tmp_path)
    cases = check_cases(op, fp16_cases(op))
    assert [c.name for c in cases] == ["wide", "small@bfloat16"]  # the manifest has a float32 case; bf16 is made up
    made = cases[1]
    assert made.inputs["x"].dtype == "bfloat16" and made.inputs["x"].shape == [1024]
    assert check_cases(write(tmp_path / "one", host=HOST), fp16_cases(op)) == []  # one path: nothing to check


def timed(c: Config, case: str) -> Measurement:
    """Bigger tiles are faster; at TILE_LENGTH 4096 the float32 path (four bytes an element) goes wrong, and no
    bfloat16 run works at all with BLOCK_DIM 48."""
    if case == "wide" and c["TILE_LENGTH"] == 4096:
        return Measurement(ok=True, correct=False, time_us=1.0)
    if case.endswith("@bfloat16") and c["BLOCK_DIM"] == 48:
        return Measurement(ok=False, error=RunError(kind="kernel_exception", message="no"))
    m = Measurement(ok=True, correct=True, time_us=1000.0 / c["TILE_LENGTH"] + 10.0 / c["BLOCK_DIM"])
    m.keep_outputs([np.full(4, 1.0, np.float32)])
    return m


def tune(op: Operator, device: FakeDevice, budget: int = 10, strategy: str = "grid"):
    tuner = Tuner(op, device, fp16_cases(op), strategy=strategy, budget=budget, space=SPACE, workers=1)
    list(tuner.events())
    return tuner.result()


def test_a_configuration_that_breaks_a_declared_path_is_never_the_best(tmp_path):
    """The fastest tiles are wrong on float32, the most cores fail on bfloat16: the best is what every path runs."""
    op = write(tmp_path)
    device = FakeDevice(timed, by_case=True)
    result = tune(op, device)
    assert result.best == {"TILE_LENGTH": 2048, "BLOCK_DIM": 8}
    refused = [t for t in result.trials if t.failure == "dtype_path"]
    assert refused and all(t.config["TILE_LENGTH"] == 4096 or t.config["BLOCK_DIM"] == 48 for t in refused)
    assert any((t.error or "").startswith("wide: wrong output") for t in refused)
    assert any((t.error or "").startswith("small@bfloat16: kernel_exception") for t in refused)
    # the best ran correct on both check cases; only the tuned case's time counts
    checked = {(q.case.name, q.knobs["TILE_LENGTH"], q.knobs["BLOCK_DIM"]) for q in device.requests}
    assert {("wide", 2048, 8), ("small@bfloat16", 2048, 8)} <= checked
    assert result.best_us == pytest.approx(1000.0 / 2048 + 10.0 / 8)
    assert result.dtype_checks == ["wide", "small@bfloat16"] and result.dtype_broken == {}


def test_a_path_the_shipped_tiling_fails_is_reported_not_held_against_anyone(tmp_path):
    """The shipped configuration's bfloat16 run fails here (BLOCK_DIM 8 is fine, so move the shipped one to 48)."""
    op = write(tmp_path)
    space = SearchSpace(knobs=[SPACE.knobs[0], SPACE.knobs[1].model_copy(update={"current": 48})])
    device = FakeDevice(timed, by_case=True)
    tuner = Tuner(op, device, fp16_cases(op), strategy="grid", budget=10, space=space, workers=1)
    list(tuner.events())
    result = tuner.result()
    assert "small@bfloat16" in result.dtype_broken and "kernel_exception" in result.dtype_broken["small@bfloat16"]
    assert result.dtype_checks == ["wide"]
    assert result.best is not None and result.best["TILE_LENGTH"] == 2048


def test_an_operator_of_one_dtype_pays_for_no_check(tmp_path):
    op = write(tmp_path, host=HOST, extra="")
    device = FakeDevice(timed, by_case=True)
    result = tune(op, device)
    assert {q.case.name for q in device.requests} == {"small"} and result.dtype_checks == []
    assert result.best is not None and result.best["TILE_LENGTH"] == 4096


@pytest.mark.parametrize("strategy", ["evo", "random"])
def test_the_checks_run_only_for_candidates_about_to_be_the_best(tmp_path, strategy):
    op = write(tmp_path)
    device = FakeDevice(timed, by_case=True)
    result = tune(op, device, budget=10, strategy=strategy)
    best, would_be = result.trials[0].time_us, {tuple(result.trials[0].config.values())}
    for t in result.trials[1:]:
        if t.time_us is not None and (t.ok or t.failure == "dtype_path") and (best is None or t.time_us < best):
            would_be.add(tuple(t.config.values()))
            best = t.time_us if t.ok else best
    checked = {tuple(q.knobs.values()) for q in device.requests if q.case.name != "small"}
    assert checked <= would_be
    assert len(would_be) < len(result.trials)  # (some candidates were not faster: they paid for no check)


def test_the_users_arrays_feed_the_tuned_cases_only(tmp_path):
    op = write(tmp_path)
    device = FakeDevice(timed, by_case=True)
    x = np.ones(1024, np.float16)
    tuner = Tuner(op, device, fp16_cases(op), strategy="grid", budget=4, space=SPACE, workers=1, inputs={"x": x})
    list(tuner.events())
    assert {q.case.name for q in device.requests if q.inputs is not None} == {"small"}
    assert {q.case.name for q in device.requests if q.inputs is None} >= {"wide"}


def test_tune_says_which_paths_the_best_was_checked_on_and_which_the_shipped_tiling_fails(tmp_path, capsys):
    from tilewise.cli.tune_command import _print_tune

    op = write(tmp_path)
    space = SearchSpace(knobs=[SPACE.knobs[0], SPACE.knobs[1].model_copy(update={"current": 48})])
    tuner = Tuner(op, FakeDevice(timed, by_case=True), fp16_cases(op), strategy="grid", budget=6, space=space)
    list(tuner.events())
    _print_tune(tuner.result(), None)
    printed = capsys.readouterr().out
    assert "checked on the OpDef's other dtype paths: wide\n" in printed
    assert "note: the shipped tiling fails the dtype path small@bfloat16 too: kernel_exception" in printed


def test_the_best_is_said_when_the_shipped_tiling_has_no_time(tmp_path, capsys):
    from tilewise.cli.tune_command import _print_tune

    op = write(tmp_path, host=HOST, extra="")

    def shipped_fails(c: Config, case: str) -> Measurement:
        if c == SPACE.baseline():
            return Measurement(ok=False, error=RunError(kind="ub_out_of_bounds", message="past the UB"))
        return timed(c, case)

    result = tune(op, FakeDevice(shipped_fails, by_case=True))
    _print_tune(result, None)
    printed = capsys.readouterr().out
    assert "the shipped configuration does not run correctly" in printed
    assert f"best found:     {result.best_us:.2f} µs  {result.best}  (the shipped tiling has no time to compare)" in (
        printed
    )
