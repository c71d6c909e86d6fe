"""Helpers for the tests that run `tilewise tune` as real processes (tests/emulator/test_crash_safety.py and
test_shared_cache.py): the command, an environment with a fresh results cache over the session's build cache, and
the cache's own verdict."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def tune_argv(root: Path, *extra: str, budget: int = 4) -> list[str]:
    """A grid tune, one measurement at a time (so that the order of measurements is the proposals' order)."""
    return [
        sys.executable,
        "-m",
        "tilewise",
        "tune",
        str(root),
        "--strategy",
        "grid",
        "--budget",
        str(budget),
        "--workers",
        "1",
        "--format",
        "json",
        *extra,
    ]


def fresh_cache(where: Path, emu_cache: Path) -> tuple[Path, dict[str, str]]:
    """A TILEWISE_CACHE with no results whose builds are the session's (so no test compiles the runner again), and
    the environment that points a process at it."""
    (emu_cache / "emulator").mkdir(parents=True, exist_ok=True)
    where.mkdir(parents=True)
    (where / "emulator").symlink_to(emu_cache / "emulator", target_is_directory=True)
    return where, {**os.environ, "TILEWISE_CACHE": str(where)}


def run(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True, timeout=600, check=False)


def start(argv: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(argv, env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def cache_state(cache: Path) -> tuple[str, int]:
    """The results cache's `PRAGMA integrity_check` answer and its number of measurements."""
    con = sqlite3.connect(cache / "results.sqlite")
    try:
        check = con.execute("PRAGMA integrity_check").fetchone()[0]
        return check, con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    finally:
        con.close()
