"""Every search strategy, over one cost function with no device (Kernel Tuner's way): a strategy proposes only
feasible configurations inside the space and never the same one twice, finds the optimum when its budget covers
the space, and (the sampling ones) does clearly better than the median configuration on half of it.
Deterministic: fixed seeds and a cost that is a pure function of the configuration."""

from __future__ import annotations

import pytest

from search.space import Config, KnobSpec, SearchSpace
from search.strategies import STRATEGIES

SPACE = SearchSpace(
    knobs=[
        KnobSpec(name="TILE", file="k.cpp", line=1, current=256, domain=[256, 512, 1024, 2048, 4096], source="test"),
        KnobSpec(name="BLOCK_DIM", file="h.cpp", line=2, current=8, domain=[8, 16, 24, 32, 40, 48], source="test"),
        KnobSpec(name="BUFFER_NUM", file="k.cpp", line=3, current=1, domain=[1, 2], source="test"),
    ]
)
ALL = list(SPACE.grid())


def cost(c: Config) -> float:
    """A bowl with its floor at TILE=2048, BLOCK_DIM=40, BUFFER_NUM=2 (memory-bound: more cores help until the
    bandwidth saturates; tiles help until the UB is tight)."""
    tile = abs(c["TILE"].bit_length() - 12) * 3.0
    cores = abs(c["BLOCK_DIM"] - 40) / 8
    return 10.0 + tile + cores + (0.0 if c["BUFFER_NUM"] == 2 else 2.5)


def feasible(c: Config) -> bool:
    """The UB limit: the largest tile only fits single-buffered."""
    return not (c["TILE"] == 4096 and c["BUFFER_NUM"] == 2)


FEASIBLE = [c for c in ALL if feasible(c)]
BEST = min(FEASIBLE, key=cost)
MEDIAN = sorted(cost(c) for c in FEASIBLE)[len(FEASIBLE) // 2]


def run(name: str, budget: int, seed: int = 0) -> list[Config]:
    """The tuner's loop, with the shipped configuration measured first as the tuner does."""
    strategy = STRATEGIES[name](SPACE, seed, feasible)
    baseline = SPACE.baseline()
    strategy.seen.add(strategy.key(baseline))
    strategy.tell(baseline, cost(baseline))
    asked = [baseline]
    while len(asked) < budget:
        c = strategy.ask()
        if c is None:
            break
        asked.append(c)
        strategy.tell(c, cost(c) if feasible(c) else None)
    return asked


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_proposals_are_feasible_in_the_space_and_new(name):
    asked = run(name, budget=len(FEASIBLE))
    keys = [tuple(c[k.name] for k in SPACE.knobs) for c in asked]
    assert len(keys) == len(set(keys)), "a configuration was proposed twice"
    for c in asked:
        assert set(c) == {k.name for k in SPACE.knobs}
        assert all(c[k.name] in k.domain for k in SPACE.knobs)
    assert all(feasible(c) for c in asked[1:]), "an infeasible configuration was paid for"


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_a_budget_covering_the_space_finds_the_optimum(name):
    asked = run(name, budget=len(FEASIBLE))
    assert min(asked, key=cost) == BEST


# grid walks the space in order: half its budget covers the small tiles only, by design
@pytest.mark.parametrize("name", sorted(set(STRATEGIES) - {"grid"}))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_half_the_budget_beats_the_median_clearly(name, seed):
    asked = run(name, budget=len(FEASIBLE) // 2, seed=seed)
    best = min(cost(c) for c in asked)
    assert best < MEDIAN - 2.0, (best, MEDIAN)
