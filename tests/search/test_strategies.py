"""Every search strategy in `search.strategies.STRATEGIES`, driven by the tuner on a fake device whose simulated
time is a pure function of the knob values (Kernel Tuner's way of testing strategies): no build, no g++, no timing
noise. Each strategy must start from the shipped configuration (measured once, first, and seeded into it), never
pay for the same configuration twice, stay within its budget, give the same trials for the same seed, find the
optimum when its budget covers the space, and (the sampling ones) do clearly better than the median configuration
on half of it. A strategy added to STRATEGIES is tested here without a line changed."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
from opgen import scale_manifest, write_operator

from tilewise.analysis.chip import Chip, load_chip
from tilewise.analysis.operator import Operator, load_operator
from tilewise.device.protocol import Device, Measurement, RunError, RunRequest, Screening
from tilewise.search.space import Config, KnobSpec, SearchSpace
from tilewise.search.strategies import STRATEGIES
from tilewise.search.tuner import Tuner, TuneResult

# The knob names are the test operator's own constants (tests/opgen.py), so the tuner's source rewriting works.
SPACE = SearchSpace(
    knobs=[
        KnobSpec(
            name="TILE_LENGTH", file="k.cpp", line=1, current=256, domain=[256, 512, 1024, 2048, 4096], source="test"
        ),
        KnobSpec(name="BLOCK_DIM", file="h.cpp", line=2, current=8, domain=[8, 16, 24, 32, 40, 48], source="test"),
        KnobSpec(name="BUFFER_NUM", file="k.cpp", line=3, current=1, domain=[1, 2], source="test"),
    ]
)
ALL = list(SPACE.grid())
BASELINE = SPACE.baseline()


def key(c: Config) -> tuple[int, ...]:
    return tuple(c[k.name] for k in SPACE.knobs)


def cost(c: Config) -> float:
    """A bowl with its floor at TILE_LENGTH=2048, BLOCK_DIM=40, BUFFER_NUM=2 (memory-bound: more cores help until
    the bandwidth saturates; tiles help until the UB is tight)."""
    tile = abs(c["TILE_LENGTH"].bit_length() - 12) * 3.0
    cores = abs(c["BLOCK_DIM"] - 40) / 8
    return 10.0 + tile + cores + (0.0 if c["BUFFER_NUM"] == 2 else 2.5)


def fits(c: Config) -> bool:
    """The UB limit: the largest tile only fits single-buffered (the device refuses the others when run)."""
    return not (c["TILE_LENGTH"] == 4096 and c["BUFFER_NUM"] == 2)


BEST = min((c for c in ALL if fits(c)), key=cost)
MEDIAN = sorted(cost(c) for c in ALL if fits(c))[len([c for c in ALL if fits(c)]) // 2]


class BowlDevice:
    """A Device whose time is `cost(knobs)`; a configuration that does not fit fails as a UB overflow would. It
    records every run, so the tests see what the tuner paid for, and keeps outputs when asked (the operator has no
    golden, so the tuner compares every candidate's outputs with the shipped configuration's)."""

    name = "bowl"

    def __init__(self) -> None:
        self.chip: Chip = load_chip(None)
        self.runs: list[Config] = []
        self._lock = threading.Lock()

    def run(self, op: Operator, request: RunRequest) -> Measurement:
        config = dict(request.knobs)
        with self._lock:
            self.runs.append(config)
        case = request.case
        if not fits(config):
            return Measurement(ok=False, case=case.name, error=RunError(kind="ub_overflow", message="too big"))
        m = Measurement(ok=True, case=case.name, time_us=cost(config), chip=self.chip.name)
        if request.keep_outputs:
            m.keep_outputs([np.full(8, 2.0, np.float32)])
        return m

    def screen(self, op: Operator, request: RunRequest) -> Screening:
        return Screening(ok=True)  # the overflow shows only when run: the strategies see a measured failure


def test_the_fake_device_satisfies_the_protocol() -> None:
    device: Device = BowlDevice()  # the static check: a type checker refuses this line if the class drifts
    assert isinstance(device, Device)


@pytest.fixture(scope="module")
def op(tmp_path_factory) -> Operator:
    root: Path = tmp_path_factory.mktemp("strategies") / "scale"
    write_operator(root, manifest=scale_manifest(1024, golden=False))
    return load_operator(root)


def tune(op: Operator, name: str, budget: int, seed: int = 0, workers: int = 1) -> tuple[TuneResult, BowlDevice]:
    device = BowlDevice()
    assert op.manifest is not None
    tuner = Tuner(op, device, op.manifest.cases, strategy=name, budget=budget, seed=seed, workers=workers, space=SPACE)
    list(tuner.events())
    return tuner.result(), device


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_starts_from_the_shipped_configuration_measured_once(op, name):
    result, device = tune(op, name, budget=12)
    assert device.runs[0] == BASELINE and result.trials[0].config == BASELINE
    assert [key(c) for c in device.runs].count(key(BASELINE)) == 1, "the seeded baseline was proposed again"
    assert result.baseline_us == pytest.approx(cost(BASELINE))


@pytest.mark.parametrize("name", sorted(STRATEGIES))
@pytest.mark.parametrize("workers", [1, 2])
def test_never_measures_a_configuration_twice_and_keeps_to_the_budget(op, name, workers):
    result, device = tune(op, name, budget=20, workers=workers)
    keys = [key(c) for c in device.runs]
    assert len(keys) == len(set(keys)), "a configuration was measured twice"
    assert len(device.runs) == result.evaluations <= 20
    assert all(set(c) == set(BASELINE) and all(c[k.name] in k.domain for k in SPACE.knobs) for c in device.runs)


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_the_same_seed_gives_the_same_trials(op, name):
    first, _ = tune(op, name, budget=15, seed=3)
    again, _ = tune(op, name, budget=15, seed=3)
    assert [t.config for t in first.trials] == [t.config for t in again.trials]
    assert first.best == again.best


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_a_budget_covering_the_space_finds_the_optimum(op, name):
    result, _ = tune(op, name, budget=len(ALL))
    assert result.best == BEST and result.best_us == pytest.approx(cost(BEST))
    assert result.speedup == pytest.approx(cost(BASELINE) / cost(BEST))


@pytest.mark.parametrize("name", sorted(STRATEGIES))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_half_the_budget_improves_on_the_baseline(op, name, seed):
    result, _ = tune(op, name, budget=len(ALL) // 2, seed=seed)
    assert result.best_us < result.baseline_us
    # grid walks the space in order: half its budget covers the small tiles only, by design
    if name != "grid":
        assert result.best_us < MEDIAN - 2.0, (result.best_us, MEDIAN)


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_a_seeded_configuration_is_never_proposed(name):
    """Seeding from elsewhere than the space's `current` values (a configuration the caller measured): the strategy
    starts from it and never asks for it, even when it proposes every configuration there is."""
    start = {"TILE_LENGTH": 1024, "BLOCK_DIM": 24, "BUFFER_NUM": 2}
    strategy = STRATEGIES[name](SPACE, 0, fits)
    strategy.seed(start, cost(start))
    assert strategy.start == start
    asked = []
    for _ in range(len(ALL)):
        c = strategy.ask()
        if c is None:
            break
        asked.append(key(c))
        strategy.tell(c, cost(c))
    assert key(start) not in asked and len(asked) == len(set(asked))


def test_best_of_n_perturbs_the_seeded_configuration():
    """Every knob keeps the seeded value with probability 1/2: a knob the seed sets to a value other than the
    space's `current` keeps it in about half the proposals, never in none."""
    start = {"TILE_LENGTH": 2048, "BLOCK_DIM": 40, "BUFFER_NUM": 1}
    strategy = STRATEGIES["best-of-n"](SPACE, 0, fits)
    strategy.seed(start, cost(start))
    asked = [strategy.ask() for _ in range(20)]
    assert sum(c["TILE_LENGTH"] == 2048 for c in asked if c) >= 6


def test_tpe_knows_the_seeded_configuration_from_the_start():
    strategy = STRATEGIES["tpe"](SPACE, 0, fits)
    strategy.seed(BASELINE, cost(BASELINE))
    (trial,) = strategy.study.trials
    assert trial.params == BASELINE and trial.value == cost(BASELINE)


def test_tpe_proposes_the_whole_space_without_a_study_of_thousands():
    """Near the end of a small space most of TPE's draws repeat a configuration; each is told to the study, whose
    every draw costs more as it grows. A bounded number of redraws (tpe.REDRAWS) before a random unseen one keeps a
    whole-space tune to a few hundred trials (it took 1,377 and two minutes with 50)."""
    strategy = STRATEGIES["tpe"](SPACE, 0, fits)
    strategy.seed(BASELINE, cost(BASELINE))
    asked = []
    while (c := strategy.ask()) is not None:
        asked.append(key(c))
        strategy.tell(c, cost(c))
    feasible = {key(c) for c in ALL if fits(c)} - {key(BASELINE)}
    assert set(asked) == feasible and len(asked) == len(feasible)  # every configuration, each once
    assert len(strategy.study.trials) <= 8 * len(ALL), len(strategy.study.trials)
