"""The tuner's search on a fake device (tests/search/fakes.py), no g++: the same seed gives the same search from an
empty results cache and a warm one, whatever order parallel results arrive in; candidates the screening refuses
are never measured, do not count against the budget and are listed apart; the evolutionary strategy stops proposing
the neighbourhood of a UB overflow; and the result says how the best configuration does on each case."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import FakeDevice
from opgen import scale_manifest, write_operator

from tilewise.analysis.manifest import Case
from tilewise.analysis.operator import Operator, load_operator
from tilewise.device.protocol import Device, Measurement, RunError, Screening
from tilewise.search.cache import ResultsCache
from tilewise.search.space import Config, KnobSpec, SearchSpace
from tilewise.search.strategies import STRATEGIES
from tilewise.search.tuner import SCREENINGS_PER_BUDGET, Tuner, TuneResult

# The test operator's own constants (tests/opgen.py), so the tuner's source rewriting works.
# Their effects on the UB as the data flow would read them: tiles and buffer counts grow it, the core count here
# sizes nothing (the tile is a constant), so it is unknown to the overflow predictions.
SPACE = SearchSpace(
    knobs=[
        KnobSpec(
            name="TILE_LENGTH",
            file="k.cpp",
            line=1,
            current=256,
            domain=[256, 512, 1024, 2048, 4096],
            source="t",
            ub_effect=1,
        ),
        KnobSpec(name="BLOCK_DIM", file="h.cpp", line=2, current=8, domain=[8, 16, 24, 32, 40, 48], source="t"),
        KnobSpec(name="BUFFER_NUM", file="k.cpp", line=3, current=1, domain=[1, 2], source="t", ub_effect=1),
    ]
)
ALL = list(SPACE.grid())


def cost(c: Config) -> float:
    """Bigger tiles and more cores help (so a search heads for the tiles that overflow), double buffering too."""
    return 1000.0 / (c["TILE_LENGTH"] ** 0.5) + abs(c["BLOCK_DIM"] - 40) / 4 + (0.0 if c["BUFFER_NUM"] == 2 else 3.0)


def overflows(c: Config) -> bool:
    return c["TILE_LENGTH"] * c["BUFFER_NUM"] >= 2048


def timed(c: Config) -> Measurement:
    return Measurement(ok=True, correct=True, time_us=cost(c))


def screen_ub(c: Config, case: str) -> Screening:
    if overflows(c):
        return Screening(ok=False, kind="ub_overflow", reason="InitBuffer past the UB", file="k.cpp", line=20)
    return Screening(ok=True, block_dim=c["BLOCK_DIM"])


@pytest.fixture(scope="module")
def op(tmp_path_factory) -> Operator:
    root: Path = tmp_path_factory.mktemp("screening") / "scale"
    write_operator(root, manifest=scale_manifest(1024, golden=False))
    return load_operator(root)


def tune(op: Operator, device: FakeDevice, strategy: str, budget: int, **kw) -> TuneResult:
    assert op.manifest is not None
    cases = kw.pop("cases", op.manifest.cases)
    tuner = Tuner(op, device, cases, strategy=strategy, budget=budget, space=SPACE, **kw)
    list(tuner.events())
    return tuner.result()


def test_the_fake_device_satisfies_the_protocol() -> None:
    device: Device = FakeDevice(timed)  # the static check: a type checker refuses this line if the fake drifts
    assert isinstance(device, Device)


@pytest.mark.parametrize("strategy", ["evo", "tpe", "random"])
def test_the_same_seed_searches_alike_from_an_empty_and_a_warm_cache(op, tmp_path, strategy):
    """Cold, every run sleeps a random while (three workers: results arrive in any order); warm, nothing runs and
    every result is there at once. The proposals, the screened-out ones and the best are the same."""
    cache = ResultsCache(tmp_path / "results.sqlite")
    cold_device = FakeDevice(timed, screen=screen_ub, jitter=0.03)
    cold = tune(op, cold_device, strategy, budget=14, seed=7, workers=3, cache=cache)
    warm_device = FakeDevice(timed, screen=screen_ub)
    warm = tune(op, warm_device, strategy, budget=14, seed=7, workers=3, cache=cache)
    cache.close()
    assert len(cold_device.runs) == cold.evaluations == 14 and cold.screened > 0
    assert warm_device.runs == [] and warm.cached == warm.evaluations  # the warm search measured nothing
    assert [t.config for t in warm.trials] == [t.config for t in cold.trials]
    assert [t.config for t in warm.screened_trials] == [t.config for t in cold.screened_trials]
    assert warm.best == cold.best and warm.best_us == cold.best_us


def test_screened_candidates_are_never_measured_and_do_not_count_against_the_budget(op):
    device = FakeDevice(timed, screen=screen_ub)
    result = tune(op, device, "grid", budget=28, seed=0, workers=2)
    assert result.evaluations == len(device.runs) == 28  # the whole budget went to measurable configurations
    assert not any(overflows(c) for c in device.runs)
    assert result.screened == len(result.screened_trials) > 0 and not result.failed
    assert all(overflows(t.config) and t.screened and t.failure == "ub_overflow" for t in result.screened_trials)
    assert all("ub_overflow at k.cpp:20" in (t.error or "") for t in result.screened_trials)
    # the grid walks the space in order: every configuration it reached was either measured or screened
    reached = [tuple(c.values()) for c in device.runs[1:]] + [tuple(t.config.values()) for t in result.screened_trials]
    assert sorted(reached) == sorted(tuple(c.values()) for c in ALL[: len(reached) + 1] if c != SPACE.baseline())


def test_an_infeasible_space_ends_after_a_bounded_number_of_screenings(op):
    def screen(c: Config, case: str) -> Screening:
        if c == SPACE.baseline():
            return Screening(ok=True)
        return Screening(ok=False, kind="tiling_failed", reason="the tiling function returned GRAPH_FAILED")

    device = FakeDevice(timed, screen=screen)
    result = tune(op, device, "random", budget=4, seed=0, workers=1)
    assert device.runs == [SPACE.baseline()]  # the shipped configuration is measured whatever its screening says
    assert result.screened == SCREENINGS_PER_BUDGET * 4 and result.best == SPACE.baseline()


def test_a_failure_the_shipped_configuration_shares_is_not_held_against_a_candidate(op):
    """Every configuration's screening finds the same InitBuffer over the UB (the shipped one runs anyway, so the
    screening is wrong about this kernel); only a failure elsewhere screens a candidate out."""

    def screen(c: Config, case: str) -> Screening:
        line = 30 if c["BUFFER_NUM"] == 2 else 20
        return Screening(ok=False, kind="ub_overflow", reason="over", file="k.cpp", line=line)

    device = FakeDevice(timed, screen=screen)
    result = tune(op, device, "grid", budget=10, seed=0, workers=1)
    assert result.evaluations == 10 and all(c["BUFFER_NUM"] == 1 for c in device.runs)
    assert result.screened > 0 and all(t.config["BUFFER_NUM"] == 2 for t in result.screened_trials)


def in_region(c: Config, bad: Config) -> bool:
    """Whether `c` asks at least the UB `bad` asks by the knobs' known effects: no smaller on the knobs that grow
    the UB, the same on the knob whose effect is unknown."""
    return (
        c["TILE_LENGTH"] >= bad["TILE_LENGTH"]
        and c["BUFFER_NUM"] >= bad["BUFFER_NUM"]
        and (c["BLOCK_DIM"] == bad["BLOCK_DIM"])
    )


def test_evo_never_asks_for_what_asks_at_least_the_ub_of_an_overflow():
    strategy = STRATEGIES["evo"](SPACE, 0, lambda c: True)
    strategy.seed(SPACE.baseline(), cost(SPACE.baseline()))
    bad = {"TILE_LENGTH": 1024, "BLOCK_DIM": 16, "BUFFER_NUM": 1}
    strategy.tell(bad, None, failure="ub_overflow")
    asked = []
    while (c := strategy.ask()) is not None and len(asked) < len(ALL):
        asked.append(c)
        strategy.tell(c, cost(c))
    assert not [c for c in asked if in_region(c, bad)]
    # what remains is asked for: the space minus the shipped configuration and the predicted overflows (the other
    # core counts are another neighbourhood: a core count's effect on the UB is unknown here)
    assert len(asked) == len([c for c in ALL if not in_region(c, bad)]) - 1
    assert any(c["BLOCK_DIM"] != 16 and c["TILE_LENGTH"] >= 1024 for c in asked)


def test_evo_still_proposes_the_predicted_overflows_when_nothing_else_is_left():
    """A prediction steers the search; it does not end it: once everything else is proposed, `propose` offers the
    predicted ones (the screening, not a guess, refuses a configuration)."""
    strategy = STRATEGIES["evo"](SPACE, 0, lambda c: True)
    strategy.seed(SPACE.baseline(), cost(SPACE.baseline()))
    strategy.tell({"TILE_LENGTH": 256, "BLOCK_DIM": 8, "BUFFER_NUM": 2}, None, failure="ub_overflow")
    proposed = []
    while (c := strategy.propose()) is not None:
        proposed.append(tuple(c.values()))
        strategy.tell(c, cost(c))
    assert sorted(proposed) == sorted(tuple(c.values()) for c in ALL if c != SPACE.baseline())


def test_an_overflow_whose_region_holds_a_fitting_configuration_prunes_only_itself():
    """The knobs' effects are a reading of the code, and can be wrong (here the tiles shrink as TILE_LENGTH grows):
    an overflow at a small tile whose region holds a larger tile that was measured is no guide to that region."""
    strategy = STRATEGIES["evo"](SPACE, 0, lambda c: True)
    strategy.seed(SPACE.baseline(), cost(SPACE.baseline()))
    bad = {"TILE_LENGTH": 512, "BLOCK_DIM": 8, "BUFFER_NUM": 1}
    strategy.tell(bad, None, failure="ub_overflow")
    assert strategy.predicted_overflow({"TILE_LENGTH": 4096, "BLOCK_DIM": 8, "BUFFER_NUM": 2})
    strategy.tell({"TILE_LENGTH": 2048, "BLOCK_DIM": 8, "BUFFER_NUM": 1}, 5.0)  # it fits
    assert not strategy.predicted_overflow({"TILE_LENGTH": 4096, "BLOCK_DIM": 8, "BUFFER_NUM": 2})
    # and an overflow told after a fitting configuration in its region predicts nothing either
    strategy.tell({"TILE_LENGTH": 1024, "BLOCK_DIM": 8, "BUFFER_NUM": 1}, None, failure="ub_overflow")
    assert not strategy.predicted_overflow({"TILE_LENGTH": 4096, "BLOCK_DIM": 8, "BUFFER_NUM": 1})
    # a refusal the screening makes after its UB check says the buffers fitted, as a score does
    strategy.tell({"TILE_LENGTH": 256, "BLOCK_DIM": 16, "BUFFER_NUM": 1}, None, failure="ub_overflow")
    assert strategy.predicted_overflow({"TILE_LENGTH": 512, "BLOCK_DIM": 16, "BUFFER_NUM": 2})
    strategy.tell({"TILE_LENGTH": 512, "BLOCK_DIM": 16, "BUFFER_NUM": 1}, None, failure="unaligned_copy")
    assert not strategy.predicted_overflow({"TILE_LENGTH": 512, "BLOCK_DIM": 16, "BUFFER_NUM": 2})


def test_evo_in_the_tuner_learns_from_screened_overflows(op):
    """One worker: the device sees proposals in the order the strategy made them. After a screening says a
    configuration overflows, nothing in its region is proposed again while anything else is left."""
    device = FakeDevice(timed, screen=screen_ub)
    result = tune(op, device, "evo", budget=24, seed=3, workers=1)
    proposals = device.screenings[1:]  # the first screening is the shipped configuration's
    assert result.screened > 0
    for i, c in enumerate(proposals):
        earlier = [b for b in proposals[:i] if overflows(b)]
        assert not [b for b in earlier if in_region(c, b)], (c, earlier)


def test_each_case_has_its_speedup_and_a_case_made_slower_is_named(op, capsys):
    """Big tiles win on the large case and lose on the small one: the geometric mean prefers them, and the result
    (and `tilewise tune`'s report of it) says what they cost the small case."""
    from tilewise.cli.tune_command import _print_tune

    cases = [
        Case.model_validate({"name": name, "inputs": {"x": {"shape": [n], "dtype": "float16"}}})
        for name, n in (("small", 1024), ("large", 1 << 20))
    ]

    def by_case(c: Config, case: str) -> Measurement:
        tile = c["TILE_LENGTH"]
        time_us = 10.0 + tile / 256 if case == "small" else 4096.0 / tile * 100
        return Measurement(ok=True, correct=True, time_us=time_us)

    device = FakeDevice(by_case, by_case=True)
    result = tune(op, device, "grid", budget=len(ALL), seed=0, cases=cases)
    assert result.best is not None and result.best["TILE_LENGTH"] == 4096
    assert result.per_case_speedup == pytest.approx({"small": 11.0 / 26.0, "large": 1600.0 / 100.0})
    assert result.slower_cases == ["small"]
    _print_tune(result, None)
    printed = capsys.readouterr().out
    assert "per case:       small 0.42x, large 16.00x" in printed
    assert "slower than the shipped one on small (0.42x)" in printed
    assert f"{len(ALL)} evaluations (0 from the cache), 0 failed, 0 screened out before measuring" in printed


def test_a_failure_the_shipped_configuration_shares_is_held_when_the_shipped_run_fails_too(op):
    """The same screening as above, but the shipped configuration's run fails as its screening said: the screening
    was right, and a candidate that fails it the same way is screened out rather than measured."""

    def screen(c: Config, case: str) -> Screening:
        line = 30 if c["BUFFER_NUM"] == 2 else 20
        return Screening(ok=False, kind="ub_overflow", reason="over", file="k.cpp", line=line)

    def answer(c: Config) -> Measurement:
        if c["BUFFER_NUM"] == 1:  # the shipped BUFFER_NUM
            return Measurement(ok=False, error=RunError(kind="ub_out_of_bounds", message="past the UB"))
        return timed(c)

    device = FakeDevice(answer, screen=screen)
    result = tune(op, device, "grid", budget=10, seed=0, workers=1)
    assert device.runs == [SPACE.baseline()]  # every candidate failed its screening like the shipped one
    assert result.screened == len(ALL) - 1  # the whole space, screened out
