"""aligned-copy: data that is a whole number of 32-byte blocks moves between GM and UB with plain `DataCopy`
(count form); `DataCopyPad` is for rows whose byte length is not a multiple of 32.

Why: the pad path describes each row with its byte length and pads its tail, which costs the MTE some cycles per
row on top of the transfer (the chip file's `pad_row_cycles`: about half a cycle on the 910B, more on others); for
aligned data the count form moves the same bytes without it.

Rewind: a count-form `DataCopy(dst, src, n)` between a GlobalTensor and a LocalTensor becomes the equivalent
one-row `DataCopyPad` (its length `n * sizeof(T)` bytes, no padding). Detect: the aligned-datacopypad lint rule,
which proves the length a multiple of 32 bytes; its fix writes the count form. Where the length is known only at
run time, a profile whose copies at that line were whole blocks in every case makes it a half-weight guess with the
same edit, which verification on every case settles.

Example (slow -> fast):
`DataCopyPad(xLocal, xGm[off], DataCopyExtParams{1, static_cast<uint32_t>(TILE * sizeof(half)), 0, 0, 0},
DataCopyPadExtParams<half>{false, 0, 0, 0});` -> `DataCopy(xLocal, xGm[off], TILE);`
"""

from __future__ import annotations

import re

from tree_sitter import Node

from tilewise.analysis.findings import edit
from tilewise.analysis.motifs.base import Motif, MotifContext, Rewound, Site, element_type, enclosing, is_gm, splice
from tilewise.analysis.rules._params import element_count, param_items
from tilewise.analysis.rules.base import ALIGN_BYTES
from tilewise.analysis.source import SourceFile

_SIMPLE = re.compile(r"[\w.>\-]+")  # an operand that needs no parentheses before `* sizeof(T)`


def _is_params(sf: SourceFile, text: str) -> bool:
    """Whether a third DataCopy argument is a parameter struct (the strided form), not an element count."""
    text = text.strip()
    if text.startswith("{") or re.match(r"\w*Params\b", text):
        return True
    return re.search(rf"\b\w*Params\s*(?:&\s*)?{re.escape(text)}\b", sf.text) is not None


class AlignedCopy(Motif):
    def detect(self, ctx: MotifContext) -> list[Site]:
        sites = super().detect(ctx)
        if sites or not ctx.facts:
            return sites
        return self._from_profile(ctx)

    def _from_profile(self, ctx: MotifContext) -> list[Site]:
        """Where the rule cannot prove the length aligned (it is known only at run time), the run may show it: a
        one-row, unpadded DataCopyPad of `n * sizeof(T)` bytes whose every case's copies at that line were whole
        32-byte blocks is a guess (half weight) that the count form does the same; verification on every case
        settles the copies the profile did not show (a shorter tail)."""
        sites = []
        for call in ctx.calls("DataCopyPad"):
            seen = [f.copy_bytes.get((call.loc.file, call.loc.line)) for f in ctx.facts]
            if not call.in_loop or not seen or any(not b or b % ALIGN_BYTES for b in seen):
                continue
            found = ctx.rules.node(call.loc)
            if found is None:
                continue
            sf, node = found
            arg_list = node.child_by_field_name("arguments")
            args = [a for a in arg_list.named_children if a.type != "comment"] if arg_list is not None else []
            if len(args) not in (3, 4) or (len(args) == 4 and not _unpadded(sf, args[3])):
                continue
            params = param_items(sf, node, args[2])
            if params is None or len(params[1]) < 2:
                continue
            ev = ctx.rules.evaluator(sf)
            items = params[1]
            elems = element_count(sf, items[1])
            if ev.value(items[0]) != 1 or elems is None or any(ev.value(i) != 0 for i in items[2:4]):
                continue
            dst, src = sf.node_text(args[0]), sf.node_text(args[1])
            why = (
                f"DataCopyPad moves one row of {sf.node_text(items[1])} bytes; every copy the run made here was a "
                f"whole number of 32-byte blocks (at most {max(b or 0 for b in seen)} bytes), so the count form "
                "moves the same without the pad path's per-row cost. Not proved for lengths the cases did not run."
            )
            line = call.loc.line
            fixed = edit(call.loc, f"DataCopy({dst}, {src}, {elems})")
            sites.append(Site(self.id, sf.path, line, line, why, [fixed], weight=0.5))
        return sites

    def rewind(self, ctx: MotifContext) -> list[Rewound]:
        out = []
        for call in sorted(ctx.calls("DataCopy"), key=lambda c: not c.in_loop):  # loop work first
            if len(call.args) != 3 or call.template_args:
                continue
            found = ctx.statement(call)
            if found is None:
                continue
            sf, stmt = found
            dst, src, count = (a.text.strip() for a in call.args)
            if _is_params(sf, count):
                continue
            inward = is_gm(sf, src) and not is_gm(sf, dst)
            outward = is_gm(sf, dst) and not is_gm(sf, src)
            if not (inward or outward):
                continue
            fn = enclosing(stmt, "function_definition")
            local = dst if inward else src
            elem = element_type(sf, fn if fn is not None else stmt, local)
            if elem is None:
                continue
            n = count if _SIMPLE.fullmatch(count) else f"({count})"
            ext = f"DataCopyExtParams{{1, static_cast<uint32_t>({n} * sizeof({elem})), 0, 0, 0}}"
            pad = f", DataCopyPadExtParams<{elem}>{{false, 0, 0, 0}}" if inward else ""
            text = splice(sf, stmt.start_byte, stmt.end_byte, f"DataCopyPad({dst}, {src}, {ext}{pad});")
            way = "GM -> UB" if inward else "UB -> GM"
            out.append(
                Rewound(
                    self.id,
                    f"DataCopy({dst}, {src}, {count}) -> DataCopyPad ({way})",
                    {sf.path: text},
                    sf.path,
                    call.loc.line,
                )
            )
        return out


def _unpadded(sf: SourceFile, pad: Node) -> bool:
    """A DataCopyPadExtParams / DataCopyPadParams argument that asks for no padding (`{false, ...}`)."""
    return re.search(r"\{\s*false\b", sf.node_text(pad)) is not None


MOTIF = AlignedCopy(
    id="aligned-copy",
    title="Copy 32-byte-aligned data with DataCopy, not DataCopyPad",
    removes="a one-row DataCopyPad whose length is a whole number of 32-byte blocks",
    kinds=("data-copy",),
    rule="aligned-datacopypad",
)
