"""A synthetic but realistic large operator for benchmarks: many kernel classes in one 3000-line file, every fourth
with a full pipe barrier in its tile loop (so the file has findings, quick fixes and diagnostics to publish).
`write_big_invocation_operator` puts the same classes into a kernel-invocation operator, host main() included."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

# tests/ on the path, as pytest's conftest and mypy's mypy_path have it: one module name for the test operator
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from opgen import HOST, TILING_H, big_kernel, write_operator

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _kernel_with_barriers(lines: int) -> str:
    parts = big_kernel(lines).split("            Compute();\n")
    kernel = parts[0]
    for i, rest in enumerate(parts[1:]):
        barrier = "            PipeBarrier<PIPE_ALL>();\n" if i % 4 == 0 else ""
        kernel += "            Compute();\n" + barrier + rest
    return kernel


def write_big_operator(root: Path, lines: int = 3000) -> Path:
    """A project-layout operator; the kernel is op_kernel/scale.cpp."""
    return write_operator(root, kernel=_kernel_with_barriers(lines), host=HOST, tiling_h=TILING_H)


def write_big_invocation_operator(root: Path, lines: int = 3000) -> Path:
    """examples/kernel_invocation_add with the classes added before its kernel entry; the file is add_kernel.cpp."""
    shutil.copytree(EXAMPLES / "kernel_invocation_add", root)
    path = root / "add_kernel.cpp"
    example = path.read_text()
    classes = _kernel_with_barriers(lines - len(example.splitlines())).split("using namespace AscendC;", 1)[1]
    classes = classes.split('extern "C"')[0].replace("constexpr int32_t BUFFER_NUM = 2;", "")
    at = example.index('extern "C"')
    path.write_text(example[:at] + classes + example[at:])
    return root
