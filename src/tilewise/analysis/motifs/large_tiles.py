"""large-tiles: each DataCopy moves a large tile (16 KB or more), where the DMA runs near its peak bandwidth.

Rewind: a tile-size constant (a knob of role tile) shrinks eightfold, kept a multiple of 64 elements so every copy
stays 32-byte aligned for any dtype. Detect: the small-copy lint rule, whose fix enlarges the constant to the size
the DMA cost model says reaches the bandwidth, where the buffers still fit. Where the rule could not size the copies
(a tile the host computes), a tile constant under GUESS_BELOW elements that is declared tunable or named as a tile
is still a site, at half weight: its edit tries larger values, and only verification says whether they fit and
help. And where the run was profiled, its copies decide: when the copies the tile loop makes are far under
COPY_TARGET bytes each and the UB has room for larger buffers, the literals the copies' length is made of (a
cap in a min, a constant, a divisor, a shift count: analysis/motifs/_literals.py) are moved to make them that many
times larger (a factor of the tile, a divisor divided, a shift count lowered), and the smaller factors measured too.

Example (slow -> fast): `constexpr uint32_t TILE_LENGTH = 512;` -> `constexpr uint32_t TILE_LENGTH = 4096;`
"""

from __future__ import annotations

from tilewise.analysis.model import Knob
from tilewise.analysis.motifs._knobs import rewind_knobs, with_ladder
from tilewise.analysis.motifs._literals import BUFFERS, CORES, LENGTH, Source, sources_of
from tilewise.analysis.motifs._profiled import largest_run, literal_edit, movable, one_site
from tilewise.analysis.motifs.base import Motif, MotifContext, Rewound, Site
from tilewise.analysis.rewrite import knob_edit
from tilewise.analysis.treeutil import enclosing_function

_SHRINK = 8
GUESS_BELOW = 4096  # elements: 8 KB of fp16, under the 16 KB where copies approach the DMA's bandwidth
_ALIGN_ELEMS = 64  # 32 bytes of int8 .. 256 bytes of fp32: a multiple of 64 elements is aligned for every dtype


