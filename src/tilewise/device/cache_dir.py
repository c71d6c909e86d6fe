"""Where tilewise keeps what it builds and measures: `$TILEWISE_CACHE`, else `$XDG_CACHE_HOME/tilewise`, else
`~/.cache/tilewise`. Every device builds below it (the emulator in `emulator/`, the NPU device in `npu/`) and the
search keeps its results cache, bank and calibrations beside them, so one variable moves them all."""

from __future__ import annotations

import os
from pathlib import Path


def default_cache_dir() -> Path:
    env = os.environ.get("TILEWISE_CACHE")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "tilewise"
