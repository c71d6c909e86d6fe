"""Completion latency and the vector barrier in the timing model (tw/timing/model.h): a pipe accepts its next
instruction when its occupancy ends, but whatever depends on a result waits for it to complete, and PipeBarrier<PIPE_V>
adds its drain when vector work is in flight (issue 15: short dependent vector sequences were far too fast).

Driven through cost_driver.cpp with a chip file whose latencies are set; each expectation is the difference against
the same chip with them at zero, so scalar issue and occupancy cancel out."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from kernel_drivers import CXX, build_driver

from tilewise.analysis.chip import load_chip, timing_config
from tilewise.device.emulator.timing import spec_lines

ROOT = Path(__file__).resolve().parents[2]
DRIVER = ROOT / "tests" / "emulator" / "cost_driver.cpp"
LATENCY = {"vector_latency_cycles": 15.0, "mte2_latency_cycles": 300.0, "mte3_latency_cycles": 150.0}
BARRIER = 16.0

pytestmark = pytest.mark.skipif(CXX is None, reason="g++ is not installed")


@pytest.fixture(scope="module")
def cycles(tmp_path_factory: pytest.TempPathFactory):
    exe = build_driver(tmp_path_factory, DRIVER)
    folder = tmp_path_factory.mktemp("chips")
    base = json.loads((ROOT / "src" / "tilewise" / "analysis" / "data" / "chips" / "910B2.json").read_text())

    def run(case: str, n: int, latencies: bool) -> float:
        data = {**base, "name": f"latency-{latencies}"}
        zero = {key: 0.0 for key in LATENCY}  # the built-in chip has latencies of its own
        data["timing"] = {**base["timing"], **(LATENCY if latencies else zero), "barrier_v_cycles": BARRIER * latencies}
        path = folder / f"{data['name']}.json"
        path.write_text(json.dumps(data))
        spec = "\n".join(spec_lines(load_chip(str(path)))) + "\n"
        p = subprocess.run([str(exe), case, "float", str(n)], input=spec, capture_output=True, text=True, timeout=60)
        assert p.returncode == 0 and "result ok" in p.stdout, p.stdout + p.stderr
        return float(next(line.split()[1] for line in p.stdout.splitlines() if line.startswith("cycles ")))

    return run


def added(cycles, case: str, n: int = 2048) -> float:
    return cycles(case, n, True) - cycles(case, n, False)


def test_independent_instructions_overlap_their_latency(cycles):
    # the second Add starts when the first leaves the pipe; only the last one's completion shows
    assert added(cycles, "chain") == pytest.approx(LATENCY["vector_latency_cycles"])


def test_a_vector_barrier_exposes_the_latency_and_adds_its_drain(cycles):
    expected = 2 * LATENCY["vector_latency_cycles"] + BARRIER
    assert added(cycles, "chain_barrier") == pytest.approx(expected)


def test_a_flag_waits_for_the_copy_to_complete(cycles):
    # the Add waits for the copy's completion (occupancy + MTE2 latency), then completes itself
    expected = LATENCY["mte2_latency_cycles"] + LATENCY["vector_latency_cycles"]
    assert added(cycles, "copy_flag_add") == pytest.approx(expected)


def test_a_vector_head_delays_the_result_not_the_next_instruction(cycles):
    # With latency and drain at zero, two independent Adds overlap their heads (the second issues when the first's
    # repeats are issued); a barrier between them exposes the first one's head (its table startup).
    head = timing_config(load_chip("910B2")).vector_row("Add", 4)[0]
    assert head > 0
    assert cycles("chain_barrier", 2048, False) - cycles("chain", 2048, False) == pytest.approx(head)
