"""double-buffer: queues that stream tiles hold two buffers, so the copy of tile i+1 overlaps the compute of tile i.

Rewind: the kernel's buffer-count constant (a knob of role buffer_num, or a literal count of 2 in an InitBuffer)
becomes 1. Detect: the single-buffer lint rule, which proves the queue streams in a loop and that a second buffer
fits the UB; its fix sets the count to 2. Where the rule is silent, an InitBuffer that asks for one buffer with a
literal `1` for a queue enqueued in a loop is still a site (its edit asks for two; whether they fit the UB is left
to verification, which runs every case). And the count is read by meaning, however it is written: an InitBuffer of
a streaming queue whose count is 1 (as the profile's run laid it out, else as it evaluates) gets every literal the
data flow shows the count (and the queue's depth) is made of set to 2: a constant, an enum, a class member, a
template argument of the kernel class's instantiation (analysis/motifs/_literals.py).

Example (slow -> fast): `constexpr int32_t BUFFER_NUM = 1;` -> `constexpr int32_t BUFFER_NUM = 2;`
"""

from __future__ import annotations

from functools import partial

from tree_sitter import Node

from tilewise.analysis.findings import edit_range
from tilewise.analysis.motifs._knobs import rewind_knobs
from tilewise.analysis.motifs._literals import BUFFERS, sources_of
from tilewise.analysis.motifs._profiled import literal_edit, movable
from tilewise.analysis.motifs.base import Motif, MotifContext, Rewound, Site, splice
from tilewise.analysis.source import SourceFile


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
        return sites + self._by_meaning(ctx, sites, streaming & looped)

    def _by_meaning(self, ctx: MotifContext, sites: list[Site], queues: set) -> list[Site]:
        """The one-deep streaming queues whose count the sites above do not rewrite: each count's literals to 2.
        One buffer is what the profile's run laid out, else what the count evaluates to, else what every literal
        it is made of says."""
        seen = {(b.file, b.line): b.num for f in ctx.facts for b in f.buffers}
        enqueued = {(c.owner, c.receiver): (c.loc.file, c.loc.line) for c in ctx.calls("EnQue") if c.receiver}
        done = {(e.file, e.start) for s in sites for e in s.edits or []}
        out: list[Site] = []
        for buf in ctx.model.init_buffers:
            key = (buf.owner, buf.queue)
            if buf.loc.file not in ctx.sources or buf.num.loc is None or key not in queues:
                continue
            streams = [f.site_calls.get(enqueued.get(key, ("", 0)), 0) for f in ctx.facts]
            num = seen.get((buf.loc.file, buf.loc.line), buf.num.value)
            if (num is not None and num != 1) or (streams and max(streams) <= 1):
                continue  # not one buffer, or the run enqueued one tile at most
            queue = next((q for q in ctx.model.queues if q.name == buf.queue and q.owner == buf.owner), None)
            spans = [(buf.loc.file, buf.num.loc.start, buf.num.loc.end)]
            if queue is not None:
                spans.append((queue.loc.file, queue.loc.start, queue.loc.end))
            here = partial(_within, spans=spans)
            found = sources_of(ctx.model, ctx.sources, BUFFERS, where=here, flow=ctx.rules.flow)
            made = [(s, sign) for s, sign in movable(ctx, found) if sign > 0]
            ones = [s for s, _ in made if s.value == 1]
            if num is None and (not ones or len(ones) != len(made)):
                continue  # the count is unknown and not every literal it is made of is 1
            edits = [literal_edit(ctx, s, 2) for s in ones if (s.file, s.start) not in done]
            if not edits:
                continue
            done |= {(e.file, e.start) for e in edits}
            why = (
                f"queue '{buf.queue}' gets one buffer from InitBuffer and is enqueued in a loop"
                + (f" ({max(streams)} tiles in the run)" if streams else "")
                + ": the copy of the next tile waits for this one's compute. The count is made of the literal(s) "
                "this rewrite sets to 2, if both buffers fit the UB."
            )
            out.append(Site(self.id, buf.loc.file, buf.loc.line, buf.loc.end_line, why, edits))
        return out


def _within(sf: SourceFile, node: Node, *, spans: list[tuple[str, int, int]]) -> bool:
    """Whether a sink node lies in one of the spans (an InitBuffer's count, a queue's declaration)."""
    return any(sf.path == f and lo <= node.start_byte < max(hi, lo + 1) for f, lo, hi in spans)


MOTIF = DoubleBuffer(
    id="double-buffer",
    title="Double-buffer the streaming queues",
    removes="a copy-in/compute/copy-out queue with one buffer in a tile loop",
    kinds=("double-buffer",),
    rule="single-buffer",
)
