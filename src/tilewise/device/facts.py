"""Run an operator's cases once each and turn what the device saw into lint's case facts (analysis/observed.py).

A static reading cannot know sizes the host tiling computes from the input shape: how big each InitBuffer is, how
many tiles a queue streams, how many blocks run. One run per case answers that. Rules then state a problem, or
call a fix safe, only when every case agrees (see `analysis.rules.single_buffer`).

A case that fails to build or run gives no facts; the caller is told why in one line (`problems`), and lint goes
on with the facts of the cases that ran.
"""

from __future__ import annotations

from collections import defaultdict

from tilewise.analysis.apis import COPIES
from tilewise.analysis.chip import load_chip
from tilewise.analysis.errors import TilewiseError
from tilewise.analysis.manifest import Case
from tilewise.analysis.observed import BufferSeen, CaseFacts
from tilewise.analysis.operator import Operator
from tilewise.device.protocol import Device, Measurement, RunRequest


def case_facts(device: Device, op: Operator, cases: list[Case], problems: list[str] | None = None) -> list[CaseFacts]:
    """One CaseFacts per case that ran (in order). A case that failed is left out and, when `problems` is given,
    one line saying which case and why is appended to it."""
    out: list[CaseFacts] = []
    for case in cases:
        try:
            m = device.run(op, RunRequest(case, sites=True))
        except Exception as exc:  # noqa: BLE001 - a device failure must not fail lint, only cost this case's facts
            if problems is not None:
                problems.append(f"case {case.name}: no facts, the run failed ({type(exc).__name__}: {exc})")
            continue
        if not m.ok:  # a run stopped part-way would under-count the loops
            if problems is not None:
                why = f"{m.error.kind}: {m.error.message.splitlines()[0][:160]}" if m.error else "it did not finish"
                problems.append(f"case {case.name}: no facts, the run failed ({why})")
            continue
        out.append(facts_of(m, case.name, _run_chip(device, m)))
    return out


def _run_chip(device: Device, m: Measurement):
    """The chip the run used: an operator's OpDef may move it to the one chip it registers."""
    chip = device.chip
    if m.chip and m.chip != chip.name:
        try:
            return load_chip(m.chip)
        except TilewiseError:
            return chip
    return chip


def facts_of(m: Measurement, case: str, chip=None) -> CaseFacts:
    """The facts one run gives: block 0's InitBuffers and each call site's calls in the busiest block."""
    per_block: dict[int, dict[tuple[str, int], int]] = defaultdict(lambda: defaultdict(int))
    copies: dict[int, dict[tuple[str, int], int]] = defaultdict(dict)
    for s in m.sites:
        per_block[s.block][(s.file, s.line)] += s.calls
        if s.api in COPIES and s.calls:
            copies[s.block][(s.file, s.line)] = max(copies[s.block].get((s.file, s.line), 0), s.max_bytes)
    # The busiest block: the one with the most calls, so a tail block with fewer tiles does not hide the loop.
    busiest_block = max(per_block, key=lambda b: sum(per_block[b].values()), default=None)
    busiest = per_block[busiest_block] if busiest_block is not None else {}
    return CaseFacts(
        case=case,
        block_dim=m.block_dim,
        ub_capacity=chip.ub_bytes if chip is not None else None,
        buffers=[BufferSeen(file=b.file, line=b.line, num=b.num, bytes=b.len) for b in m.init_buffers],
        site_calls=dict(busiest),
        time_us=m.time_us,
        launch_us=m.launch_us or 0.0,
        pipe_ratio={k: u.ratio for k, u in m.pipes.items()},
        copy_bytes=dict(copies.get(busiest_block, {})) if busiest_block is not None else {},
    )
