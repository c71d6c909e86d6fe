"""Profiling one launch with `msprof op`, and reading its CSVs into the emulator's `Measurement` fields.

`msprof op --output=DIR --warm-up=W --launch-count=N APP ARGS` writes `DIR/OPPROF_<timestamp>_<x>/`, holding for
one operator `OpBasicInfo.csv` and `PipeUtilization.csv` (with several, `<OpName>/<n>/<Metric>_<timestamp>.csv`):
both are found by glob. Columns are read by name, never by position, since CANN versions reorder and add them:

- OpBasicInfo: `Op Name` (the kernel's name with a suffix such as `_0` or `_mix_aic`: matched by prefix),
  `Task Duration(us)` (dispatch + run + response), `Block Dim`, `Current Freq` and `Rated Freq` (a short kernel can
  run below the up-clock threshold: a lower current frequency is reported as a warning, since its time is then
  not the chip's);
- PipeUtilization: one row per block with `aiv_vec_time(us)`, `aiv_scalar_time(us)`, `aiv_mte2_time(us)`,
  `aiv_mte3_time(us)` and their `_ratio` columns (the vector cores' pipes; the cube's `aic_*` are not read).
"""

from __future__ import annotations

import csv
import statistics
from dataclasses import dataclass
from pathlib import Path

from tilewise.device.protocol import PipeUse, RunWarning

# The emulator's pipe names, and the PipeUtilization column stem each comes from.
PIPE_COLUMNS = {"vector": "aiv_vec", "scalar": "aiv_scalar", "mte2": "aiv_mte2", "mte3": "aiv_mte3"}


class ProfileError(Exception):
    """msprof's output cannot be read as a profile of the kernel; the message is one line."""


@dataclass
class Profile:
    time_us: float
    block_dim: int | None
    pipes: dict[str, PipeUse]
    bottleneck: str | None
    warnings: list[RunWarning]
    rows: int  # launches measured


def msprof_argv(
    msprof: str, out_dir: Path, app: list[str], *, kernel: str | None, warm_up: int, launches: int
) -> list[str]:
    argv = [msprof, "op", f"--output={out_dir}", f"--warm-up={warm_up}", f"--launch-count={launches}"]
    if kernel:
        argv.append(f"--kernel-name={kernel}*")
    return argv + app


def read_profile(out_dir: Path, kernel: str | None) -> Profile:
    """The kernel's profile from an msprof op output folder."""
    basic = sorted(out_dir.glob("**/OpBasicInfo*.csv"))
    if not basic:
        raise ProfileError(f"msprof wrote no OpBasicInfo.csv under {out_dir}: did the kernel launch?")
    rows = [row for path in basic for row in _rows(path)]
    mine = [r for r in rows if kernel is None or (r.get("Op Name") or "").startswith(kernel)]
    if not mine:
        names = ", ".join(sorted({r.get("Op Name") or "?" for r in rows})) or "none"
        raise ProfileError(f"msprof's OpBasicInfo has no row for kernel {kernel} (it has: {names})")
    durations = [_number(r, "Task Duration(us)") for r in mine]
    if any(d is None for d in durations):
        raise ProfileError(f"OpBasicInfo in {basic[0].parent} has no 'Task Duration(us)' for {kernel}")
    time_us = statistics.median(d for d in durations if d is not None)
    block = _number(mine[0], "Block Dim")
    warnings = _frequency_warnings(mine)
    pipes = _pipes(out_dir)
    bottleneck = max(pipes, key=lambda p: pipes[p].ratio) if pipes else None
    return Profile(time_us, int(block) if block is not None else None, pipes, bottleneck, warnings, len(mine))


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        return [{(k or "").strip(): (v or "").strip() for k, v in row.items() if k} for row in reader]


def _number(row: dict[str, str], column: str) -> float | None:
    try:
        return float(row[column])
    except (KeyError, ValueError):
        return None


def _frequency_warnings(rows: list[dict[str, str]]) -> list[RunWarning]:
    low = []
    for r in rows:
        now, rated = _number(r, "Current Freq"), _number(r, "Rated Freq")
        if now is not None and rated and now < rated:
            low.append((now, rated))
    if not low:
        return []
    now, rated = min(low)
    return [
        RunWarning(
            kind="downclocked",
            message=f"the device ran at {now:g} MHz of its rated {rated:g} MHz in {len(low)} of {len(rows)} "
            "launch(es): the time is not the chip's; raise the warm-up (--npu-warm-up) or run a longer case",
            count=len(low),
        )
    ]


def _pipes(out_dir: Path) -> dict[str, PipeUse]:
    """Busy time per pipe summed over the blocks, and its ratio averaged over them (the emulator's convention)."""
    rows = [r for p in sorted(out_dir.glob("**/PipeUtilization*.csv")) for r in _rows(p)]
    pipes: dict[str, PipeUse] = {}
    for name, stem in PIPE_COLUMNS.items():
        times = [t for r in rows if (t := _number(r, f"{stem}_time(us)")) is not None]
        ratios = [x for r in rows if (x := _number(r, f"{stem}_ratio")) is not None]
        if times:
            pipes[name] = PipeUse(
                busy_us=round(sum(times), 4), ratio=round(statistics.fmean(ratios), 4) if ratios else 0.0
            )
    return pipes
