"""UB bank conflicts in the timing model (tw/timing/ub_banks.h, charged by tw/timing/model.h's cost_of; issue 15): a
vector repeat takes as many beats as its busiest bank group needs, plus the chip's read-write extra.

Driven through cost_driver.cpp with operands at fixed UB byte addresses. The expectations are the Ascend C
best-practice guide's (arch 2201): the bank_conflict_ub sample's scenarios (Add float, mask 64, 64 repeats, block
stride 1, repeat stride 8; addresses src0, src1, dst), the bank_conflict_nd2nz sample's Copy (dstStride 144 puts a
repeat's 8 writes in one bank group, 145 spreads them), and the Add sample's x and y buffers 32 KB apart (same bank
groups) against 256 B apart. ub_banks_selftest.cpp checks the rules on operands given by hand (partial masks, block
stride 0, a conversion's narrow operand, an unaligned operand, the per-thread memo)."""

from __future__ import annotations

import subprocess

import pytest
from kernel_drivers import CXX, build_driver, run_selftest
from paths import ROOT

from tilewise.analysis.chip import TimingConfig, load_chip, timing_config
from tilewise.device.emulator.timing import spec_lines

pytestmark = pytest.mark.skipif(CXX is None, reason="g++ is not installed")

DRIVER = ROOT / "tests" / "emulator" / "cost_driver.cpp"
REPEATS = 64  # 4096 floats, 64 per repeat

# scenario: (src0, src1, dst, src0 block stride, src0 repeat stride)
SCENARIOS = {
    1: ("0x0", "0x10100", "0x20000", 1, 8),  # no conflict
    2: ("0x0", "0x4000", "0x10000", 1, 8),  # src0, src1 in the same bank: read-read
    3: ("0x0", "0x10000", "0x14100", 1, 8),  # same bank group, different banks: read-read
    4: ("0x0", "0x10100", "0x4000", 1, 8),  # dst bank for bank on src0: free
    5: ("0x0", "0x10100", "0x4020", 1, 8),  # dst one block off src0's banks: read-write
    6: ("0x0", "0x10100", "0x10100", 1, 8),  # dst == src1: free
    7: ("0x0", "0x10100", "0x10100", 0, 1),  # src0 one block a repeat, walking the groups: half the repeats clash
    8: ("0x0", "0x10100", "0x10100", 0, 8),  # src0 one block a repeat, alternating groups 0 / 8: free
}


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory):
    exe = build_driver(tmp_path_factory, DRIVER)
    spec = "\n".join(spec_lines(load_chip("910B2"))) + "\n"

    def run(*args: str | int) -> tuple[float, tuple[float, float, float]]:
        """The vector pipe's busy cycles and the one instruction's (read, write, read-write) beats."""
        p = subprocess.run([str(exe), *map(str, args)], input=spec, capture_output=True, text=True, timeout=60)
        assert p.returncode == 0 and "result ok" in p.stdout, p.stdout + p.stderr
        lines = [line.split() for line in p.stdout.splitlines()]
        busy = next(float(w[2]) for w in lines if w[:2] == ["busy", "VECTOR"])
        beats = [tuple(map(float, w[1:])) for w in lines if w[0] == "beats"]
        assert len(beats) == 1, p.stdout
        return busy, beats[0]

    return run


@pytest.fixture(scope="module")
def timing() -> TimingConfig:
    return timing_config(load_chip("910B2"))


def scenario(driver, n: int) -> tuple[float, tuple[float, float, float]]:
    src0, src1, dst, blk, rep = SCENARIOS[n]
    return driver("add_mask_at", "float", REPEATS, src0, src1, dst, blk, rep)


def add_cost(t: TimingConfig, beats: float) -> float:
    """The vector pipe's busy cycles for the float Add: its repeats at the table's slope, times the beats (the head
    delays the result, not the pipe)."""
    return t.vector_busy_cycles("Add", 4, REPEATS) * beats


@pytest.mark.parametrize("n", [1, 4, 6, 8])
def test_conflict_free_layouts_cost_the_table(driver, timing, n):
    cycles, beats = scenario(driver, n)
    assert beats == (1, 1, 0)
    assert cycles == pytest.approx(add_cost(timing, 1))


@pytest.mark.parametrize("n", [2, 3])
def test_two_sources_in_one_bank_group_take_two_beats(driver, timing, n):
    # same bank (2) or only the same group (3): the guide measured both at the same 4167
    cycles, beats = scenario(driver, n)
    assert beats == (2, 1, 0)
    assert cycles == pytest.approx(add_cost(timing, 2))


def test_a_read_write_conflict_costs_between(driver, timing):
    cycles, beats = scenario(driver, 5)
    assert beats == (1, 1, 1)
    assert cycles == pytest.approx(add_cost(timing, 1 + timing.ub_rw_conflict_beats))
    assert scenario(driver, 1)[0] < cycles < scenario(driver, 2)[0]


def test_a_source_walking_the_groups_clashes_every_other_repeat(driver):
    # the sample's analysis of scenario 7: src0 reads group r in repeat r, src1 groups 8-15 or 0-7
    assert scenario(driver, 7)[1] == (1.5, 1, 0)


def test_copy_writes_in_one_bank_group_take_eight_beats(driver):
    slow, slow_beats = driver("copy_at", "half", 144, 144)
    fast, fast_beats = driver("copy_at", "half", 144, 145)
    assert slow_beats == (1, 8, 0)
    assert fast_beats == (1, 1, 0)
    assert slow > 6 * fast


def test_count_form_buffers_32k_apart_cost_more_than_256b_apart(driver):
    slow, slow_beats = driver("add_count_at", "half", 16384, 0, 0x8000, 0x10000)
    fast, fast_beats = driver("add_count_at", "half", 16256, 0, 0x7F00, 0x10000)
    assert slow_beats == (2, 1, 0)
    assert fast_beats == (1, 1, 0)
    assert slow > 1.8 * fast


def test_an_older_chip_file_without_the_constant_still_loads(timing):
    raw = timing.model_dump()
    del raw["ub_rw_conflict_beats"]
    assert TimingConfig.model_validate(raw).ub_rw_conflict_beats == 0.0


def test_the_rules_on_operands_given_by_hand(tmp_path):
    run_selftest(ROOT / "tests" / "emulator" / "ub_banks_selftest.cpp", tmp_path)
