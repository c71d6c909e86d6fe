"""`PipeBarrier<PIPE_ALL>()` inside a tile loop: every pipe drains each iteration, so nothing overlaps."""

from __future__ import annotations

from analysis.rules._gain import loop_stages, overlap_text
from analysis.rules.base import Rule, RuleContext, delete_statement, statement_of


class PipeAllInLoop(Rule):
    id = "pipe-all-in-loop"
    severity = "warning"
    summary = "PipeBarrier<PIPE_ALL> inside a tile loop serialises copy-in, compute and copy-out"

    def check(self, ctx: RuleContext):
        for call in ctx.model.calls("PipeBarrier"):
            if call.template_args is None or "PIPE_ALL" not in call.template_args or not call.in_loop:
                continue
            fixes = []
            found = ctx.node(call.loc)
            # The queues' EnQue/DeQue already order the stages; without them the barrier may be load-bearing.
            queued = any(c.name in ("EnQue", "DeQue") for c in ctx.model.calls_in(call.owner))
            if found and queued:
                sf, node = found
                fixes.append(self.fix(sf, node, loop_stages(ctx, call.owner)))
            where = "inside a tile loop" if call.loops else f"in {call.function}(), which runs inside a tile loop"
            yield self.finding(call.loc, (
                f"PipeBarrier<PIPE_ALL> {where} drains every pipe each iteration, so MTE2, vector and MTE3 never "
                "overlap and the time becomes the sum of the stages. The queues' EnQue/DeQue already order the "
                "stages; remove the barrier, or use SetFlag/WaitFlag for the one dependency that needs it."), fixes)

    def fix(self, sf, node, stages: int):
        from analysis.findings import Fix

        return Fix(title=f"Remove the full pipe barrier (the queues already order the stages): {overlap_text(stages)}",
                   edits=[delete_statement(sf, statement_of(node))])
