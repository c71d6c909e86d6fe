"""The build cache's defences against other processes and against the compiler itself: a compiler killed by a
signal is a failure of the machine, not of the sources; a file another process may be reading is replaced whole,
never rewritten in place; and every compile and link runs bounded, like user code (`run_tool`).

Several processes share one build cache (the CLI and the editor, two tunes) and any of them, or its g++, may be
killed at any moment. An object or executable is written under a temporary name and renamed (build.py), so a
killed compiler leaves no entry that looks finished; `killed_tool` keeps the failure it causes out of the results
cache (device.protocol.TRANSIENT_ERROR_KINDS); `write_atomic` writes a generated source that another process's
compiler may be reading at that moment.

The compiler reads the workspace's sources, which can make it run for ever (a template or constexpr recursion that
never ends) or print without end: `run_tool` gives it device/process.py's containment (its own process
group killed whole on a timeout, a memory limit, at most OPEN_FILES open files, a bounded copy of its output, no
network where the machine allows), and `tool_timeout` is the one line a timeout gives.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
from pathlib import Path

from tilewise.device.process import run_bounded
from tilewise.device.protocol import RunError

# How long one compile or link may run: generous, since a large operator at -O2 takes a minute or two, and a
# timeout is about a compiler that would never finish. TILEWISE_BUILD_TIMEOUT (seconds) moves it.
BUILD_TIMEOUT_S = 600.0
# The compiler's address space: GCC on a heavy template unit stays well under this.
BUILD_MEMORY_BYTES = 8 * 1024**3
# Of the compiler's output, its first bytes are kept besides the tail: the first error is the one a build shows.
TOOL_HEAD_BYTES = 256 * 1024


def build_timeout() -> float:
    """TILEWISE_BUILD_TIMEOUT in seconds, or BUILD_TIMEOUT_S when it is unset or not a positive number."""
    try:
        value = float(os.environ.get("TILEWISE_BUILD_TIMEOUT", ""))
    except ValueError:
        return BUILD_TIMEOUT_S
    return value if value > 0 else BUILD_TIMEOUT_S


def run_tool(argv: list[str], timeout_s: float) -> subprocess.CompletedProcess[str] | None:
    """Run a compiler or linker bounded like user code (process.run_bounded) in our working directory (the cache
    may be named by a relative TILEWISE_CACHE); None when it did not finish within `timeout_s`, and then it and
    every process it started (cc1plus, as, ld) have been killed."""
    return run_bounded(
        argv,
        cwd=None,
        env=None,
        timeout_s=timeout_s,
        memory_bytes=BUILD_MEMORY_BYTES,
        no_network=True,
        head_bytes=TOOL_HEAD_BYTES,
    )


def tool_timeout(what: str, timeout_s: float, file: str | None) -> RunError:
    """The error of a compile or link of `file` that `run_tool` killed at its timeout. Transient (like a run's
    timeout, it may be the machine's load): never kept in the results cache, and the next run builds again."""
    return RunError(
        kind="build_timeout",
        message=f"the compiler ({what}) did not finish within {timeout_s:g} s and was killed with every process it "
        "started; nothing it wrote is kept. A template or constexpr recursion that never ends? Otherwise raise the "
        "limit with TILEWISE_BUILD_TIMEOUT=<seconds>",
        file=file,
    )


def killed_tool(code: int, what: str) -> RunError | None:
    """The error of a compiler or linker that a signal ended (`code` negative), or None for any other exit: such a
    build failed because of the machine (the OOM killer, a kill from outside), and the next build tries again."""
    if code >= 0:
        return None
    try:
        sig = signal.Signals(-code).name
    except ValueError:
        sig = f"signal {-code}"
    return RunError(
        kind="build_killed",
        message=f"the compiler ({what}) was killed by {sig} before it finished (out of memory, or stopped from "
        "outside); nothing it wrote is kept, and the next run builds again",
    )


def write_atomic(path: Path, text: str) -> Path:
    """Write `text` to `path` through a temporary file renamed over it: a reader sees the old text or the new,
    never a truncated file. Returns `path`."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


def link_error(stderr: str) -> RunError:
    m = re.search(r"undefined reference to [`'](?P<sym>[^'`]+)'", stderr)
    if m:
        return RunError(
            kind="link_error",
            message=(
                f"undefined reference to '{m.group('sym')}': the operator uses something the emulator does not provide "
                "yet, or a function it declares is never defined"
            ),
        )
    return RunError(kind="link_error", message=stderr.strip()[-400:])
