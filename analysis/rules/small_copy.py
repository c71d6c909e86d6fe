"""Copies far below 16 KB because a tile-length constant is small: DMA runs at a fraction of its bandwidth."""

from __future__ import annotations

import re

from analysis.findings import Fix
from analysis.rules._gain import dma_efficiency
from analysis.rules._params import param_items
from analysis.rules.base import GOOD_COPY_BYTES, Rule, RuleContext, edit

SMALL_BYTES = 4 * 1024  # "well under" 16 KB: a quarter of it
_LENGTH_NAME = re.compile(r"LEN|SIZE|ELEM|CHUNK|COL_TILE|TILE_COLS", re.I)
_COUNT_NAME = re.compile(r"NUM|COUNT|CNT", re.I)


class SmallCopy(Rule):
    id = "small-copy"
    severity = "warning"
    summary = "copies well under 16 KB because the tile constant is small"

    def check(self, ctx: RuleContext):
        if not any(_reportable(k) and k.value < SMALL_BYTES for k in ctx.model.knobs):
            return  # no tile knob is small even for 1-byte elements: no need to slice thousands of copies
        reported: set[str] = set()
        # The outcome depends only on the length expression's text (the names it slices from) and the element
        # size: a kernel copies the same `tileLength` hundreds of times, and each pair is sliced once.
        seen: set[tuple[str, str, int]] = set()
        for call in ctx.model.calls("DataCopy", "DataCopyPad"):
            if not call.in_loop or len(call.args) < 3:
                continue
            elem = ctx.elem_size(call, call.args[0].text) or ctx.elem_size(call, call.args[1].text) or 2
            if call.name == "DataCopy":
                if ("DataCopy", call.args[2].text, elem) in seen:
                    continue
                seen.add(("DataCopy", call.args[2].text, elem))
            found = ctx.node(call.loc)
            if found is None:
                continue
            sf, node = found
            args = [a for a in node.child_by_field_name("arguments").named_children if a.type != "comment"]
            length = args[2]
            if call.name == "DataCopyPad":
                params = param_items(sf, node, args[2])
                if params is None or len(params[1]) < 2:
                    continue
                length = params[1][1]
                if ("DataCopyPad", sf.node_text(length), elem) in seen:
                    continue
                seen.add(("DataCopyPad", sf.node_text(length), elem))
            names = ctx.flow.kernel_names(sf, length)
            for knob in ctx.flow.knobs_reaching(names, role="tile"):
                if knob.name in reported or not _reportable(knob):
                    continue
                nbytes = knob.value * elem
                # A zero (or negative) length is a placeholder the code overrides, not a small copy; doubling it
                # towards 16 KB would also never end.
                if nbytes <= 0 or nbytes >= SMALL_BYTES:
                    continue
                reported.add(knob.name)
                yield self._report(ctx, knob, elem, nbytes, call)

    def _report(self, ctx: RuleContext, knob, elem: int, nbytes: int, call):
        target = _target_value(knob, elem, ctx)
        fixes = []
        if target > knob.value:
            gain = dma_efficiency(ctx.chip, target * elem) / dma_efficiency(ctx.chip, nbytes)
            fixes.append(Fix(
                title=f"Enlarge the tile: {knob.name} = {target} ({target * elem // 1024} KB copies, "
                      f"about {gain:.1f}x the DMA bandwidth per copy)",
                edits=[edit(knob.literal, str(target))]))
        return self.finding(knob.literal, (
            f"{knob.name} = {knob.value} makes each tile copy about {nbytes} bytes ({call.name} at "
            f"{call.loc.file.rsplit('/', 1)[-1]}:{call.loc.line}); DMA reaches only "
            f"~{dma_efficiency(ctx.chip, nbytes):.0%} of peak bandwidth at that size, copies of 16 KB or more approach "
            "it."), fixes)


def _reportable(knob) -> bool:
    """A tile-length knob the search has not decided (counts such as TILE_NUM are another rule's business)."""
    return (knob.role == "tile" and not knob.tuned and bool(_LENGTH_NAME.search(knob.name))
            and not _COUNT_NAME.search(knob.name))


def _target_value(knob, elem: int, ctx: RuleContext) -> int:
    """The smallest value giving 16 KB copies, within the knob's annotated domain and a UB budget."""
    want = -(-GOOD_COPY_BYTES // elem)
    buffers = sum(b.num.value or 1 for b in ctx.model.init_buffers if b.queue) or 6
    cap = ctx.chip.ub_bytes // max(buffers, 1) // elem
    if knob.domain:
        fitting = [v for v in sorted(knob.domain) if v * elem * buffers <= ctx.chip.ub_bytes]
        bigger = [v for v in fitting if v >= want]
        return bigger[0] if bigger else (fitting[-1] if fitting else knob.value)
    value = knob.value
    while value < want and value * 2 <= cap:
        value *= 2
    return value
