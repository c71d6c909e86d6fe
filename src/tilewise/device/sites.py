"""A run's measured figures per source line: the emulator reports what each call site did in each block
(`Measurement.sites`); the editor wants, for the line under the cursor, how many calls it made over all blocks and
per block, their size, and their time on the pipe. This folds the per-block rows into one summary per (file, line,
API, pipe), so a hover is a dictionary lookup."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from tilewise.device.protocol import SiteUse


@dataclass(frozen=True, slots=True)
class LineFigures:
    """What one API on one line did over a whole run (a line can hold several calls, on different pipes)."""

    api: str
    pipe: str
    calls: int
    blocks: int  # blocks launched
    active_blocks: int  # blocks that made at least one of these calls
    min_calls_per_block: int  # over every launched block (0 when some block never reached the line)
    max_calls_per_block: int
    bytes: int
    min_bytes: int  # per call
    max_bytes: int
    repeats: int
    min_repeats: int
    max_repeats: int
    busy_us: float  # summed over blocks


def per_line(sites: list[SiteUse], blocks: int | None) -> dict[tuple[str, int], list[LineFigures]]:
    """(file, line) -> one summary per (API, pipe) on that line; `blocks` is how many blocks the run launched."""
    grouped: dict[tuple[str, int, str, str], list[SiteUse]] = defaultdict(list)
    for s in sites:
        grouped[(s.file, s.line, s.api, s.pipe)].append(s)
    out: dict[tuple[str, int], list[LineFigures]] = defaultdict(list)
    for (file, line, api, pipe), rows in sorted(grouped.items()):
        per_block: dict[int, int] = defaultdict(int)
        for r in rows:
            per_block[r.block] += r.calls
        launched = max(blocks or 0, max(per_block) + 1)
        counts = [per_block.get(b, 0) for b in range(launched)]
        out[(file, line)].append(
            LineFigures(
                api=api,
                pipe=pipe,
                calls=sum(counts),
                blocks=launched,
                active_blocks=sum(1 for c in counts if c),
                min_calls_per_block=min(counts),
                max_calls_per_block=max(counts),
                bytes=sum(r.bytes for r in rows),
                min_bytes=min(r.min_bytes for r in rows),
                max_bytes=max(r.max_bytes for r in rows),
                repeats=sum(r.repeats for r in rows),
                min_repeats=min(r.min_repeats for r in rows),
                max_repeats=max(r.max_repeats for r in rows),
                busy_us=sum(r.busy_us for r in rows),
            )
        )
    return dict(out)
