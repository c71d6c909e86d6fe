"""aligned-copy: data that is a whole number of 32-byte blocks moves between GM and UB with plain `DataCopy`
(count form); `DataCopyPad` is for rows whose byte length is not a multiple of 32.

Why: the pad path describes each row with its byte length and pads its tail, which costs the MTE some cycles per
row on top of the transfer (the chip file's `pad_row_cycles`: about half a cycle on the 910B, more on others); for
aligned data the count form moves the same bytes without it.

Rewind: a count-form `DataCopy(dst, src, n)` between a GlobalTensor and a LocalTensor becomes the equivalent
one-row `DataCopyPad` (its length `n * sizeof(T)` bytes, no padding). Detect: the aligned-datacopypad lint rule,
which proves the length a multiple of 32 bytes; its fix writes the count form.

Example (slow -> fast):
`DataCopyPad(xLocal, xGm[off], DataCopyExtParams{1, static_cast<uint32_t>(TILE * sizeof(half)), 0, 0, 0},
DataCopyPadExtParams<half>{false, 0, 0, 0});` -> `DataCopy(xLocal, xGm[off], TILE);`
"""

from __future__ import annotations

import re

from tilewise.analysis.motifs.base import Motif, MotifContext, Rewound, element_type, enclosing, is_gm, splice
from tilewise.analysis.source import SourceFile

_SIMPLE = re.compile(r"[\w.>\-]+")  # an operand that needs no parentheses before `* sizeof(T)`


def _is_params(sf: SourceFile, text: str) -> bool:
    """Whether a third DataCopy argument is a parameter struct (the strided form), not an element count."""
    text = text.strip()
    if text.startswith("{") or re.match(r"\w*Params\b", text):
        return True
    return re.search(rf"\b\w*Params\s*(?:&\s*)?{re.escape(text)}\b", sf.text) is not None


class AlignedCopy(Motif):
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


MOTIF = AlignedCopy(
    id="aligned-copy",
    title="Copy 32-byte-aligned data with DataCopy, not DataCopyPad",
    removes="a one-row DataCopyPad whose length is a whole number of 32-byte blocks",
    kinds=("data-copy",),
    rule="aligned-datacopypad",
)
