"""`DataCopyPad` on data whose length is provably a multiple of 32 bytes: plain `DataCopy` does the same.

A note, not a warning: the pad path costs about half a cycle per row in the cost model (issue 15's data_copy case
leaves no room for more), so the change is a simplification rather than a speedup, and public kernels often keep
DataCopyPad for the full tiles so that the tail copy reads the same (issue 13's reading of the corpus found none
worth acting on).
"""

from __future__ import annotations

from tilewise.analysis.chip import cost_model
from tilewise.analysis.findings import Fix, edit
from tilewise.analysis.rules._params import element_count, param_items
from tilewise.analysis.rules._scalar_bounds import never_called
from tilewise.analysis.rules.base import ALIGN_BYTES, Rule, RuleContext


class AlignedDataCopyPad(Rule):
    id = "aligned-datacopypad"
    severity = "info"
    summary = "DataCopyPad where the length is provably 32-byte aligned"

    def check(self, ctx: RuleContext):
        for call in ctx.model.calls("DataCopyPad"):
            found = ctx.node(call.loc)
            if found is None or len(call.args) < 3:
                continue
            sf, node = found
            if never_called(ctx, sf, node):
                continue  # in a function nothing calls in the device build
            arg_list = node.child_by_field_name("arguments")
            if arg_list is None:
                continue  # a half-typed call
            args = [a for a in arg_list.named_children if a.type != "comment"]
            params = param_items(sf, node, args[2])
            if params is None or len(params[1]) < 2:
                continue
            _, items = params
            ev = ctx.evaluator(sf)
            count, length = items[0], items[1]
            if ev.divisor(length) % ALIGN_BYTES != 0 or ev.value(length) == 0:
                continue
            strides = [ev.value(i) for i in items[2:4]]
            fixes = []
            elems = element_count(sf, length)
            if ev.value(count) == 1 and elems is not None and all(s == 0 for s in strides):
                dst, src = call.args[0].text, call.args[1].text
                fixes.append(
                    Fix(
                        title="Use DataCopy: the length is a whole number of 32-byte blocks (saves about "
                        f"{cost_model(ctx.chip).pad_row_cycles:g} cycles per row, estimate)",
                        edits=[edit(call.loc, f"DataCopy({dst}, {src}, {elems})")],
                    )
                )
            yield self.finding(
                call.loc,
                (
                    f"DataCopyPad moves '{sf.node_text(length)}' bytes, a provable multiple of 32, so plain DataCopy "
                    f"would do; the cost model puts the saving at about {cost_model(ctx.chip).pad_row_cycles:g} "
                    "cycles per row: a simplification more than a speedup."
                ),
                fixes,
            )
