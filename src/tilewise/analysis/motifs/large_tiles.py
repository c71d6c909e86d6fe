"""large-tiles: each DataCopy moves a large tile (16 KB or more), where the DMA runs near its peak bandwidth.

Rewind: a tile-size constant (a knob of role tile) shrinks eightfold, kept a multiple of 64 elements so every copy
stays 32-byte aligned for any dtype. Detect: the small-copy lint rule, whose fix enlarges the constant to the size
the DMA cost model says reaches the bandwidth, where the buffers still fit. Where the rule could not size the copies
(a tile the host computes), a tile constant under GUESS_BELOW elements that is declared tunable or named as a tile
is still a site, at half weight: its edit tries larger values, and only verification says whether they fit and
help.

Example (slow -> fast): `constexpr uint32_t TILE_LENGTH = 512;` -> `constexpr uint32_t TILE_LENGTH = 4096;`
"""

from __future__ import annotations

from tilewise.analysis.model import Knob
from tilewise.analysis.motifs._knobs import rewind_knobs, with_ladder
from tilewise.analysis.motifs.base import Motif, MotifContext, Rewound, Site
from tilewise.analysis.rewrite import knob_edit

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


MOTIF = LargeTiles(
    id="large-tiles",
    title="Copy in large tiles",
    removes="tiles so small that each DataCopy runs far below the DMA's bandwidth",
    kinds=("tile-size",),
    rule="small-copy",
)
