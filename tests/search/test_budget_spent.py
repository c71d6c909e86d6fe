"""A search spends its budget while untried configurations remain that no screening refused (tests/search/fakes.py's
device, no g++).

The device stands for an elementwise add over 48 x 128 x 512 halves with three queues: each core takes
1/BLOCK_DIM of the work, in TILE_NUM * BUFFER_NUM tiles, so the UB it asks is 6 * work / (BLOCK_DIM * TILE_NUM)
bytes whatever BUFFER_NUM is, and a tile that is not a whole number of 32-byte blocks is refused as an unaligned
copy. The shipped configuration (8 cores, 8 tiles, 2 buffers) overflows the UB at its third InitBuffer; larger
tiles overflow at an earlier one. Once a screening said that a small configuration overflowed, the evolutionary
search took every configuration at least as large on every knob to overflow too (more cores and more tiles, which
shrink the buffers, included) and stopped after 2 measurements with 30 left in the budget.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import FakeDevice
from opgen import scale_manifest, write_operator

from tilewise.analysis.operator import Operator, load_operator
from tilewise.device.protocol import Measurement, Screening
from tilewise.search.domains import ladder
from tilewise.search.space import Config, KnobSpec, SearchSpace
from tilewise.search.strategies import STRATEGIES
from tilewise.search.tuner import Tuner

WORK = 48 * 128 * 512
UB = 196608
SITES = (20, 21, 22)  # the three InitBuffers' lines, in the order the kernel makes them


def space(effects: tuple[int, int, int]) -> SearchSpace:
    cores, tiles, buffers = effects
    return SearchSpace(
        knobs=[
            KnobSpec(
                name="BLOCK_DIM",
                file="h.cpp",
                line=1,
                current=8,
                domain=[1, 2, 4, 8, 16, 24, 32, 40, 48],
                source="t",
                ub_effect=cores,
            ),
            KnobSpec(
                name="TILE_LENGTH",  # (the test operator's constant, standing for a tile count)
                file="h.cpp",
                line=2,
                current=8,
                domain=[1, 2, 4, 8, 16, 32, 64],
                source="t",
                ub_effect=tiles,
            ),
            KnobSpec(
                name="BUFFER_NUM", file="k.cpp", line=3, current=2, domain=[1, 2, 3], source="t", ub_effect=buffers
            ),
        ]
    )


# As the data flow reads the kernel: more cores and more tiles shrink the buffers; BUFFER_NUM buffers of a tile it
# divides leaves the UB as it is.
READ = space((-1, -1, 0))


def tile_halves(c: Config) -> float:
    return WORK / (c["BLOCK_DIM"] * c["TILE_LENGTH"] * c["BUFFER_NUM"])


def screen(c: Config, case: str) -> Screening:
    tile = tile_halves(c)
    used = 0.0
    for line in SITES:
        used += c["BUFFER_NUM"] * tile * 2
        if used > UB:
            return Screening(ok=False, kind="ub_overflow", reason="past the UB", file="k.cpp", line=line)
    if tile != int(tile) or int(tile) * 2 % 32:
        return Screening(ok=False, kind="unaligned_copy", reason="a partial block", file="k.cpp", line=30)
    return Screening(ok=True, block_dim=c["BLOCK_DIM"])


def cost(c: Config) -> float:
    """Memory-bound: the cores share the bandwidth until it saturates at 40; each tile costs a fixed overhead that
    a second buffer hides most of."""
    per_core = 6.0 * WORK / min(c["BLOCK_DIM"], 40) / 1e5
    tiles = c["TILE_LENGTH"] * c["BUFFER_NUM"]
    return per_core + tiles * (0.4 if c["BUFFER_NUM"] == 1 else 0.1)


def timed(c: Config) -> Measurement:
    return Measurement(ok=True, correct=True, time_us=cost(c))


def runs(c: Config) -> bool:
    """What a measurement accepts: the screening's refusals, less the overflow the shipped configuration makes too."""
    s = screen(c, "")
    return s.ok or (s.kind == "ub_overflow" and s.line == SITES[-1])


@pytest.fixture(scope="module")
def op(tmp_path_factory) -> Operator:
    root: Path = tmp_path_factory.mktemp("budget") / "scale"
    write_operator(root, manifest=scale_manifest(1024, golden=False))
    return load_operator(root)


def tune(op: Operator, strategy: str, budget: int, seed: int, knobs: SearchSpace = READ):
    assert op.manifest is not None
    device = FakeDevice(timed, screen=screen)
    tuner = Tuner(op, device, op.manifest.cases, strategy=strategy, budget=budget, seed=seed, space=knobs, workers=1)
    list(tuner.events())
    return tuner.result(), device


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_every_strategy_spends_the_budget_where_measurable_configurations_remain(op, strategy, seed):
    measurable = [c for c in READ.grid() if runs(c)]
    assert len(measurable) > 32
    result, device = tune(op, strategy, budget=32, seed=seed)
    assert result.evaluations == len(device.runs) == 32, (result.evaluations, result.screened)


@pytest.mark.parametrize("effects", [(-1, -1, 0), (0, 0, 0), (1, 1, 1)])
def test_evo_spends_the_budget_whatever_the_knobs_effects_are_read_to_be(op, effects):
    """Read right, unknown, or read wrong (every knob growing the UB: the old assumption): the search still measures
    32 configurations; a wrong reading costs screenings, never the budget."""
    result, _ = tune(op, "evo", budget=32, seed=0, knobs=space(effects))
    assert result.evaluations == 32


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_evo_reaches_near_the_optimum_on_32_measurements(op, seed):
    best = min(cost(c) for c in READ.grid() if runs(c))
    result, _ = tune(op, "evo", budget=32, seed=seed)
    assert result.best_us is not None and result.best_us <= best / 0.9, (result.best, result.best_us, best)


# The domains as role-based fitting gives them (search/domains.py): the core counts of the chip, every tile count
# whose buffers fit for some core count (from 2 up to one 32-byte block a buffer at 1 core), four buffer counts.
FITTED = SearchSpace(
    knobs=[
        READ.knobs[0].model_copy(update={"domain": [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 40, 48]}),
        READ.knobs[1].model_copy(update={"domain": sorted({8} | set(ladder(2, 98304)))}),
        READ.knobs[2].model_copy(update={"domain": [1, 2, 3, 4]}),
    ]
)


@pytest.mark.parametrize("seed", range(8))
def test_evo_reaches_near_the_optimum_over_the_fitted_domains(op, seed):
    """Most of a fitted tile domain is tiny tiles that fit and are slow: the search must still find the region
    near the shipped tiling where the good ones are, on 32 measurements, whatever the seed."""
    best = min(cost(c) for c in FITTED.grid() if runs(c))
    result, _ = tune(op, "evo", budget=32, seed=seed, knobs=FITTED)
    assert result.evaluations == 32
    assert result.best_us is not None and result.best_us <= best / 0.9, (result.best, result.best_us, best)
