"""Emulator throughput: a 3M-element fp16 add over 48 blocks (target: under 1 s, compilation excluded), proof
that a cached build is not recompiled, and the share of the run spent scheduling the timing model (target < 20%).

Prints the wall time of the run (the runner process: host tiling, 48 block threads, output writing), the
kernel-only time the runner measured, the first build's compile time, and the second build's lookup time, with ratios.

    python benchmarks/emulator.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tilewise.analysis.manifest import Case, InputSpec
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import RunRequest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "add_custom"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    op = load_operator(EXAMPLE)
    shape = [48, 65536]
    case = Case(
        name="3M", inputs={"x": InputSpec(shape=shape, dtype="float16"), "y": InputSpec(shape=shape, dtype="float16")}
    )
    with tempfile.TemporaryDirectory() as cache:
        device = EmulatorDevice(cache_dir=Path(cache))
        t0 = time.perf_counter()
        first = device.run(op, RunRequest(case))
        first_total = time.perf_counter() - t0
        if not first.ok or not first.correct:
            sys.exit(f"run failed: {first.error}")
        runs = []
        for seed in range(args.repeat):
            m = device.run(op, RunRequest(case, seed=seed + 1))
            assert m.cached_build, "the second build must come from the cache"
            runs.append(m)
        best = min(runs, key=lambda m: m.run_s)
        print(f"case: fp16 add, shape {shape} ({shape[0] * shape[1]:,} elements), blockDim {best.block_dim}")
        print(
            f"first build (compile, cold cache): {first.compile_s:8.3f} s   cached build lookup: "
            f"{best.compile_s:.4f} s  ({first.compile_s / max(best.compile_s, 1e-9):,.0f}x faster, not recompiled)"
        )
        print(
            f"run wall time (best of {args.repeat}):  {best.run_s:8.3f} s   target < 1 s: "
            f"{'met' if best.run_s < 1.0 else 'NOT met'}"
        )
        print(f"first call end to end (build + run + golden): {first_total:.2f} s")
        schedule_s = best.schedule_s or 0.0  # None only when the run recorded no schedule
        share = schedule_s / best.run_s
        print(
            f"timing model: {best.time_us:.2f} us simulated; scheduling took {schedule_s * 1e3:.2f} ms = "
            f"{share:.1%} of the run's wall time (target < 20%: {'met' if share < 0.2 else 'NOT met'})"
        )


if __name__ == "__main__":
    main()
