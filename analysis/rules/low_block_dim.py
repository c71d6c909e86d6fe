"""A blockDim constant below the chip's vector core count: the other cores sit idle."""

from __future__ import annotations

from analysis.findings import Fix
from analysis.rules.base import Rule, RuleContext, edit


class LowBlockDim(Rule):
    id = "low-block-dim"
    severity = "warning"
    summary = "blockDim constant below the chip's core count"

    def check(self, ctx: RuleContext):
        cores = ctx.chip.vector_cores
        candidates = {}
        for tf in ctx.model.tiling.functions:
            for bd in tf.block_dim:
                node = ctx.node(bd.loc)
                if node is None:
                    continue
                for knob in ctx.flow.knobs_reaching(ctx.flow.host_names(*node)):
                    if knob.role == "block_dim" or knob.kind == "set_block_dim":
                        candidates[(knob.file, knob.line, knob.name)] = knob
        for launch in ctx.model.launches:
            node = ctx.node(launch.block_dim.loc)
            if node is None:
                continue
            for knob in ctx.flow.knobs_reaching(ctx.flow.host_names(*node)):
                if knob.role == "block_dim" or knob.kind == "launch":
                    candidates[(knob.file, knob.line, knob.name)] = knob
        for knob in ctx.model.knobs:
            if knob.kind in ("set_block_dim", "launch"):
                candidates[(knob.file, knob.line, knob.name)] = knob
        for knob in candidates.values():
            if knob.tuned:
                continue  # an applied tune measured this count: more cores were not faster
            if knob.value >= cores:
                continue
            splits = ctx.uses_block_idx()
            fixes = []
            if splits:
                target = max([v for v in (knob.domain or []) if v <= cores] or [cores])
                if target > knob.value:
                    fixes.append(Fix(title=f"Use more cores: {knob.name} = {target} (up to {target / knob.value:.1f}x "
                                           "more cores for memory-bound work)",
                                     edits=[edit(knob.literal, str(target))]))
            note = "" if splits else " The kernel never calls GetBlockIdx(), so it must first split its work by core."
            yield self.finding(knob.literal, (
                f"{knob.name} = {knob.value} launches at most {knob.value} of the {cores} vector cores on "
                f"{ctx.chip.name}; the rest stay idle. Split the work over all cores (the tuner can pick the best "
                f"count).{note}"), fixes)
