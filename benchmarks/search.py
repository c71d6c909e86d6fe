"""Search quality: every strategy against the optimum, at budgets 8, 16, 32 and 64, in one run.

    python benchmarks/search.py [--examples a,b,c] [--corpus DIR [--corpus-ops ID,ID]] [--seeds 5] [--cache DIR]
                                [--exhaustive-max 600] [--pool 2000] [--tiling-only] [--partition P] [--limit N]

Operators: this project's examples (`--examples`, `--examples ''` for none) and, with `--corpus`, public operators
laid out by `benchmarks/corpus_fetch.py`: each with its real, unmodified tiling function and a golden, not known to
be buggy (`corpus/known_bugs.toml`), and with something to search once inert knobs are left out (search/inert.py).
For each, on its largest case, the optimum is the exhaustive grid's best when the space has at most
`--exhaustive-max` configurations, else the best of `--pool` random ones (measured once, then kept in the results
cache). Each strategy is then replayed from that cache with several seeds: no measurement or screening is paid
twice. Printed per strategy and budget: the geometric mean over operators and seeds of the fraction of the optimum
reached (optimum time / best time found, 1.0 = found it), the median number of evaluations needed to reach 95% of
it, and the mean number of candidates screened out (never measured, not in the budget), for the development and
the test partition side by side (issue 32; benchmarks/corpus/sources.toml, the examples are development). Also
printed per partition: the geomean speedup of the optimum over the shipped tilings. `--limit N` takes the first N
corpus operators of each partition that have something to search.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus_fetch import PARTITIONS, operator_partitions
from benchmarks.partition_table import partition_of
from benchmarks.tune_corpus import operators as corpus_operators
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.search.cache import ResultsCache
from tilewise.search.space import SearchSpace, build_space
from tilewise.search.tuner import Tuner

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DEFAULT = ["add_custom_slow_tiny_tiles", "gelu", "leaky_relu", "rms_norm", "softmax_row", "reduce_sum_all"]
STRATEGIES = ["evo", "random", "tpe", "best-of-n"]
BUDGETS = [8, 16, 32, 64]


def largest_case(op):
    return max(op.manifest.cases, key=lambda c: c.input_elements)


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def drain(tuner: Tuner) -> None:
    for _ in tuner.events():
        pass


def space_of(op, case, device, args) -> SearchSpace:
    """The operator's search space on `case` (its work sizes the even core splits); with --tiling-only, only the
    tiling function's own knobs (platform queries and literals: run-time values, so no configuration costs a
    build)."""
    space = build_space(op, device.chip, [case])
    if args.tiling_only:
        space = SearchSpace(knobs=[k for k in space.knobs if k.source in ("platform", "tiling_literal")])
    return space


def optimum(name, op, case, device, cache, args) -> tuple[float, float] | None:
    """(optimum, shipped) times on `case`, or None when nothing correct runs or nothing is left to search."""
    t0 = time.perf_counter()
    space = space_of(op, case, device, args)
    if not space.knobs:
        print(f"{name} [{case.name}]: no knob to search; skipped")
        return None
    probe = Tuner(op, device, [case], strategy="grid", budget=10**6, cache=cache, space=space)
    probe.prune_inert()
    size = probe.space.size()
    if size < 2:
        print(f"{name} [{case.name}]: nothing to search once inert knobs are left out; skipped")
        return None
    if size <= args.exhaustive_max:
        finder, how = probe, f"exhaustive over {size}"
    else:
        finder = Tuner(op, device, [case], strategy="random", budget=args.pool, seed=12345, cache=cache, space=space)
        how = f"best of {args.pool} random of {size:,}"
    drain(finder)
    r = finder.result()
    if r.best_us is None or r.baseline_us is None:
        print(f"{name} [{case.name}]: no correct configuration; skipped")
        return None
    print(
        f"{name} [{case.name}]: {how}: {r.evaluations} measured ({r.cached} cached, {len(r.failed)} failed), "
        f"{r.screened} screened out, in {time.perf_counter() - t0:.0f} s; shipped {r.baseline_us:.2f} us, "
        f"optimum {r.best_us:.2f} us {r.best}",
        flush=True,
    )
    return r.best_us, r.baseline_us


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--examples", default=",".join(DEFAULT))
    ap.add_argument("--corpus", type=Path)
    ap.add_argument("--corpus-ops", help="comma-separated corpus ids (default: every eligible one)")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--exhaustive-max", type=int, default=600)
    ap.add_argument("--pool", type=int, default=2000)
    ap.add_argument("--tiling-only", action="store_true", help="search only the tiling function's own knobs")
    ap.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    ap.add_argument("--cache", default=str(Path.home() / ".cache" / "tilewise-bench"))
    ap.add_argument("--partition", choices=[*PARTITIONS, "all"], default="all", help="corpus operators of one only")
    ap.add_argument("--limit", type=int, help="the first N corpus operators of each partition with a space to search")
    args = ap.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    cache_dir = Path(args.cache)
    device = EmulatorDevice(cache_dir=cache_dir)
    cache = ResultsCache(cache_dir / "results.sqlite")

    listed = [(name, EXAMPLES / name, "development") for name in args.examples.split(",") if name]
    if args.corpus:
        wanted = set(args.corpus_ops.split(",")) if args.corpus_ops else None
        partitions = operator_partitions()
        found = [(i, p, partition_of(i, partitions)) for i, p in corpus_operators(args.corpus, None)]
        found = [t for t in found if (wanted is None or t[0] in wanted) and args.partition in ("all", t[2])]
        listed += [t for part in PARTITIONS for t in found if t[2] == part]
    best, shipped, ops, spaces, part_of = {}, {}, {}, {}, {}
    taken = dict.fromkeys(PARTITIONS, 0)  # corpus operators with something to search, per partition
    for name, root, part in listed:
        corpus = root.parent != EXAMPLES
        if corpus and args.limit is not None and taken[part] >= args.limit:
            continue
        op = load_operator(root)
        case = largest_case(op)
        found_opt = optimum(name, op, case, device, cache, args)
        if found_opt is not None:
            best[name], shipped[name] = found_opt
            ops[name] = (op, case)
            spaces[name] = space_of(op, case, device, args)
            part_of[name] = part
            taken[part] += corpus

    counts = {p: sum(1 for n in ops if part_of[n] == p) for p in PARTITIONS}
    print()
    print(
        f"{len(ops)} operators ({', '.join(f'{p} {n}' for p, n in counts.items())}): fraction of optimum / median "
        "evals to 95% / mean screened out"
    )
    width = 26
    print(f"{'strategy':10} {'budget':>6} | " + " | ".join(f"{p:<{width}}" for p in PARTITIONS))
    for strategy in STRATEGIES:
        for budget in budgets:
            cells: dict[str, tuple[list[float], list[int], list[int]]] = {p: ([], [], []) for p in PARTITIONS}
            for name, (op, case) in ops.items():
                fractions, to95, screened = cells[part_of[name]]
                for seed in range(args.seeds):
                    t = Tuner(
                        op, device, [case], strategy=strategy, budget=budget, seed=seed, cache=cache, space=spaces[name]
                    )
                    reached, fastest = None, math.inf
                    for ev in t.events():
                        if ev.trial is not None and ev.trial.ok and ev.trial.time_us is not None:
                            fastest = min(fastest, ev.trial.time_us)
                            if reached is None and best[name] / fastest >= 0.95:
                                reached = ev.evaluations
                    fractions.append(min(1.0, best[name] / fastest) if fastest < math.inf else 0.0)
                    to95.append(reached if reached is not None else budget + 1)
                    screened.append(t.result().screened)
            row = [
                f"{geomean(f):.3f} / {statistics.median(e):>3.0f} / {statistics.mean(sc):5.1f}" if f else "-"
                for f, e, sc in cells.values()
            ]
            print(f"{strategy:10} {'b=' + str(budget):>6} | " + " | ".join(f"{c:<{width}}" for c in row), flush=True)
    print()
    for p in PARTITIONS:
        names = [n for n in best if part_of[n] == p]
        speedups = [shipped[n] / best[n] for n in names]
        print(
            f"{p}: geomean speedup of the optimum over the shipped tilings: "
            + (
                f"{geomean(speedups):.2f}x ({', '.join(f'{n} {s:.2f}x' for n, s in zip(names, speedups, strict=True))})"
                if speedups
                else "- (no operator)"
            )
        )


if __name__ == "__main__":
    main()
