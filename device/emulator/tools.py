"""The build cache's two defences against other processes: a compiler killed by a signal is a failure of the
machine, not of the sources, and a file another process may be reading is replaced whole, never rewritten in place.

Several processes share one build cache (the CLI and the editor, two tunes) and any of them, or its g++, may be
killed at any moment. An object or executable is written under a temporary name and renamed (build.py), so a
killed compiler leaves no entry that looks finished; `killed_tool` keeps the failure it causes out of the results
cache (device.protocol.TRANSIENT_ERROR_KINDS); `write_atomic` writes a generated source that another process's
compiler may be reading at that moment.
"""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

from device.protocol import RunError


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
