"""Search quality: every strategy against the exhaustive optimum, at budgets 8, 16, 32 and 64, in one run.

For each benchmark operator (its largest case), an exhaustive grid over the knob space finds the optimum (measured
once on the emulator, then kept in the results cache). Each strategy is then replayed from that cache with several
seeds: no measurement is paid twice. Printed per strategy and budget: the geometric mean over operators and seeds of
the fraction of the optimum reached (optimum time / best time found, 1.0 = found it) and the median number of
evaluations needed to reach 95% of it. Also printed: the geomean speedup of the optimum over the shipped tilings.

    python benchmarks/search.py [--examples a,b,c] [--seeds 5] [--cache DIR]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis.operator import load_operator
from device.emulator import EmulatorDevice
from search.cache import ResultsCache
from search.tuner import Tuner

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DEFAULT = ["add_custom_slow_tiny_tiles", "gelu", "leaky_relu", "rms_norm", "softmax_row", "reduce_sum_all"]
STRATEGIES = ["evo", "random", "tpe", "best-of-n"]
BUDGETS = [8, 16, 32, 64]


def largest_case(op):
    return max(op.manifest.cases, key=lambda c: sum(math.prod(i.shape) for i in c.inputs.values()))


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--examples", default=",".join(DEFAULT))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--cache", default=str(Path.home() / ".cache" / "tilewise-bench"))
    args = ap.parse_args()
    cache_dir = Path(args.cache)
    device = EmulatorDevice(cache_dir=cache_dir)
    cache = ResultsCache(cache_dir / "results.sqlite")

    optimum, shipped, ops = {}, {}, {}
    for name in args.examples.split(","):
        op = load_operator(EXAMPLES / name)
        case = largest_case(op)
        t0 = time.perf_counter()
        grid = Tuner(op, device, [case], strategy="grid", budget=10**6, cache=cache)
        for _ in grid.events():
            pass
        r = grid.result()
        if r.best_us is None or r.baseline_us is None:
            print(f"{name}: no correct configuration; skipped")
            continue
        optimum[name], shipped[name], ops[name] = r.best_us, r.baseline_us, (op, case)
        print(
            f"{name} [{case.name}]: {r.evaluations} configurations ({r.cached} cached, {len(r.failed)} failed) "
            f"in {time.perf_counter() - t0:.0f} s; shipped {r.baseline_us:.2f} us, optimum {r.best_us:.2f} us "
            f"{r.best}"
        )

    print()
    print(
        f"{'strategy':10} " + " ".join(f"{'b=' + str(b):>18}" for b in BUDGETS) + "   (fraction of optimum; "
        "median evals to 95%)"
    )
    for strategy in STRATEGIES:
        row = []
        for budget in BUDGETS:
            fractions, to95 = [], []
            for name, (op, case) in ops.items():
                for seed in range(args.seeds):
                    t = Tuner(op, device, [case], strategy=strategy, budget=budget, seed=seed, cache=cache)
                    reached = None
                    best = math.inf
                    for ev in t.events():
                        if ev.trial is not None and ev.trial.ok and ev.trial.time_us is not None:
                            best = min(best, ev.trial.time_us)
                            if reached is None and optimum[name] / best >= 0.95:
                                reached = ev.evaluations
                    fractions.append(optimum[name] / best if best < math.inf else 0.0)
                    to95.append(reached if reached is not None else budget + 1)
            row.append(f"{geomean(fractions):.3f} / {statistics.median(to95):>4.0f}")
        print(f"{strategy:10} " + " ".join(f"{c:>18}" for c in row))
    speedups = [shipped[n] / optimum[n] for n in optimum]
    print(
        f"\ngeomean speedup of the optimum over the shipped tilings: {geomean(speedups):.2f}x "
        f"({', '.join(f'{n} {s:.2f}x' for n, s in zip(optimum, speedups, strict=True))})"
    )


if __name__ == "__main__":
    main()
