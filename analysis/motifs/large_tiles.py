"""large-tiles: each DataCopy moves a large tile (16 KB or more), where the DMA runs near its peak bandwidth.

Rewind: a tile-size constant (a knob of role tile) shrinks eightfold, kept a multiple of 64 elements so every copy
stays 32-byte aligned for any dtype. Detect: the small-copy lint rule, whose fix enlarges the constant to the size
the DMA cost model says reaches the bandwidth, where the buffers still fit.

Example (slow -> fast): `constexpr uint32_t TILE_LENGTH = 512;` -> `constexpr uint32_t TILE_LENGTH = 4096;`
"""

from __future__ import annotations

from analysis.model import Knob
from analysis.motifs._knobs import rewind_knobs, with_ladder
from analysis.motifs.base import Motif, MotifContext, Rewound, Site

_SHRINK = 8
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
        return with_ladder(ctx, super().detect(ctx))


MOTIF = LargeTiles(
    id="large-tiles",
    title="Copy in large tiles",
    removes="tiles so small that each DataCopy runs far below the DMA's bandwidth",
    kinds=("tile-size",),
    rule="small-copy",
)
