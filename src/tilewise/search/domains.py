"""The values a knob is searched over, by its role (analysis/knob_flow.py reads the role from the data flow).

- a **core count**: the chip's range, 1 to its vector cores on the usual steps, with every count that splits
  each case's work into equal shares;
- a **buffer count**: 1 to 4;
- a **tile length** or a **divisor** of the tiles: every value on a ladder of powers of two and their 1.5x
  (1, 2, 3, 4, 6, 8, 12, ...) whose buffers fit the Unified Buffer, and are at least a 32-byte block, for some
  setting of the other knobs. Before any buffer is known (`static_length_domain`) that is a wide reach around the
  shipped value: a tile from 1/64 to 64 times it, a divisor from 1 (the undivided tile) to 64 times it. Once the
  shipped configuration's buffers are known (the static model's sizes when they evaluate, else the device's
  screening of it: `fit_to_ub`), each such knob is fitted: its value scales the buffers it sizes (by the data
  flow's sign at each InitBuffer), the other knobs that size them are taken at their most helpful value, and the
  values that fit are kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tilewise.analysis.chip import Chip

CORE_STEPS = (1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 64)
BUFFER_COUNTS = (1, 2, 3, 4)
REACH = 64  # before the buffers are known, how far a tile or a divisor reaches from its shipped value
BLOCK_BYTES = 32
# The fitted ladder's top: 2^24 elements or bytes is far past any UB.
_LADDER_TOP = 1 << 24

# site ("FILE:LINE") -> (buffer count, bytes per buffer) as the shipped configuration makes it, one map per case
Buffers = Mapping[str, tuple[int, int]]


def ladder(lo: int, hi: int) -> list[int]:
    """Powers of two and their 1.5x in [lo, hi]."""
    out = set()
    v = 1
    while v <= hi:
        out |= {x for x in (v, v * 3 // 2) if lo <= x <= hi and x >= 1}
        v *= 2
    return sorted(out)


def core_domain(chip: Chip, work: list[int], current: int) -> list[int]:
    """1 to the chip's vector cores on CORE_STEPS, with the counts that divide every case's work evenly."""
    cores = chip.vector_cores
    even = {d for d in range(2, cores + 1) if work and all(n % d == 0 for n in work)}
    return sorted({s for s in CORE_STEPS if s <= cores} | even | {cores, current})


def buffer_domain(current: int) -> list[int]:
    return sorted(set(BUFFER_COUNTS) | {current})


def static_length_domain(current: int, role: str) -> list[int]:
    """A tile length's or divisor's ladder before any buffer is known (see the module)."""
    if current < 1:
        return [current]
    lo = 1 if role == "divisor" else max(1, current // REACH)
    return sorted(set(ladder(lo, current * REACH)) | {current})


def fit_to_ub(
    current: int,
    sites: Mapping[str, int],
    others: Sequence[tuple[int, list[int], Mapping[str, int]]],
    cases: Sequence[Buffers],
    ub_bytes: int,
) -> list[int] | None:
    """The ladder values of a length knob whose buffers fit the UB on every case for some setting of the other
    knobs, every buffer it sizes staying a block or more. `sites`: the knob's sign at each InitBuffer it sizes;
    `others`: (current, domain, sites) of the other knobs. None when none of its sites was seen (nothing to fit)."""
    reached = {s: sign for s, sign in sites.items() if sign and any(s in c for c in cases)}
    if not reached:
        return None

    def extreme(site: str, pick) -> float:
        """The other knobs' most extreme combined factor at `site` (`pick`: min for the UB, max for the block)."""
        factor = 1.0
        for cur, domain, their_sites in others:
            sign = their_sites.get(site, 0)
            if sign and cur > 0:
                factor *= pick((v / cur) ** sign for v in domain if v > 0)
        return factor

    smallest = {s: extreme(s, min) for s in reached}
    largest = {s: extreme(s, max) for s in reached}
    kept = []
    for v in ladder(1, _LADDER_TOP):
        scale = {s: (v / current) ** sign for s, sign in reached.items()}
        if all(_fits(case, scale, smallest, ub_bytes) and _blocks(case, scale, largest) for case in cases):
            kept.append(v)
    return sorted(set(kept) | {current})


def _fits(case: Buffers, scale: dict[str, float], smallest: dict[str, float], ub_bytes: int) -> bool:
    total = 0.0
    for site, (num, size) in case.items():
        total += num * _round_up(size * scale.get(site, 1.0) * smallest.get(site, 1.0))
    return total <= ub_bytes


def _blocks(case: Buffers, scale: dict[str, float], largest: dict[str, float]) -> bool:
    return all(case[s][1] * f * largest[s] >= BLOCK_BYTES for s, f in scale.items() if s in case)


def _round_up(size: float) -> float:
    return -(-size // BLOCK_BYTES) * BLOCK_BYTES
