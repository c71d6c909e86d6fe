"""InitBuffer totals over the Unified Buffer's capacity, where the sizes can be evaluated."""

from __future__ import annotations

from analysis.rules.base import Rule, RuleContext


class UbOverflow(Rule):
    id = "ub-overflow"
    severity = "error"
    summary = "InitBuffer total exceeds the UB capacity"

    def check(self, ctx: RuleContext):
        by_owner: dict[str | None, list] = {}
        for b in ctx.model.init_buffers:
            by_owner.setdefault(b.owner, []).append(b)
        for owner, bufs in by_owner.items():
            known = [b for b in bufs if b.bytes is not None]
            total = sum(b.bytes for b in known)
            if total <= ctx.chip.ub_bytes:
                continue
            parts = ", ".join(f"{b.queue} {b.bytes}" for b in known)
            exact = "" if len(known) == len(bufs) else " (counting only the sizes known statically)"
            yield self.finding(known[-1].loc, (
                f"{owner or 'the kernel'} allocates {total} bytes of UB{exact} but {ctx.chip.name} has "
                f"{ctx.chip.ub_bytes} ({total - ctx.chip.ub_bytes} bytes over): {parts}. Shrink the tile or the "
                "buffer count."))
