"""Write tests/slow_tests.txt, the tests the fast suite leaves out, from what a run measured.

    .venv/bin/python -m pytest -q -n auto --dist loadgroup -m "not slow" --durations=0 > run.log
    python scripts/slow_tests.py run.log [--threshold 4.0]

A test is slow when its call took at least `--threshold` seconds in that run (the fast suite's own load: two xdist
workers, each build using both cores). Setup is not counted: a module's or session's fixture (a driver compiled
once for many tests) is charged to whichever test of the module ran first, and leaving that test out would only
charge it to the next one. The ids already in the list stay
in it (a run of the fast suite never measures them again), unless `--fresh` is given with a `--all` run's log.
conftest.py marks every listed test `slow`: `scripts/test.sh --all` (CI) still runs it. Why a list and not a
decorator on each: the list is a measurement, made again by this script when the suite changes, not a judgement
written into 130 test files.
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from pathlib import Path

LIST = Path(__file__).resolve().parent.parent / "tests" / "slow_tests.txt"
_DURATION = re.compile(r"^(?P<s>\d+(?:\.\d+)?)s call\s+(?P<id>\S.*?)\s*$")
HEADER = """\
# The tests the fast suite (scripts/test.sh) leaves out: each took at least {threshold:g} s to run (its call,
# not the fixtures it shares) in a fast-suite run on a 2-core machine. conftest.py marks them `slow`;
# scripts/test.sh --all and CI run them. Made by scripts/slow_tests.py from a --durations=0 log: run it again
# when the suite changes.
"""


def read_list(path: Path = LIST) -> list[str]:
    """The node ids in the list (comments and blank lines skipped); [] when there is no list."""
    if not path.is_file():
        return []
    return [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip() and not ln.startswith("#")]


def measured(log: str) -> dict[str, float]:
    """Each test's call seconds in a pytest `--durations=0` log."""
    totals: dict[str, float] = defaultdict(float)
    for line in log.splitlines():
        m = _DURATION.match(line.strip())
        if m:
            totals[m["id"]] += float(m["s"])
    return dict(totals)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log", type=Path, help="a pytest log with --durations=0")
    ap.add_argument("--threshold", type=float, default=4.0, help="seconds; default 4")
    ap.add_argument("--fresh", action="store_true", help="forget the current list (the log is of a --all run)")
    args = ap.parse_args()
    times = measured(args.log.read_text(encoding="utf-8", errors="replace"))
    if not times:
        raise SystemExit(f"{args.log}: no durations in it: run pytest with --durations=0")
    keep = set() if args.fresh else set(read_list())
    slow = sorted(keep | {t for t, s in times.items() if s >= args.threshold})
    LIST.write_text(HEADER.format(threshold=args.threshold) + "".join(f"{t}\n" for t in slow), encoding="utf-8")
    print(f"{LIST}: {len(slow)} tests ({len(slow) - len(keep & set(slow))} new), {args.threshold:g} s or more")


if __name__ == "__main__":
    main()
