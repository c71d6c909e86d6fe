"""Does `tilewise optimize --no-llm` bring a slow operator to the speed of its fast version?

    python benchmarks/optimize.py [--only SUBSTR] [--budget 48] [--json OUT]
                                  [--corpus DIR [--recipes blind|dev|all] [--recipe NAME] [--limit N] [--cases 1]
                                   [--partition development|test|all] [--no-twins]] [--workers 2]

Two kinds of slow operator, each optimised with the deterministic motifs alone, from a fresh in-memory start (the
results cache is not read, so each figure is what one run of the command finds):

- every example whose manifest names a fast `twin` (examples/*_slow_*: a single buffer, a barrier in the loop, one
  core, tiny tiles, a scalar loop, a padded copy), against its twin run on the same cases in the same process;
- with `--corpus`, the public corpus operators that have a golden (and the project's fast examples), slowed by hand
  with the recipes of benchmarks/bank.py (`--recipes`: its own "dev" ones, the "blind" ones of
  benchmarks/blind_recipes.py written before looking at what the detectors find, or "all"), against the operator as
  shipped. A recipe that does not slow the operator by bank.py's MIN_LOSS, or that breaks it, is left out.

Per operator the script prints the slow time, the optimised time, the fast version's time and

    reached = fast_us / optimized_us                      (1.00: as fast as the fast version)
    recovered = (slow_us - optimized_us) / (slow_us - fast_us)

and the steps the loop accepted. At the end, the development and the test partition (benchmarks/corpus/sources.toml;
the examples and their twins are development) side by side: how many reach 95% of the fast version's speed and how
many recover 90% of the lost time.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bank import MIN_LOSS, RECIPE_SETS, RECIPES, RECOVER, corpus_operators, spread
from benchmarks.corpus_fetch import PARTITIONS, operator_partitions
from benchmarks.partition_table import partition_of, side_by_side
from tilewise.analysis.operator import Operator, load_operator
from tilewise.cli.bank_command import example_operators
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import RunRequest
from tilewise.search.bank.store import load_banks
from tilewise.search.llm.rewrite import profile_runs
from tilewise.search.optimize import OptimizeOptions, optimize

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
TARGET = 0.95


def slow_examples(only: str | None) -> list[Path]:
    found = []
    for d in sorted(EXAMPLES.iterdir()):
        if "_slow_" not in d.name or (only and only not in d.name):
            continue
        op = load_operator(d)
        if op.manifest and op.manifest.operator.twin:
            found.append(d)
    return found


def _row(name: str, recipe: str, part: str, result, fast_us: float | None, wall: float, problems: list[str]) -> dict:
    reached = fast_us / result.best_us if fast_us and result.best_us else None
    slow = result.baseline_us
    lost = slow - fast_us if slow and fast_us else None
    recovered = (slow - result.best_us) / lost if lost and lost > 0 and result.best_us else None
    return {
        "operator": name,
        "recipe": recipe,
        "partition": part,
        "slow_us": slow,
        "optimized_us": result.best_us,
        "fast_us": fast_us,
        "twin_us": None if recipe else fast_us,  # (the key this script wrote before the corpus rows came)
        "reached": reached,
        "recovered": recovered,
        "evaluations": result.evaluations,
        "wall_s": round(wall, 1),
        "steps": [f"{s.stage} {s.what}" for s in result.steps[1:] if s.accepted],
        "problems": result.problems + problems,
    }


def _print(row: dict[str, Any]) -> None:
    r = row
    figures = (
        f"{r['slow_us']:.2f} -> {r['optimized_us']:.2f} µs, fast {r['fast_us']:.2f} µs, reached {r['reached']:.2f}"
        + (f", recovered {r['recovered']:.0%}" if r["recovered"] is not None else "")
        if r["reached"] and r["fast_us"] and r["slow_us"] and r["optimized_us"]
        else f"not measured: {'; '.join(r['problems']) or 'no time'}"
    )
    label = f"{r['operator']}" + (f" [{r['recipe']}]" if r["recipe"] else "")
    print(f"[{r['partition'][:4]}] {label:<70} {figures}  ({r['evaluations']} candidates, {r['wall_s']:.0f} s)")
    for s in r["steps"]:
        print(f"    + {s}")


def _slowed(op: Operator, root: Path, recipe: str, device, cases) -> tuple[Operator | None, float | None, str]:
    """The operator slowed by the recipe, with the shipped operator's time, or None and why it is left out."""
    texts = RECIPES[recipe][1](op)
    if texts is None:
        return None, None, "does not fit"
    fast = [device.run(op, RunRequest(c)) for c in cases]
    if any(not m.ok or m.correct is False or m.time_us is None for m in fast):
        return None, None, "fails as shipped"
    slow_op = load_operator(root, overlay=texts)
    slow = [device.run(slow_op, RunRequest(c)) for c in cases]
    if any(not m.ok or m.correct is False or m.time_us is None for m in slow):
        return None, None, "the recipe breaks it"
    fast_us = sum(m.time_us or 0.0 for m in fast)
    if sum(m.time_us or 0.0 for m in slow) < fast_us * MIN_LOSS:
        return None, None, "the recipe does not slow it"
    return slow_op, fast_us, ""


