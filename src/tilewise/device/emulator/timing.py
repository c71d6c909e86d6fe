"""How the timing model's constants (validated from the chip file by analysis.chip) travel to the runner.

The schedule itself runs inside the runner (tw/timing/model.h): traces can hold millions of records, and replaying
them in C++ keeps scheduling a small share of the run. Both ends follow analysis.chip's table of timing constants
(`TIMING_CONSTANTS`): `spec_lines` sends every constant of it, and the runner's `TimingParams` reads every one,
its fields and parser expanded from `tw/timing/constants.h`, which `timing_header` writes from the same table.
"""

from __future__ import annotations

from tilewise.analysis.chip import TIMING_CONSTANTS, Chip, timing_config


def spec_lines(chip: Chip) -> list[str]:
    """The run spec's `timing` lines: `timing NAME VALUE` per constant, the vector table as one `timing vcost OP
    BYTES HEAD PER_REPEAT` line per API and dtype column (2: fp16 and smaller, 4: fp32)."""
    t = timing_config(chip)
    lines = []
    for c in TIMING_CONSTANTS:
        value = getattr(chip if c.section == "chip" else t, c.name)
        if c.type == "row":
            lines.append(f"timing {c.name} {value[0]} {value[1]}")
        elif c.type == "table":
            for op, cost in sorted(value.items()):
                lines.append(f"timing vcost {op} 2 {cost.fp16[0]} {cost.fp16[1]}")
                lines.append(f"timing vcost {op} 4 {cost.fp32[0]} {cost.fp32[1]}")
        else:
            lines.append(f"timing {c.name} {value}")
    return lines
