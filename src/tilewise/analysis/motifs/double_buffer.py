"""double-buffer: queues that stream tiles hold two buffers, so the copy of tile i+1 overlaps the compute of tile i.

Rewind: the kernel's buffer-count constant (a knob of role buffer_num, or a literal count of 2 in an InitBuffer)
becomes 1. Detect: the single-buffer lint rule, which proves the queue streams in a loop and that a second buffer
fits the UB; its fix sets the count to 2. Where the rule is silent, an InitBuffer that asks for one buffer with a
literal `1` for a queue enqueued in a loop is still a site (its edit asks for two; whether they fit the UB is left
to verification, which runs every case).

Example (slow -> fast): `constexpr int32_t BUFFER_NUM = 1;` -> `constexpr int32_t BUFFER_NUM = 2;`
"""

from __future__ import annotations

from tilewise.analysis.findings import edit_range
from tilewise.analysis.motifs._knobs import rewind_knobs
from tilewise.analysis.motifs.base import Motif, MotifContext, Rewound, Site, splice


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

    def detect(self, ctx: MotifContext) -> list[Site]:
        sites = super().detect(ctx)
        covered = {(s.file, s.line) for s in sites}
        looped = {(c.owner, c.receiver) for c in ctx.calls("EnQue") if c.in_loop and c.receiver}
        streaming = {(q.owner, q.name) for q in ctx.model.queues if q.kind in ("TQue", "TQueBind")}
        for buf in ctx.model.init_buffers:
            sf = ctx.sources.get(buf.loc.file)
            key = (buf.owner, buf.queue)
            if sf is None or buf.num.loc is None or buf.num.text.strip() != "1" or key not in streaming & looped:
                continue
            if (buf.loc.file, buf.loc.line) in covered:
                continue
            why = (
                f"InitBuffer gives queue '{buf.queue}' one buffer, and the queue is enqueued in a loop: the copy of "
                "the next tile waits for this one's compute. Two buffers let them overlap, if both fit the UB."
            )
            edit = edit_range(sf, buf.num.loc.start, buf.num.loc.end, "2")
            sites.append(Site(self.id, sf.path, buf.loc.line, buf.loc.end_line, why, [edit]))
        return sites


MOTIF = DoubleBuffer(
    id="double-buffer",
    title="Double-buffer the streaming queues",
    removes="a copy-in/compute/copy-out queue with one buffer in a tile loop",
    kinds=("double-buffer",),
    rule="single-buffer",
)
