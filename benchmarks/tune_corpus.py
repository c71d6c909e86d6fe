"""Tune every corpus operator that has a golden, as a new user would: `tilewise tune` at budget 32, evolutionary.

    python benchmarks/tune_corpus.py DIR [--budget 32] [--strategy evo] [--seed 0] [--only SUBSTR] [--limit N]
                                         [--partition development|test|all] [--largest-case] [--json OUT] [--running]

DIR is what `benchmarks/corpus_fetch.py` laid out. Operators listed in `benchmarks/corpus/known_bugs.toml` (wrong
outputs, sources that do not compile) are left out: a tiling search on a kernel that is wrong measures nothing.
Each remaining operator is tuned over all its manifest's cases (or only the largest, with `--largest-case`) with
the knobs tilewise finds on its own (named constants, platform queries, literals inside the tiling function). One
line per operator says which knobs it offered, how many candidates were measured, screened out or failed, and the
speedup of the best over the shipped tiling. At the end, the development and the test partition
(benchmarks/corpus/sources.toml) side by side (issue 32): the geometric-mean speedup over the operators whose shipped
tiling runs, how many improved (by more than 1%), and what the searches measured. `--limit N` tunes the first N
operators of each partition.

Results go to a results cache of their own (`--cache`), so a second run replays the first for free: the tuner is
deterministic for a given seed, so a replay proposes the same candidates.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.corpus_fetch import PARTITIONS, operator_partitions
from benchmarks.partition_table import partition_of, side_by_side
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.search.cache import ResultsCache
from tilewise.search.tuner import Tuner

HERE = Path(__file__).resolve().parent
IMPROVED = 1.01  # a gain under 1% is noise in what a user would notice


@dataclass
class Tuned:
    id: str
    knobs: list[str] = field(default_factory=list)
    baseline_us: float | None = None
    best_us: float | None = None
    speedup: float | None = None
    best: dict[str, int] | None = None
    measured: int = 0
    screened: int = 0
    failed: int = 0
    wall_s: float = 0.0
    error: str | None = None
    partition: str = "development"  # sources.toml's: reported side by side, never mixed


def operators(corpus: Path, only: str | None) -> list[tuple[str, Path]]:
    """(id, folder) of every corpus operator with a manifest and a golden, not known to be buggy."""
    known = tomllib.loads((HERE / "corpus" / "known_bugs.toml").read_text())
    excluded = set(known.get("bugs", {})) | set(known.get("broken_sources", {}))
    found = []
    for manifest in sorted(corpus.rglob("tilewise.toml")):
        op_id = str(manifest.parent.relative_to(corpus))
        if op_id in excluded or (only and only not in op_id):
            continue
        if "[golden]" not in manifest.read_text():
            continue
        found.append((op_id, manifest.parent))
    return found


def tune_one(op_id: str, root: Path, args: argparse.Namespace, device, cache) -> Tuned:
    r = Tuned(id=op_id)
    start = time.perf_counter()
    try:
        op = load_operator(root)
        assert op.manifest is not None  # (every listed operator has one)
        cases = list(op.manifest.cases)
        if args.largest_case:
            cases = [max(cases, key=lambda c: c.input_elements)]
        tuner = Tuner(op, device, cases, strategy=args.strategy, budget=args.budget, seed=args.seed, cache=cache)
        r.knobs = [k.name for k in tuner.space.knobs]
        for _ in tuner.events():
            pass
        result = tuner.result()
    except Exception as exc:  # noqa: BLE001 - one operator's failure is its own line, never the run's end
        r.error = f"{type(exc).__name__}: {exc}"
        r.wall_s = time.perf_counter() - start
        return r
    r.baseline_us, r.best_us, r.speedup, r.best = result.baseline_us, result.best_us, result.speedup, result.best
    r.measured = result.evaluations
    r.screened = getattr(result, "screened", 0)
    r.failed = len(result.failed)
    if result.baseline_us is None:
        r.error = f"the shipped tiling does not run: {result.trials[0].error if result.trials else '?'}"
    r.wall_s = time.perf_counter() - start
    return r


def line_for(r: Tuned) -> str:
    head = f"{r.id[:70]:70} {len(r.knobs):2} knobs"
    if r.error:
        return f"{head}  ERROR {r.error[:160]}"
    counts = f"{r.measured:3} measured {r.screened:3} screened {r.failed:3} failed"
    return f"{head}  {counts}  {r.speedup or 1.0:6.2f}x  ({r.wall_s:.0f} s)  {r.best if (r.speedup or 1) > 1 else ''}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--budget", type=int, default=32)
    ap.add_argument("--strategy", default="evo")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only")
    ap.add_argument("--limit", type=int, help="the first N operators of each partition")
    ap.add_argument("--partition", choices=[*PARTITIONS, "all"], default="all")
    ap.add_argument("--largest-case", action="store_true")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "tilewise-tune-corpus")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--running", action="store_true", help="print the running totals after every operator")
    args = ap.parse_args(argv)

    partitions = operator_partitions()
    found = [(i, d, partition_of(i, partitions)) for i, d in operators(args.corpus, args.only)]
    listed = [
        (i, d, p)
        for p in PARTITIONS
        if args.partition in ("all", p)
        for i, d, _ in [t for t in found if t[2] == p][: args.limit]
    ]
    device = EmulatorDevice(cache_dir=args.cache)
    cache = ResultsCache(args.cache / "results.sqlite")
    results = []
    for op_id, root, part in listed:
        r = tune_one(op_id, root, args, device, cache)
        r.partition = part
        results.append(r)
        print(line_for(r), flush=True)
        if args.json:  # after every operator: a run stopped half-way keeps what it measured
            args.json.write_text(json.dumps([asdict(r) for r in results], indent=2))
        if args.running:
            print(f"  so far: {summary(results)}", flush=True)
    cache.close()

    print()
    print(f"budget {args.budget}, {args.strategy}, seed {args.seed}")
    for line in side_by_side({p: totals([r for r in results if r.partition == p]) for p in PARTITIONS}):
        print(line)
    return 0


def totals(results: list[Tuned]) -> list[tuple[str, str]]:
    """One partition's totals as (label, figure) rows, for the side-by-side table."""
    ran = [r for r in results if r.error is None]
    speedups = [r.speedup or 1.0 for r in ran]
    geomean = math.exp(sum(math.log(s) for s in speedups) / len(speedups)) if speedups else float("nan")
    return [
        ("operators", str(len(results))),
        ("  whose shipped tiling runs", str(len(ran))),
        ("  offered more than one knob", f"{sum(1 for r in ran if len(r.knobs) > 1)}/{len(ran)}"),
        ("candidates measured", str(sum(r.measured for r in ran))),
        ("  screened out", str(sum(r.screened for r in ran))),
        ("  failed", str(sum(r.failed for r in ran))),
        ("geomean speedup over the shipped tilings", f"{geomean:.3f}x" if speedups else "-"),
        (f"improved (>{IMPROVED - 1:.0%})", f"{sum(1 for s in speedups if s > IMPROVED)}/{len(speedups)}"),
    ]


def summary(results: list[Tuned]) -> str:
    """The geometric-mean speedup over the operators whose shipped tiling runs, and how many improved."""
    speedups = [r.speedup or 1.0 for r in results if r.error is None]
    geomean = math.exp(sum(math.log(s) for s in speedups) / len(speedups)) if speedups else float("nan")
    improved = sum(1 for s in speedups if s > IMPROVED)
    return f"geomean speedup over the shipped tilings: {geomean:.3f}x; improved (>1%): {improved}/{len(speedups)}"


if __name__ == "__main__":
    raise SystemExit(main())
