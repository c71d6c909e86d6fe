"""A synthetic but realistic large operator for benchmarks: many kernel classes in one 3000-line file, every fourth
with a full pipe barrier in its tile loop (so the file has findings, quick fixes and diagnostics to publish)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from opgen import HOST, TILING_H, big_kernel, write_operator  # noqa: E402


def write_big_operator(root: Path, lines: int = 3000) -> Path:
    parts = big_kernel(lines).split("            Compute();\n")
    kernel = parts[0]
    for i, rest in enumerate(parts[1:]):
        barrier = "            PipeBarrier<PIPE_ALL>();\n" if i % 4 == 0 else ""
        kernel += "            Compute();\n" + barrier + rest
    return write_operator(root, kernel=kernel, host=HOST, tiling_h=TILING_H)
