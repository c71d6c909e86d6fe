"""`DataCopy` of a length that is not a multiple of 32 bytes: the hardware moves whole 32-byte blocks."""

from __future__ import annotations

from analysis.findings import Fix
from analysis.rules.base import ALIGN_BYTES, Rule, RuleContext, edit


class UnalignedDataCopy(Rule):
    id = "unaligned-datacopy"
    severity = "error"
    summary = "DataCopy length not a multiple of 32 bytes"

    def check(self, ctx: RuleContext):
        for call in ctx.model.calls("DataCopy"):
            if len(call.args) != 3 or _is_params(ctx, call.args[2].text) or not ctx.may_evaluate(call.args[2].text):
                continue
            found = ctx.node(call.loc)
            if found is None:
                continue
            sf, node = found
            args = [a for a in node.child_by_field_name("arguments").named_children if a.type != "comment"]
            ev = ctx.evaluator(sf)
            count = ev.value(args[2])
            elem = ctx.elem_size(call, call.args[0].text) or ctx.elem_size(call, call.args[1].text)
            if count is None or elem is None or (count * elem) % ALIGN_BYTES == 0:
                continue
            nbytes = count * elem
            yield self.finding(ctx.loc_at(sf, args[2].start_byte, args[2].end_byte), (
                f"DataCopy of {count} elements moves {nbytes} bytes, not a multiple of 32: DataCopy moves whole "
                f"32-byte blocks, so it reads or writes {ALIGN_BYTES - nbytes % ALIGN_BYTES} bytes past the data. Use "
                "DataCopyPad for lengths that are not 32-byte multiples."), self._fix(ctx, call, elem))

    @staticmethod
    def _fix(ctx: RuleContext, call, elem: int) -> list[Fix]:
        dst, src, count = (a.text for a in call.args)
        to_gm = ctx.is_global(dst)
        if to_gm is None:
            return []
        tname = {1: "uint8_t", 2: "half", 4: "float"}.get(elem, "uint8_t")
        params = f"DataCopyExtParams{{1, static_cast<uint32_t>(({count}) * {elem}), 0, 0, 0}}"
        pad = "" if to_gm else f", DataCopyPadExtParams<{tname}>{{false, 0, 0, 0}}"
        return [Fix(title="Use DataCopyPad for the unaligned length",
                    edits=[edit(call.loc, f"DataCopyPad({dst}, {src}, {params}{pad})")])]


def _is_params(ctx: RuleContext, text: str) -> bool:
    return "{" in text or "Params" in text or text in ctx.param_vars
