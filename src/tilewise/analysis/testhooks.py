"""Kill points for the crash tests, and nothing else: `TILEWISE_TEST_KILL=NAME:N` makes the process SIGKILL itself the
Nth time it passes `kill_point(NAME)`, so a test can stop a real tune or `--apply` at a chosen step instead of racing
a timer. Unset (always, outside the tests), `kill_point` costs one environment lookup.

The points: `stored` after a measurement is committed to the results cache (search/cache.py), `applied` after a
source file is replaced by `--apply` (analysis/rewrite.py).
"""

from __future__ import annotations

import os
import signal
from collections import Counter

_passes: Counter[str] = Counter()


def kill_point(name: str) -> None:
    want = os.environ.get("TILEWISE_TEST_KILL")
    if not want:
        return
    point, _, count = want.partition(":")
    if point != name:
        return
    _passes[name] += 1
    if _passes[name] == int(count or 1):
        os.kill(os.getpid(), signal.SIGKILL)
