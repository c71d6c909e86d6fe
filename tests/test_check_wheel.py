"""The wheel proof (issue 31): scripts/check_wheel.sh builds a wheel from a fresh clone of HEAD, installs it into a
new virtual environment with no node on PATH, and runs examples, run --html, tune --html and serve there. Slow (a
clone, `npm ci` and two builds, a cold emulator build): in `scripts/test.sh --all` only."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECKS = [
    "fresh clone of",
    "python -m build: dist/tilewise-",
    "the wheel's top level is tilewise, tilewise-",
    "pip install tilewise-",
    "tilewise examples ops:",
    "tilewise run ops/add_custom",
    "tilewise tune ops/add_custom",
    "tilewise serve answers initialize over stdio:",
    "python -c 'import server' (and analysis, device, search) fails",
]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("npm") is None, reason="building the wheel needs npm (the charts bundle)")
def test_a_wheel_built_from_a_fresh_clone_runs_everything_without_node():
    result = subprocess.run(
        ["bash", str(ROOT / "scripts" / "check_wheel.sh")], capture_output=True, text=True, timeout=1800
    )
    lines = result.stdout.splitlines()
    assert result.returncode == 0, result.stdout + result.stderr
    for check in CHECKS:
        assert [line for line in lines if line.startswith(f"ok   {check}")], (
            f"no ok line for {check!r}:\n{result.stdout}"
        )
    assert lines[-1] == "all checks passed" and not [line for line in lines if line.startswith("FAIL")]
