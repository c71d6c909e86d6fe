"""A synthetic but realistic large operator for benchmarks: many kernel classes in one 3000-line file."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from opgen import HOST, TILING_H, big_kernel, write_operator  # noqa: E402


def write_big_operator(root: Path, lines: int = 3000) -> Path:
    return write_operator(root, kernel=big_kernel(lines), host=HOST, tiling_h=TILING_H)
