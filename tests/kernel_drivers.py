"""Test drivers: small C++ programs of kernels written for the tests, compiled once per module or session against
the emulator's headers, each case run as its own process.

`build_driver` is the compile every driver test shares (the emulator's flags, warnings as errors). The drivers of
tests/emulator_api/ also share one output protocol, which `run_driver` reads: a line `result ok` or
`result error KIND LINE ...`, lines `trace NAME PIPE [NUMBERS...]` for the trace records the case produced, and any
other line `KEY WORDS...` for the values the test checks."""

from __future__ import annotations

import fcntl
import hashlib
import os
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


FLAGS = ["-std=c++17", "-O0", "-Wall", "-Wextra", "-Werror", "-pthread", "-I", str(INCLUDE)]


def compile_driver(source: Path, exe: Path, error_lines: int = 40) -> Path:
    """`source` built against the emulator's headers with every warning an error; the first compiler errors when
    it does not build. In a test session (TILEWISE_BUILD_CACHE, tests/conftest.py) each driver compiles once for
    every xdist worker: the first takes a lock and compiles, the others wait for it and copy what it built."""
    cache = os.environ.get("TILEWISE_BUILD_CACHE")
    if not cache:
        _compile(source, exe, error_lines)
        return exe
    from tilewise.device.emulator.build import headers_hash

    h = hashlib.sha256("\0".join([*FLAGS, headers_hash()]).encode())
    for p in sorted(source.parent.iterdir()):  # the driver and whatever of its folder it may include
        if p.suffix in (".cpp", ".h", ".hpp", ".inc") and p.is_file():
            h.update(p.name.encode() + b"\0" + p.read_bytes())
    built = Path(cache) / "drivers" / f"{source.stem}-{h.hexdigest()[:20]}"
    built.parent.mkdir(parents=True, exist_ok=True)
    with open(built.with_name(built.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, whatever happens inside
        if not built.exists():
            tmp = built.with_name(f".{built.name}.{os.getpid()}.tmp")
            try:
                _compile(source, tmp, error_lines)
                os.replace(tmp, built)
            finally:
                tmp.unlink(missing_ok=True)
    shutil.copy2(built, exe)  # a copy of its own: cases may write files beside it
    return exe


def _compile(source: Path, exe: Path, error_lines: int) -> None:
    proc = subprocess.run(
        [CXX or "g++", *FLAGS, str(source), "-o", str(exe)], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, "\n".join(proc.stderr.splitlines()[:error_lines])


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


def run_driver(exe: Path, case: str, *args: str) -> DriverOutput:
    """Run one case (with the driver's own further arguments, if it takes any) and read its output."""
    p = subprocess.run([str(exe), case, *args], capture_output=True, text=True, timeout=60)
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
