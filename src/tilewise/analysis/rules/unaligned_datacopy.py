"""`DataCopy` of a length that is not a multiple of 32 bytes: the hardware moves whole 32-byte blocks.

What the extra bytes hit decides the severity. Into GM: the next elements of the output (another core's, or past the
tensor at its end) are overwritten -> error. Into the start of a local tensor: the bytes land in the buffer's own
32-byte rounding -> nothing to report. Into a local tensor at an offset: the elements after it are overwritten,
wrong only if they hold live data -> a note saying so. From GM into a whole local tensor: the read runs past the
data, past the source's end only at its tail -> a note. A copy in a function nothing calls (a caller commented out,
or in an #if branch the device build skips) never happens: nothing to report.
"""

from __future__ import annotations

import re

from tilewise.analysis.findings import Fix, Severity, edit
from tilewise.analysis.rules._scalar_bounds import never_called
from tilewise.analysis.rules.base import ALIGN_BYTES, Rule, RuleContext


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
            arg_list = node.child_by_field_name("arguments")
            if arg_list is None:
                continue  # a half-typed call
            args = [a for a in arg_list.named_children if a.type != "comment"]
            ev = ctx.evaluator(sf)
            count = ev.value(args[2])
            elem = ctx.elem_size(call, call.args[0].text) or ctx.elem_size(call, call.args[1].text)
            if count is None or elem is None or (count * elem) % ALIGN_BYTES == 0:
                continue
            if never_called(ctx, sf, node):
                continue  # its function is called from nowhere in the device build: the copy never happens
            nbytes = count * elem
            extra = ALIGN_BYTES - nbytes % ALIGN_BYTES
            dst = call.args[0].text
            to_gm = _is_global(ctx, dst)
            head = (
                f"DataCopy of {count} elements moves {nbytes} bytes, not a multiple of 32: DataCopy moves whole "
                "32-byte blocks"
            )
            if to_gm:
                message = (
                    f"{head}, so it writes {extra} bytes past the data into GM (the next elements of the "
                    "output). Use DataCopyPad for lengths that are not 32-byte multiples."
                )
                severity: Severity | None = None
            elif to_gm is False and "[" not in dst and _is_global(ctx, call.args[1].text) is False:
                continue  # UB to the start of a UB tensor: the extra bytes stay in the buffer's 32-byte rounding
            elif to_gm is False and "[" in dst:
                message, severity = (
                    (
                        f"{head}, so it overwrites the {extra} bytes after {dst} in the UB: wrong if "
                        "they hold live data (unproven). DataCopyPad moves exactly the length."
                    ),
                    "info",
                )
            else:
                message, severity = (
                    (
                        f"{head}, so it reads {extra} bytes past the data (past the source's end at its "
                        "last tile, unproven here). DataCopyPad moves exactly the length."
                    ),
                    "info",
                )
            yield self.finding(
                ctx.loc_at(sf, args[2].start_byte, args[2].end_byte),
                message,
                self._fix(ctx, call, elem),
                severity=severity,
            )

    @staticmethod
    def _fix(ctx: RuleContext, call, elem: int) -> list[Fix]:
        dst, src, count = (a.text for a in call.args)
        to_gm = _is_global(ctx, dst)
        if to_gm is None:
            return []
        tname = {1: "uint8_t", 2: "half", 4: "float"}.get(elem, "uint8_t")
        params = f"DataCopyExtParams{{1, static_cast<uint32_t>(({count}) * {elem}), 0, 0, 0}}"
        pad = "" if to_gm else f", DataCopyPadExtParams<{tname}>{{false, 0, 0, 0}}"
        return [
            Fix(
                title="Use DataCopyPad for the unaligned length",
                edits=[edit(call.loc, f"DataCopyPad({dst}, {src}, {params}{pad})")],
            )
        ]


_LIST_DECL_RE = re.compile(r"\b(LocalTensor|GlobalTensor)\s*<[^<>;]*>\s*(\w+(?:\s*,\s*\w+)+)\s*;")


def _is_global(ctx: RuleContext, tensor_text: str) -> bool | None:
    """`ctx.is_global`, also for the later names of a list declaration (`GlobalTensor<float> xGm, yGm;`)."""
    found = ctx.is_global(tensor_text)
    if found is not None:
        return found
    name = tensor_text.split("[")[0].strip().replace("this->", "")
    for path in ctx.model.kernel_files:
        sf = ctx.sources.get(path)
        for m in _LIST_DECL_RE.finditer(sf.text if sf is not None else ""):
            if name in [n.strip() for n in m.group(2).split(",")]:
                return m.group(1) == "GlobalTensor"
    return None


def _is_params(ctx: RuleContext, text: str) -> bool:
    return "{" in text or "Params" in text or text in ctx.param_vars
