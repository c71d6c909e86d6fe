"""`PipeBarrier<PIPE_ALL>()` inside a tile loop: every pipe drains each iteration, so nothing overlaps.

Removing the barrier is right only when nothing but the queues needs ordering. The rule first looks for what the
barrier may be ordering (`_barrier_deps`: scalar GetValue/SetValue, a TBuf hand-off between pipes, a GM round trip,
cube work); a scalar access fenced by its own events into and out of the scalar pipe (`_scalar_fences`), or a
SetValue into a queue tile that only another stage touches on a pipe, is ordered without the barrier. With none,
the queues' EnQue/DeQue order the stages: a warning and a safe "Remove" fix. With one, the barrier is load-bearing:
silent, or, when the loop also streams through queues whose overlap the barrier blocks, an info suggesting the
narrower synchronisation (never a removal). A loop whose work runs on one pipe and no queue has no stages to
overlap: the barrier only costs a drain per iteration, an info with a removal to verify.
"""

from __future__ import annotations

from tilewise.analysis.findings import Fix
from tilewise.analysis.rules._barrier_deps import dependencies, regions_of
from tilewise.analysis.rules._gain import loop_stages, overlap_text
from tilewise.analysis.rules._scalar_bounds import never_called
from tilewise.analysis.rules.base import Rule, RuleContext, delete_statement, statement_of


class PipeAllInLoop(Rule):
    id = "pipe-all-in-loop"
    severity = "warning"
    summary = "PipeBarrier<PIPE_ALL> inside a tile loop serialises copy-in, compute and copy-out"

    def check(self, ctx: RuleContext):
        for call in ctx.model.calls("PipeBarrier"):
            if call.template_args is None or "PIPE_ALL" not in call.template_args or not call.in_loop:
                continue
            found = ctx.node(call.loc)
            if found is None:
                continue
            sf, node = found
            if never_called(ctx, sf, node):
                continue  # in a function nothing calls in the device build
            deps = dependencies(ctx, regions_of(ctx, sf, node), barrier=(str(sf.path), node.start_byte))
            where = "inside a tile loop" if call.loops else f"in {call.function}(), which runs inside a tile loop"
            if deps.any():
                if deps.queued and not deps.cube and not deps.gm_round_trip:
                    yield self.finding(
                        call.loc,
                        (
                            f"PipeBarrier<PIPE_ALL> {where} orders {deps.describe()}, so it cannot simply go; but it "
                            "also "
                            "stops the queued copy-in, compute and copy-out from overlapping. Synchronise only the "
                            "pipes "
                            "that dependency joins (SetFlag/WaitFlag on its HardEvent, e.g. V_S before a GetValue of a "
                            "vector result, or PipeBarrier<PIPE_V> between vector steps). Not proved: that nothing "
                            "else "
                            "in the loop relies on the full barrier."
                        ),
                        severity="info",
                    )
                continue
            if not deps.queued and len(deps.pipes) != 1:
                continue  # no queue: the barrier is what orders the stages' hand-offs (or the work was not seen)
            if not deps.queued:
                # One pipe and no queue: there are no stages to overlap. The barrier only makes each iteration wait
                # for that pipe to drain before the next instruction is issued: a small cost, not the sum of stages.
                (pipe,) = deps.pipes
                yield self.finding(
                    call.loc,
                    (
                        f"PipeBarrier<PIPE_ALL> {where} waits each iteration for the loop's {pipe} work to drain "
                        "before "
                        f"the next is issued. The loop's work runs on that one pipe, which keeps its own order, so the "
                        "barrier costs one drain per iteration (no copy-in/compute/copy-out overlap is lost). Not "
                        "proved: "
                        "that nothing outside the loop relies on it."
                    ),
                    [
                        Fix(
                            title="Remove the full pipe barrier (one pipe keeps its own order; saves one drain per "
                            "iteration)",
                            edits=[delete_statement(sf, statement_of(node))],
                            safe=False,
                        )
                    ],
                    severity="info",
                )
                continue
            stages = loop_stages(ctx, call.owner)
            fixes = [
                Fix(
                    title=f"Remove the full pipe barrier (the queues already order the stages): {overlap_text(stages)}",
                    edits=[delete_statement(sf, statement_of(node))],
                    safe=True,
                )
            ]
            order = "The queues' EnQue/DeQue already order the stages"
            yield self.finding(
                call.loc,
                (
                    f"PipeBarrier<PIPE_ALL> {where} drains every pipe each iteration, so MTE2, vector and MTE3 never "
                    f"overlap and the time becomes the sum of the stages. {order}; remove the barrier."
                ),
                fixes,
            )
