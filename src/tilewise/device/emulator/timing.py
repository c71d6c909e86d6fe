"""How the timing model's constants (validated from the chip file by analysis.chip) travel to the runner.

The schedule itself runs inside the runner (tw/timing/model.h): traces can hold millions of records, and replaying them
in C++ keeps scheduling a small share of the run.
"""

from __future__ import annotations

from tilewise.analysis.chip import Chip, timing_config


def spec_lines(chip: Chip) -> list[str]:
    t = timing_config(chip)
    lines = [
        f"timing clock_ghz {chip.clock_ghz}",
        f"timing vector_cores {chip.vector_cores}",
        f"timing hbm_gbps {chip.hbm_gbps}",
    ]
    for name in (
        "launch_us_base",
        "launch_us_per_core",
        "dma_peak_gibps",
        "dma_out_gibps",
        "dma_issue_cycles",
        "pad_row_cycles",
        "l2_mbytes",
        "l2_gbps",
        "scalar_issue_cycles",
        "ub_scalar_cycles",
        "gm_scalar_cycles",
        "sync_all_cycles",
        "vector_latency_cycles",
        "mte2_latency_cycles",
        "mte3_latency_cycles",
        "barrier_v_cycles",
        "ub_rw_conflict_beats",
        "same_address_serial",
    ):
        lines.append(f"timing {name} {getattr(t, name)}")
    lines.append(f"timing vector_default {t.vector_default[0]} {t.vector_default[1]}")
    for op, cost in sorted(t.vector.items()):
        lines.append(f"timing vcost {op} 2 {cost.fp16[0]} {cost.fp16[1]}")
        lines.append(f"timing vcost {op} 4 {cost.fp32[0]} {cost.fp32[1]}")
    return lines
