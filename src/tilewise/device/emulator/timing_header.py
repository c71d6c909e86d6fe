"""Write the emulator's tw/timing/constants.h from analysis.chip's table of timing constants (`TIMING_CONSTANTS`).

The header is an X-macro list, `TW_TIMING_CONSTANTS(X)`, from which `TimingParams` (tw/timing/model.h) expands its
fields and its parser of the run spec's `timing NAME VALUE` lines (device/emulator/timing.py::spec_lines). It is
committed, so that building the emulator needs no Python step; regenerate it after changing the table:

    python -m tilewise.device.emulator.timing_header            # --check: only say whether it is current

(tests/emulator/test_timing_constants.py fails while the committed header is stale).
"""

from __future__ import annotations

import sys
from pathlib import Path

from tilewise.analysis.chip import TIMING_CONSTANTS, TimingConstant

HEADER = Path(__file__).parent / "include" / "tw" / "timing" / "constants.h"
_CPP_TYPES = {"float": "double", "int": "int", "row": "TimingRow"}


def _cpp_default(c: TimingConstant) -> str:
    # A constant every chip file gives starts at 0: the run spec always sends it.
    if c.type == "row":
        head, per_repeat = c.default if isinstance(c.default, tuple) else (0.0, 0.0)
        return f"(TimingRow{{{float(head)!r}, {float(per_repeat)!r}}})"
    if c.type == "int":
        return str(int(c.default)) if isinstance(c.default, int | float) else "0"
    return repr(float(c.default)) if isinstance(c.default, int | float) else "0.0"


def header_text() -> str:
    """The text of tw/timing/constants.h: the X-macro list of every constant the runner reads as `timing NAME`."""
    rows = [c for c in TIMING_CONSTANTS if c.type != "table"]
    body = []
    for c in rows:
        given = "every chip file gives it" if c.default is None else "default in the table"
        body += [
            f"    /* {c.name}: {c.prices} ({c.unit}; {given}) */",
            f"    X({_CPP_TYPES[c.type]}, {c.name}, {_cpp_default(c)})",
        ]
    body = [line + " \\" for line in body[:-1]] + body[-1:]
    return "\n".join(
        [
            "// GENERATED from analysis/chip.py's table of timing constants (TIMING_CONSTANTS) by",
            "// `python -m tilewise.device.emulator.timing_header`: do not edit, change the table and regenerate",
            "// (tests/emulator/test_timing_constants.py fails while this file is stale).",
            "//",
            "// TW_TIMING_CONSTANTS(X) calls X(type, name, default) once per constant the run spec sends as",
            "// `timing NAME VALUE` (device/emulator/timing.py::spec_lines); TimingParams (tw/timing/model.h)",
            "// expands it into its fields and its parser. A constant every chip file gives defaults to 0: the",
            "// spec always sends it. The vector table travels as `timing vcost OP BYTES HEAD PER_REPEAT` lines,",
            "// which TimingParams reads itself.",
            "#pragma once",
            "#include <utility>",
            "",
            "namespace tw {",
            "using TimingRow = std::pair<double, double>;  // (head cycles, cycles per repeat)",
            "}  // namespace tw",
            "",
            "#define TW_TIMING_CONSTANTS(X) \\",
            *body,
            "",
        ]
    )


def main(argv: list[str]) -> int:
    """Write the header (`--check`: only say whether the committed one is current)."""
    current = HEADER.read_text(encoding="utf-8") if HEADER.exists() else ""
    if "--check" in argv:
        if current != header_text():
            print(f"{HEADER} is stale: run python -m tilewise.device.emulator.timing_header", file=sys.stderr)
            return 1
        return 0
    if current != header_text():
        HEADER.write_text(header_text(), encoding="utf-8")
        print(f"wrote {HEADER}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