def _smaller(knob: Knob) -> int | None:
    if knob.domain:
        lower = [v for v in knob.domain if v <= knob.value // _SHRINK]
        if lower:
            return max(lower)
    value = knob.value // _SHRINK // _ALIGN_ELEMS * _ALIGN_ELEMS
    return value if value >= _ALIGN_ELEMS else None


class LargeTiles(Motif):
    def rewind(self, ctx: MotifContext) -> list[Rewound]:
        return rewind_knobs(ctx, self.id, "tile", _smaller)

    def detect(self, ctx: MotifContext) -> list[Site]:
        sites = with_ladder(ctx, super().detect(ctx))
        if sites:
            return sites  # the rule proved where the copies are small; a guess beside it would join its edit
        looped = _looped_copies(ctx)
        if looped:  # the run measured the tile loop's copies: they decide, no guess
            return self._from_profile(ctx, looped)
        for knob in ctx.model.knobs:
            if knob.role != "tile" or knob.tuned or knob.file not in ctx.sources:
                continue
            # Only a tile someone declared tunable (a domain) or named as one: a per-repeat or per-block count
            # also reads as a tile, and enlarging it changes what the kernel computes.
            if not (knob.domain or "TILE" in knob.name.upper()) or not 0 < knob.value < GUESS_BELOW:
                continue
            larger = sorted(v for v in (knob.domain or []) if v > knob.value)
            target = larger[-1] if larger else knob.value * 8
            why = (
                f"{knob.name} = {knob.value} sets the tile; the copies' sizes are decided at run time, so whether "
                "they are too small to reach the DMA's bandwidth is not proved. Larger tiles are measured on "
                "every case before anything is offered."
            )
            edit = knob_edit(knob, target)
            sites.append(Site(self.id, knob.file, knob.line, knob.line, why, [edit], weight=0.5))
            break  # one guess: the first tile constant (several at once would move together)
        return with_ladder(ctx, sites)

    def _from_profile(self, ctx: MotifContext, looped: dict[tuple[str, int], int]) -> list[Site]:
        run = largest_run(ctx)
        if run is None or max(looped.values()) >= COPY_TARGET:
            return []
        biggest = max(looped.values())
        used, room = run.ub_used(), run.ub_capacity or ctx.chip.ub_bytes
        factor = _pow2_floor(min(COPY_TARGET * 2 // biggest, room // used if used else COPY_TARGET // biggest))
        if factor < 2:
            return []  # the UB holds no larger buffers
        found = movable(
            ctx,
            sources_of(ctx.model, ctx.sources, LENGTH, where=_at_looped(looped), others=True, flow=ctx.rules.flow),
        )
        found = [(s, sign) for s, sign in found if not s.others & {CORES, BUFFERS} and (s.shift or s.value >= 2)]
        found.sort(key=lambda x: (x[0].shift, x[1] < 0, x[0].file, x[0].start))  # a tile first, divisors, shifts
        tries = []
        for f in (factor, factor // 2, factor // 4):
            for s, sign in found[:2]:
                value = _grown(s, sign, f)
                if f >= 2 and value is not None:
                    label = f"the literal {s.value} at line {s.line} set to {value}"
                    tries.append((label, [literal_edit(ctx, s, value)]))
        why = (
            f"the run's tile loop copies at most {biggest} bytes per DataCopy, far under the {COPY_TARGET} where the "
            f"DMA nears its bandwidth, and the UB has room for {factor}x the buffers: the copies' length is made of "
            "the literal(s) this rewrite moves."
        )
        # copies a quarter of the mark or less are plainly small; between, whether larger ones pay is a guess that
        # ranks after every proved motif (verification settles it)
        return one_site(self.id, ctx, tries, why, weight=1.0 if biggest * 4 <= COPY_TARGET else 0.5)


COPY_TARGET = 16384  # bytes per copy from which the DMA runs near its bandwidth (the small-copy rule's mark)


def _looped_copies(ctx: MotifContext) -> dict[tuple[str, int], int]:
    """(file, line) -> bytes per call of each copy the longest run made more than once (the tile loop's)."""
    run = largest_run(ctx)
    if run is None:
        return {}
    return {site: n for site, n in run.copy_bytes.items() if run.site_calls.get(site, 0) > 1 and n > 0}


def _at_looped(looped: dict[tuple[str, int], int]):
    """The length sinks of the looped copies: the copy's count argument on its line, or (a copy sized by a
    DataCopyParams built before it) a blockLen/blockCount value set earlier in the function that makes the copy."""
    lines = set(looped)

    def where(sf, n) -> bool:
        line = n.start_point[0] + 1
        if (sf.path, line) in lines:
            return True
        fn = enclosing_function(n)
        if fn is None:
            return False
        last = fn.end_point[0] + 1
        return any(p == sf.path and line < at <= last for p, at in lines)

    return where


def _pow2_floor(n: int) -> int:
    return 1 << (n.bit_length() - 1) if n >= 1 else 0


def _grown(s: Source, sign: int, factor: int) -> int | None:
    """The literal's value that makes what it sizes `factor` times larger: a factor times it, a divisor divided
    by it, a shift count moved by its log."""
    steps = factor.bit_length() - 1
    if s.shift:
        value = s.value + steps if sign > 0 else s.value - steps
        return value if value >= 0 else None
    if sign > 0:
        return s.value * factor
    return s.value // factor if s.value % factor == 0 and s.value >= factor else None


MOTIF = LargeTiles(
    id="large-tiles",
    title="Copy in large tiles",
    removes="tiles so small that each DataCopy runs far below the DMA's bandwidth",
    kinds=("tile-size",),
    rule="small-copy",
)
