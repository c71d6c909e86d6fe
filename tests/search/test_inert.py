"""Inert knobs (search/inert.py): a tiling-function knob that hands the kernel the shipped tiling at both ends of
its domain, on every case, leaves the space before the search; one that changes the tiling on any case stays, and
so do named constants and every knob when the device cannot fingerprint a tiling."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import FakeDevice
from opgen import scale_manifest, write_operator

from tilewise.analysis.manifest import Case
from tilewise.analysis.operator import Operator, load_operator
from tilewise.device.protocol import Measurement, Screening
from tilewise.search.inert import inert_knobs
from tilewise.search.space import Config, KnobSpec, SearchSpace
from tilewise.search.tuner import Tuner

SPACE = SearchSpace(
    knobs=[
        KnobSpec(name="TILE_LENGTH", file="k.cpp", line=1, current=256, domain=[256, 1024], source="inferred"),
        KnobSpec(name="platform.cores", file="h.cpp", line=2, current=48, domain=[1, 8, 48], source="platform"),
        KnobSpec(name="NUM@h.cpp:9", file="h.cpp", line=9, current=3, domain=[1, 3, 6], source="tiling_literal"),
        KnobSpec(name="NUM@h.cpp:12", file="h.cpp", line=12, current=9, domain=[4, 9, 18], source="tiling_literal"),
    ]
)
FP16, FP32 = Case(name="fp16", inputs={}), Case(name="fp32", inputs={})


def fingerprint(c: Config, case: str) -> Screening:
    """The cores decide blockDim; NUM@9 is the fp16 branch's divisor and NUM@12 the fp32 branch's; the tile is the
    kernel's own constant and never reaches the tiling bytes."""
    num = c["NUM@h.cpp:9"] if case == "fp16" else c["NUM@h.cpp:12"]
    return Screening(ok=True, tiling_digest=f"tile/{num}", block_dim=min(c["platform.cores"], 4), tiling_key=0)


def screen_with(answer):
    def screen(config: Config, case: Case) -> Screening:
        return answer(config, case.name)

    return screen


def test_a_knob_no_case_reaches_is_inert():
    inert = inert_knobs(SPACE, [FP32], screen_with(fingerprint))
    # NUM@9 is the fp16 branch's; the cores only matter below 4, and 1 is in the domain: kept
    assert [k.name for k in inert] == ["NUM@h.cpp:9"]


def test_a_knob_that_one_case_reaches_stays():
    assert inert_knobs(SPACE, [FP16, FP32], screen_with(fingerprint)) == []


def test_named_constants_and_unfingerprinted_tilings_stay():
    def blind(c: Config, case: str) -> Screening:
        return Screening(ok=True, block_dim=4)

    assert inert_knobs(SPACE, [FP32], screen_with(blind)) == []
    # the kernel's TILE_LENGTH never changes the tiling bytes here, yet it is never a candidate for leaving
    assert "TILE_LENGTH" not in [k.name for k in inert_knobs(SPACE, [FP32], screen_with(fingerprint))]


def test_a_failed_screening_is_a_change():
    def fails_at_one_core(c: Config, case: str) -> Screening:
        if c["platform.cores"] == 1:
            return Screening(ok=False, kind="tiling_failed", reason="no cores")
        return Screening(ok=True, tiling_digest="same", block_dim=4, tiling_key=0)

    names = [k.name for k in inert_knobs(SPACE, [FP32], screen_with(fails_at_one_core))]
    assert "platform.cores" not in names and "NUM@h.cpp:12" in names


@pytest.fixture
def op(tmp_path: Path) -> Operator:
    write_operator(tmp_path / "scale", manifest=scale_manifest(1024, golden=False))
    return load_operator(tmp_path / "scale")


def test_the_tuner_searches_without_the_inert_knobs(op):
    def timed(c: Config) -> Measurement:
        fewer = 0.0 if c["platform.cores"] == 48 else 0.5
        return Measurement(ok=True, correct=True, time_us=100.0 / c["TILE_LENGTH"] + c["NUM@h.cpp:12"] + fewer)

    device = FakeDevice(timed, screen=fingerprint)
    tuner = Tuner(op, device, [FP32], budget=12, space=SPACE, workers=1)
    for _ in tuner.events():
        pass
    result = tuner.result()
    assert result.inert == ["NUM@h.cpp:9"]
    assert [k.name for k in result.space.knobs] == ["TILE_LENGTH", "platform.cores", "NUM@h.cpp:12"]
    assert all("NUM@h.cpp:9" not in t.config for t in result.trials)
    assert result.best == {"TILE_LENGTH": 1024, "platform.cores": 48, "NUM@h.cpp:12": 4}


def test_screenings_are_kept_with_the_results(op, tmp_path):
    from tilewise.search.cache import ResultsCache

    def timed(c: Config) -> Measurement:
        return Measurement(ok=True, correct=True, time_us=100.0 / c["TILE_LENGTH"] + c["NUM@h.cpp:12"])

    cache = ResultsCache(tmp_path / "results.sqlite")
    first = FakeDevice(timed, screen=fingerprint)
    for _ in Tuner(op, first, [FP32], budget=6, space=SPACE, workers=1, cache=cache).events():
        pass
    again = FakeDevice(timed, screen=fingerprint)
    replay = Tuner(op, again, [FP32], budget=6, space=SPACE, workers=1, cache=cache)
    for _ in replay.events():
        pass
    assert first.screenings and first.runs
    assert again.screenings == [] and again.runs == []  # the replay paid for nothing
    assert replay.result().inert == ["NUM@h.cpp:9"]