def totals(rows: list[dict[str, Any]], left_out: dict[str, int]) -> list[tuple[str, str]]:
    """One partition's totals as (label, figure) rows."""
    n = len(rows)
    reached = [r["reached"] for r in rows if r["reached"]]
    met = sum(1 for x in reached if x >= TARGET)
    recovered = sum(1 for r in rows if r["recovered"] is not None and r["recovered"] >= RECOVER)
    out = [
        ("slow operators optimised", str(n)),
        (f"reach >= {TARGET:.0%} of the fast version's speed", f"{met}/{n}" + (f" ({met / n:.0%})" if n else "")),
        (f"recover >= {RECOVER:.0%} of the lost time", f"{recovered}/{n}" + (f" ({recovered / n:.0%})" if n else "")),
        ("geomean reached", f"{math.exp(sum(map(math.log, reached)) / len(reached)):.2f}" if reached else "-"),
    ]
    return out + [(f"  left out: {why}", str(k)) for why, k in sorted(left_out.items())]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="only operators (example folders, corpus ids) whose name contains this")
    ap.add_argument("--budget", type=int, default=48)
    ap.add_argument("--json", metavar="OUT", help="write the per-operator figures as JSON")
    ap.add_argument("--corpus", type=Path, help="also slow the corpus operators with a golden by hand, and optimise")
    ap.add_argument("--recipes", choices=["blind", "dev", "all"], default="all")
    ap.add_argument("--recipe", action="append", choices=sorted(RECIPES))
    ap.add_argument("--limit", type=int, help="at most N corpus operators per partition, spread over the list")
    ap.add_argument("--cases", type=int, default=1, help="the N largest cases of a slowed corpus operator (0: all)")
    ap.add_argument("--partition", choices=[*PARTITIONS, "all"], default="all")
    ap.add_argument("--twins", action=argparse.BooleanOptionalAction, default=True, help="the examples' twins")
    ap.add_argument("--workers", type=int, default=2, help="candidates measured at once (optimize's default 2)")
    args = ap.parse_args()
    device = EmulatorDevice()
    bank, _ = load_banks()
    options = OptimizeOptions(budget=args.budget, workers=args.workers)
    rows: list[dict[str, Any]] = []
    left_out: dict[str, dict[str, int]] = {p: {} for p in PARTITIONS}
    for d in slow_examples(args.only) if args.twins and args.partition != "test" else []:
        op = load_operator(d)
        assert op.manifest is not None and op.manifest.operator.twin is not None
        twin = load_operator((d / op.manifest.operator.twin).resolve())
        cases = list(op.manifest.cases)
        start = time.perf_counter()
        result = optimize(op, device, cases, options, bank=bank)
        wall = time.perf_counter() - start
        runs, failing = profile_runs(twin, device, cases, 0, None)
        twin_us = None if failing else sum(m.time_us or 0.0 for _, m in runs)
        rows.append(_row(d.name, "", "development", result, twin_us, wall, [failing] if failing else []))
        _print(rows[-1])
    if args.corpus:
        chosen = args.recipe or [n for n in RECIPES if args.recipes == "all" or n in RECIPE_SETS[args.recipes]]
        partitions = operator_partitions()
        targets = [(f"examples/{d.name}", d, "development") for d in example_operators()]
        targets += [(i, d, partition_of(i, partitions)) for i, d in corpus_operators(args.corpus, None)]
        targets = [t for t in targets if (not args.only or args.only in t[0]) and args.partition in ("all", t[2])]
        targets = [t for p in PARTITIONS for t in spread([t for t in targets if t[2] == p], args.limit)]
        for name, root, part in targets:
            op = load_operator(root)
            if op.manifest is None or not op.manifest.cases:
                continue
            ordered = sorted(op.manifest.cases, key=lambda c: -c.input_elements)
            cases = ordered[: args.cases] if args.cases > 0 else ordered
            for recipe in chosen:
                slow_op, fast_us, why = _slowed(op, root, recipe, device, cases)
                if slow_op is None:
                    if why != "does not fit":
                        left_out[part][why] = left_out[part].get(why, 0) + 1
                    continue
                start = time.perf_counter()
                result = optimize(slow_op, device, cases, options, bank=bank)
                rows.append(_row(name, recipe, part, result, fast_us, time.perf_counter() - start, []))
                _print(rows[-1])
    twins = [r for r in rows if not r["recipe"]]
    if twins:
        met = sum(1 for r in twins if r["reached"] is not None and r["reached"] >= TARGET)
        print(f"\n{met}/{len(twins)} slow examples reach at least {TARGET:.0%} of their fast twin's speed")
    print()
    for line in side_by_side({p: totals([r for r in rows if r["partition"] == p], left_out[p]) for p in PARTITIONS}):
        print(line)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
