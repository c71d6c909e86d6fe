"""double-buffer: queues that stream tiles hold two buffers, so the copy of tile i+1 overlaps the compute of tile i.

Rewind: the kernel's buffer-count constant (a knob of role buffer_num, or a literal count of 2 in an InitBuffer)
becomes 1. Detect: the single-buffer lint rule, which proves the queue streams in a loop and that a second buffer
fits the UB; its fix sets the count to 2.

Example (slow -> fast): `constexpr int32_t BUFFER_NUM = 1;` -> `constexpr int32_t BUFFER_NUM = 2;`
"""

from __future__ import annotations

from analysis.motifs._knobs import rewind_knobs
from analysis.motifs.base import Motif, MotifContext, Rewound, splice


class DoubleBuffer(Motif):
    def rewind(self, ctx: MotifContext) -> list[Rewound]:
        out = rewind_knobs(ctx, self.id, "buffer_num", lambda k: 1 if k.value >= 2 else None, side="kernel")
        if out:
            return out
        for buf in ctx.model.init_buffers:  # `pipe.InitBuffer(q, 2, bytes)` with the count written in place
            sf = ctx.sources.get(buf.loc.file)
            if sf is None or buf.num.loc is None or buf.num.text.strip() != "2":
                continue
            text = splice(sf, buf.num.loc.start, buf.num.loc.end, "1")
            out.append(Rewound(self.id, f"InitBuffer({buf.queue}, 2 -> 1)", {sf.path: text}, sf.path, buf.loc.line))
        return out


MOTIF = DoubleBuffer(
    id="double-buffer",
    title="Double-buffer the streaming queues",
    removes="a copy-in/compute/copy-out queue with one buffer in a tile loop",
    kinds=("double-buffer",),
    rule="single-buffer",
)
