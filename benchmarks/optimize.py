"""Does `tilewise optimize --no-llm` bring a slow operator to the speed of its fast twin?

    python benchmarks/optimize.py [--only SUBSTR] [--budget 48] [--json OUT]

Every example whose manifest names a fast `twin` (examples/*_slow_*: a single buffer, a barrier in the loop, one
core, tiny tiles, a scalar loop, a padded copy) is optimised with the deterministic motifs alone, from a fresh
in-memory start (the results cache is not read, so each figure is what one run of the command finds). Its twin runs
on the same cases in the same process. Per operator the script prints the slow time, the optimised time, the twin's
time and the share of the twin's speed reached:

    reached = twin_us / optimized_us      (1.00: as fast as the twin; above: faster than the twin)

and the steps the loop accepted. The last line counts the operators at 95% of their twin's speed or better.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="only examples whose folder name contains this")
    ap.add_argument("--budget", type=int, default=48)
    ap.add_argument("--json", metavar="OUT", help="write the per-operator figures as JSON")
    args = ap.parse_args()
    device = EmulatorDevice()
    bank, _ = load_banks()
    rows: list[dict[str, object]] = []
    met = 0
    for d in slow_examples(args.only):
        op = load_operator(d)
        assert op.manifest is not None and op.manifest.operator.twin is not None
        twin = load_operator((d / op.manifest.operator.twin).resolve())
        cases = list(op.manifest.cases)
        start = time.perf_counter()
        result = optimize(op, device, cases, OptimizeOptions(budget=args.budget), bank=bank)
        wall = time.perf_counter() - start
        runs, failing = profile_runs(twin, device, cases, 0, None)
        twin_us = None if failing else sum(m.time_us or 0.0 for _, m in runs)
        reached = twin_us / result.best_us if twin_us and result.best_us else None
        steps = [f"{s.stage} {s.what}" for s in result.steps[1:] if s.accepted]
        rows.append(
            {
                "operator": d.name,
                "slow_us": result.baseline_us,
                "optimized_us": result.best_us,
                "twin_us": twin_us,
                "reached": reached,
                "evaluations": result.evaluations,
                "wall_s": round(wall, 1),
                "steps": steps,
                "problems": result.problems + ([failing] if failing else []),  # (as printed below)
            }
        )
        problems = result.problems + ([failing] if failing else [])
        figures = (
            f"{result.baseline_us:.2f} -> {result.best_us:.2f} µs, twin {twin_us:.2f} µs, reached {reached:.2f}"
            if reached and twin_us and result.baseline_us and result.best_us
            else f"not measured: {'; '.join(problems) or 'no time'}"
        )
        if reached is not None and reached >= TARGET:
            met += 1
        print(f"{d.name:<42} {figures}  ({result.evaluations} candidates, {wall:.0f} s)")
        for s in steps:
            print(f"    + {s}")
    print(f"\n{met}/{len(rows)} slow examples reach at least {TARGET:.0%} of their fast twin's speed")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
