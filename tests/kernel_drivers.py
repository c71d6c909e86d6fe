"""Test drivers: small C++ programs of kernels written for the tests, compiled once per module or session against
the emulator's headers, each case run as its own process.

`build_driver` is the compile every driver test shares (the emulator's flags, warnings as errors). The drivers of
tests/emulator_api/ also share one output protocol, which `run_driver` reads: a line `result ok` or
`result error KIND LINE ...`, lines `trace NAME PIPE [NUMBERS...]` for the trace records the case produced, and any
other line `KEY WORDS...` for the values the test checks."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

INCLUDE = Path(__file__).resolve().parents[1] / "src" / "tilewise" / "device" / "emulator" / "include"
CXX = shutil.which("g++")


def build_driver(tmp_path_factory: pytest.TempPathFactory, source: Path, error_lines: int = 40) -> Path:
    """The driver's executable, in a fresh folder of its own (cases may write their files beside it)."""
    return compile_driver(source, tmp_path_factory.mktemp(source.stem) / source.stem, error_lines)


def compile_driver(source: Path, exe: Path, error_lines: int = 40) -> Path:
    """`source` built against the emulator's headers with every warning an error; the first compiler errors when
    it does not build."""
    proc = subprocess.run(
        [CXX or "g++", "-std=c++17", "-O0", "-Wall", "-Wextra", "-Werror", "-pthread", "-I", str(INCLUDE)]
        + [str(source), "-o", str(exe)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, "\n".join(proc.stderr.splitlines()[:error_lines])
    return exe


def run_selftest(source: Path, folder: Path) -> subprocess.CompletedProcess:
    """Build and run a self-checking C++ program (it prints `all checks passed`); its output, for more checks."""
    run = subprocess.run(
        [str(compile_driver(source, folder / source.stem))], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "all checks passed" in run.stdout
    return run


@dataclass
class DriverOutput:
    ok: bool = False
    error: str = ""
    lines: dict[str, list[str]] = field(default_factory=dict)  # KEY -> its words
    trace: list[list[str]] = field(default_factory=list)  # the words after `trace`


def run_driver(exe: Path, case: str) -> DriverOutput:
    p = subprocess.run([str(exe), case], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    out = DriverOutput()
    for line in p.stdout.splitlines():
        key, _, rest = line.partition(" ")
        if key == "result":
            out.ok = rest == "ok"
            out.error = "" if out.ok else rest.removeprefix("error ")
        elif key == "trace":
            out.trace.append(rest.split())
        else:
            out.lines[key] = rest.split()
    return out
