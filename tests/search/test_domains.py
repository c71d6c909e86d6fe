"""The values each role is searched over (search/domains.py), and a tile knob's domain fitted to the UB from the
shipped configuration's buffers: every value whose buffers fit for some setting of the other knobs, none whose
buffers would be less than a block, however far from the shipped value."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import FakeDevice
from opgen import scale_manifest, write_operator

from tilewise.analysis.chip import load_chip
from tilewise.analysis.operator import load_operator
from tilewise.device.protocol import InitBufferUse, Measurement, Screening
from tilewise.search.domains import core_domain, fit_to_ub, ladder, static_length_domain
from tilewise.search.space import KnobSpec, SearchSpace
from tilewise.search.tuner import Tuner

UB = 196608
SITES = ("k.cpp:20", "k.cpp:21", "k.cpp:22")


def test_the_ladder_has_every_power_of_two_and_its_one_and_a_half():
    assert ladder(1, 100) == [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96]
    assert ladder(5, 40) == [6, 8, 12, 16, 24, 32]


def test_core_counts_span_the_chip_and_the_even_splits():
    chip = load_chip("910B2")
    domain = core_domain(chip, [48 * 128 * 512], 2)
    assert domain[0] == 1 and domain[-1] == chip.vector_cores
    assert {3, 6, 12, 24, 48} <= set(domain) and 5 not in domain
    # a hard-coded 2 reaches the whole chip, not only its neighbours
    assert len([v for v in domain if v > 4]) > 5


def test_a_divisor_reaches_back_to_the_undivided_tile():
    assert static_length_domain(32, "divisor")[0] == 1  # a divisor that shrinks tiles 32-fold can grow them back
    assert static_length_domain(1024, "tile")[0] == 16 and static_length_domain(1024, "tile")[-1] == 65536


def shipped(tile_bytes: int, count: int = 2) -> dict[str, tuple[int, int]]:
    return {site: (count, tile_bytes) for site in SITES}


def test_a_divisor_is_fitted_to_the_values_whose_buffers_fit_with_the_other_knobs_at_their_best():
    """Three queues of 2 x 48 KiB at 8 cores and 8 pieces (288 KiB: over the UB). With the cores at 48 (a sixth of
    the buffers), 2 pieces fit and 1 does not; the pieces may grow until a buffer is down to one block at 1 core."""
    cores = (8, [1, 2, 4, 8, 16, 24, 32, 40, 48], {s: -1 for s in SITES})
    buffers = (2, [1, 2, 3, 4], {s: 0 for s in SITES})
    domain = fit_to_ub(8, {s: -1 for s in SITES}, [cores, buffers], [shipped(49152)], UB)
    assert domain is not None and domain[0] == 2 and 1 not in domain
    assert max(domain) == 49152 * 8 * 8 // 32 and 8 in domain


def test_a_tile_length_is_fitted_below_the_ub():
    """Two buffers of 16 KiB at a tile of 8192 bytes' worth: tiles up to 6x fit the 192 KiB UB with two buffers."""
    domain = fit_to_ub(8192, {"k.cpp:20": 1}, [], [{"k.cpp:20": (2, 16384)}], UB)
    assert domain is not None and max(domain) == 8192 * 6 and min(domain) == 16  # 16 x 2 bytes: one block
    assert fit_to_ub(8, {"other.cpp:1": 1}, [], [{"k.cpp:20": (2, 16384)}], UB) is None  # no site of its seen


def test_the_largest_case_bounds_the_fit():
    small, large = {"k.cpp:20": (2, 4096)}, {"k.cpp:20": (2, 65536)}
    domain = fit_to_ub(4096, {"k.cpp:20": 1}, [], [small, large], UB)
    assert domain is not None and max(domain) <= 4096 * UB // (2 * 65536)


@pytest.fixture(scope="module")
def op(tmp_path_factory):
    root: Path = tmp_path_factory.mktemp("domains") / "scale"
    write_operator(root, manifest=scale_manifest(1024, golden=False))
    return load_operator(root)


def test_the_tuner_fits_the_domains_from_the_shipped_configurations_screening(op):
    space = SearchSpace(
        knobs=[
            KnobSpec(
                name="TILE_LENGTH",
                file="h.cpp",
                line=1,
                current=8,
                domain=static_length_domain(8, "divisor"),
                source="inferred",
                role="divisor",
                ub_effect=-1,
                ub_sites={s: -1 for s in SITES},
            ),
            KnobSpec(name="BUFFER_NUM", file="k.cpp", line=3, current=2, domain=[1, 2, 3, 4], source="inferred"),
        ]
    )
    # the shipped configuration's screening reports its three InitBuffers, 2 x 48 KiB each
    buffers = [InitBufferUse(file=s.split(":")[0], line=int(s.split(":")[1]), num=2, len=49152) for s in SITES]

    def screen(c, case):
        return Screening(ok=True, buffers=buffers)

    device = FakeDevice(lambda c: Measurement(ok=True, correct=True, time_us=1.0), screen=screen)
    assert op.manifest is not None
    tuner = Tuner(op, device, op.manifest.cases, strategy="evo", budget=4, space=space)
    tuner.prune_inert()
    fitted = {k.name: k.domain for k in tuner.space.knobs}
    # 288 KiB at 8 pieces: 12 pieces bring it to 192 KiB; up to the piece count that leaves one block per buffer
    # (the shipped 8 stays: it is the reference, measured whatever it does)
    assert fitted["TILE_LENGTH"][:2] == [8, 12] and max(fitted["TILE_LENGTH"]) == 49152 * 8 // 32
    assert fitted["BUFFER_NUM"] == [1, 2, 3, 4]
    assert all(c["TILE_LENGTH"] in fitted["TILE_LENGTH"] for c in [tuner.strategy.random_config() for _ in range(20)])


def test_a_divisor_moved_is_a_tile_size_change_for_the_models_error(op, monkeypatch):
    """The gain note reads the roles the search gave the knobs: a divisor of the tiles moves a tile size."""
    import tilewise.search.tuner as tuner_module
    from tilewise.analysis.model_error import ModelError

    error = ModelError.model_validate(
        {"source": "test", "overall": {"factor": 1.5, "cases": 4}, "kinds": {"tile-size": {"factor": 1.3, "cases": 2}}}
    )
    monkeypatch.setattr(tuner_module, "load_model_error", lambda: error)
    space = SearchSpace(
        knobs=[KnobSpec(name="TILE_LENGTH", file="h.cpp", line=1, current=8, domain=[4, 8], source="t", role="divisor")]
    )
    device = FakeDevice(lambda c: Measurement(ok=True, correct=True, time_us=10.0 if c["TILE_LENGTH"] == 8 else 9.0))
    assert op.manifest is not None
    tuner = Tuner(op, device, op.manifest.cases, strategy="grid", budget=2, space=space)
    list(tuner.events())
    assert "tile-size changes (1.30x)" in (tuner.result().uncertain or "")
