"""A copy-in/compute/copy-out queue with one buffer: the next tile's copy waits for this tile's compute."""

from __future__ import annotations

from analysis.findings import Fix
from analysis.rules._gain import overlap_text
from analysis.rules.base import Rule, RuleContext, edit


class SingleBuffer(Rule):
    id = "single-buffer"
    severity = "warning"
    summary = "queue with a single buffer in a tile loop (no double buffering)"

    def check(self, ctx: RuleContext):
        queues = {(q.owner, q.name): q for q in ctx.model.queues if q.kind in ("TQue", "TQueBind")}
        single = [b for b in ctx.model.init_buffers if b.num.value == 1 and (b.owner, b.queue) in queues]
        # Which of those queues a tile loop uses: asked only of the classes that have one (a kernel has thousands
        # of calls, and most have no single-buffered queue at all).
        looped = {(c.owner, (c.receiver or "").replace("this->", ""))
                  for owner in {b.owner for b in single} for c in ctx.model.calls_in(owner)
                  if c.in_loop and c.name in ("EnQue", "DeQue", "AllocTensor")}
        reported_knobs: set[str] = set()
        for buf in single:
            if (buf.owner, buf.queue) not in looped:
                continue
            knob = ctx.model.knob(buf.num.text) if buf.num.text and not buf.num.text.isdigit() else None
            if knob is not None and (knob.name in reported_knobs or knob.tuned):
                continue
            fixes = []
            if not self._fits_doubled(ctx, buf.owner):
                note = " UB does not have room for a second buffer at the current tile size; shrink the tile first."
            else:
                note = ""
                target = knob.literal if knob is not None else buf.num.loc
                if target is not None:
                    fixes.append(Fix(title=f"Enable double buffering ({buf.num.text} = 2): {overlap_text(2)}",
                                     edits=[edit(target, "2")]))
            loc = knob.literal if knob is not None else (buf.num.loc or buf.loc)
            if knob is not None:
                reported_knobs.add(knob.name)
            yield self.finding(loc, (
                f"queue '{buf.queue}' has a single buffer ({buf.num.text} = 1) in a tile loop: the copy-in of tile "
                "i+1 waits for the compute of tile i, so MTE2, vector and MTE3 run one after another (about 1/3 "
                "vector utilisation when the stages are equal). Two buffers let them overlap." + note), fixes)

    @staticmethod
    def _fits_doubled(ctx: RuleContext, owner: str | None) -> bool:
        sizes = [b for b in ctx.model.init_buffers if b.owner == owner]
        if any(b.size.value is None for b in sizes):
            return True  # sizes decided at run time: the tuner checks capacity per case
        total = sum(b.size.value * (2 if b.num.value == 1 and b.queue != "" else b.num.value or 1) for b in sizes)
        return total <= ctx.chip.ub_bytes
