"""A synthetic but realistic large operator for benchmarks: many kernel classes in one 3000-line file."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from opgen import HOST, KERNEL, TILING_H, write_operator  # noqa: E402


def big_kernel(lines: int = 3000) -> str:
    head, _, rest = KERNEL.partition("class KernelScale {")
    cls, _, entry = rest.partition("};\n\nextern")
    body = []
    i = 0
    while True:
        chunk = f"class KernelScale{i} {{" + cls.replace("KernelScale()", f"KernelScale{i}()") + "};\n\n"
        if len((head + "".join(body) + chunk).splitlines()) > lines - 10:
            break
        body.append(chunk)
        i += 1
    text = head + "".join(body) + "class KernelScale {" + cls + "};\n\nextern" + entry
    return text


def write_big_operator(root: Path, lines: int = 3000) -> Path:
    return write_operator(root, kernel=big_kernel(lines), host=HOST, tiling_h=TILING_H)
