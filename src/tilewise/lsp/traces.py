"""Where the editor's runs write their pipeline traces: the timeline view draws the last run's, so every run from
the editor records one, in a folder of this server's that is removed when the server exits. Each run gets a new
file and the operator's previous one is deleted once the new run has finished, so a view reading the last trace
never sees it rewritten under it."""

from __future__ import annotations

import atexit
import itertools
import shutil
import tempfile
from pathlib import Path

_folder: Path | None = None
_numbers = itertools.count(1)


def new_trace_path(operator: str) -> str:
    """A fresh path for the next run's trace (the file does not exist yet)."""
    global _folder
    if _folder is None:
        _folder = Path(tempfile.mkdtemp(prefix="tilewise-traces-"))
        atexit.register(shutil.rmtree, _folder, True)
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in operator)[:60] or "operator"
    return str(_folder / f"{safe}-{next(_numbers)}.json")


def discard(path: str | None) -> None:
    """Delete a trace this module handed out (a user's own --trace path is never touched)."""
    if path and _folder is not None and Path(path).parent == _folder:
        Path(path).unlink(missing_ok=True)
