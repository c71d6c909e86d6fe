"""whole-reduce: one WholeReduceSum (or WholeReduceMax/Min) with a repeat per row reduces a whole tile of short rows,
instead of one reduction call per row.

What: `WholeReduceSum(dst, src, mask, rows, dstRepStride, srcBlkStride, srcRepStride)` sums each of `rows` rows of at
most one repeat (256 bytes: 64 floats, 128 halves) into consecutive results in one instruction, the source advancing
srcRepStride 32-byte blocks per row. Written as a loop, each row is its own instruction.

Why: each vector instruction costs an issue slot on the scalar unit and a head; the loop also keeps the scalar
unit busy computing row addresses. One instruction with a repeat count hands the whole tile to the vector unit.
(On the emulator's timing model a one-repeat instruction costs its repeat's cycles on the vector pipe and its
issue on the scalar unit, so the loop is only measurably slower where the scalar unit binds; mining says so.)

Rewind: `WholeReduceSum(d, s, mask, R, dstRep, srcBlk, srcRep)` -> a loop over the R rows calling WholeReduceSum with
repeat 1 on the row slices `d[r * dstRep]`, `s[r * srcRep * (32 / sizeof(T))]`. Per-row ReduceSum is not used: its
count form needs a work tensor sized by its own formula, which the fast kernel has no reason to hold, so only the
per-row WholeReduceSum is safe without new buffers. WholeReduceMax/Min are rewound likewise when their order is
ReduceOrder::ORDER_ONLY_VALUE (one element per result).

Detect: a for-loop `for (i = 0; i < N; i++)` whose body is one per-row `WholeReduceSum(D[i * a], S[i * b], mask, 1,
...)` or `ReduceSum(D[i], S[i * b], work, len)` -> one `WholeReduceSum(D, S, mask, N, a, 1, b / blockElems)` when the
row starts on whole 32-byte blocks (b literal, or written with `(32 / sizeof(T))`) and, for ReduceSum, when `len` is
a literal that fits one repeat; otherwise the site has no edit and says why. N must stay within the 255 repeats
an instruction takes, which the tiling that bounds the loop has to guarantee.

Example (slow -> fast):
    for (int32_t r = 0; r < rows; r++) { WholeReduceSum<float>(yLocal[r], xLocal[r * 64], 64, 1, 1, 1, 8); }
    -> WholeReduceSum<float>(yLocal, xLocal, 64, rows, 1, 1, 8);
"""

from __future__ import annotations

import re

from tree_sitter import Node

from tilewise.analysis.findings import edit_range
from tilewise.analysis.motifs._stmts import (
    SIZES,
    CallStmt,
    base_name,
    call_stmts,
    distinct,
    loop_header,
    loop_of,
    split_index,
    squash,
    strip_parens,
    top_split,
)
from tilewise.analysis.motifs.base import Motif, MotifContext, Rewound, Site, element_type, indent_at, splice
from tilewise.analysis.treeutil import enclosing_function

_WHOLE = ("WholeReduceSum", "WholeReduceMax", "WholeReduceMin")
_MAX_REPEAT = 255


def _elem(cs: CallStmt, tensor: str) -> str | None:
    if cs.call.template_args:
        return cs.call.template_args.split(",")[0].strip()
    fn = enclosing_function(cs.stmt)
    return element_type(cs.sf, fn, tensor) if fn is not None else None


def _p(expr: str) -> str:
    """A factor as written in a product: bare when it is one word or number, else parenthesised."""
    return expr if re.fullmatch(r"\w+", expr.strip()) else f"({expr})"


def _int(expr: str) -> str:
    return (
        expr
        if expr.startswith("static_cast<int32_t>(") or re.fullmatch(r"\d+", expr)
        else f"static_cast<int32_t>({expr})"
    )


def _at(expr: str, extra: str) -> str:
    name, idx = split_index(expr)
    return f"{name}[{extra}]" if idx is None else f"{name}[{idx} + {extra}]"


class WholeReduce(Motif):
    def rewind(self, ctx: MotifContext) -> list[Rewound]:
        out = []
        for cs in call_stmts(ctx, *_WHOLE):
            args = cs.args
            if cs.name == "WholeReduceSum" and len(args) != 7:
                continue
            if cs.name != "WholeReduceSum" and (len(args) != 8 or not args[7].endswith("ORDER_ONLY_VALUE")):
                continue
            d, s, mask, rep, drep, sblk, srep = args[:7]
            elem = _elem(cs, s)
            if elem is None or squash(rep) == "1":
                continue
            sf, stmt = cs.sf, cs.stmt
            indent = indent_at(sf, stmt.start_byte)
            tmpl = f"<{cs.call.template_args}>" if cs.call.template_args else ""
            rest = f", {args[7]}" if len(args) == 8 else ""
            dst_row = _at(d, f"twRow * {_p(drep)}")
            src_row = _at(s, f"twRow * {_p(srep)} * (32 / sizeof({elem}))")
            row = f"{cs.name}{tmpl}({dst_row}, {src_row}, {mask}, 1, {drep}, {sblk}, {srep}{rest});"
            new = f"for (int32_t twRow = 0; twRow < {_int(rep)}; twRow++) {{\n{indent}    {row}\n{indent}}}"
            if stmt.parent is None or stmt.parent.type != "compound_statement":
                new = "{\n" + indent + "    " + new.replace("\n", "\n    ") + f"\n{indent}}}"
            text = splice(sf, stmt.start_byte, stmt.end_byte, new)
            what = f"{cs.name} over {rep} rows -> one {cs.name} (repeat 1) per row"
            out.append(Rewound(self.id, what, {sf.path: text}, sf.path, cs.call.loc.line))
        return distinct(out)

    def detect(self, ctx: MotifContext) -> list[Site]:
        sites = []
        for cs in call_stmts(ctx, "WholeReduceSum", "ReduceSum"):
            loop = loop_of(cs.stmt)
            header = loop_header(cs.sf, loop) if loop is not None else None
            if loop is None or header is None:
                continue
            site = self._site(cs, loop, *header)
            if site is not None:
                sites.append(site)
        return sites

    def _site(self, cs: CallStmt, loop: Node, var: str, count: str) -> Site | None:
        sf, args = cs.sf, cs.args
        if cs.name == "WholeReduceSum":
            if len(args) != 7 or squash(args[3]) != "1":
                return None
            d, s, mask, _, _, sblk, _ = args
        else:
            if len(args) != 4:
                return None
            d, s, _, mask = args
            sblk = "1"
        dst, src = self._row(d, var), self._row(s, var)
        if dst is None or src is None:
            return None
        elem = _elem(cs, s)
        size = SIZES.get(elem or "")
        line, end_line = sf.line_col(loop.start_byte)[0], sf.line_col(loop.end_byte)[0]
        why = (
            f"{count} {cs.name} calls, one per row of {base_name(s)}: one WholeReduceSum with {count} repeats "
            "does them all"
        )
        srep = self._blocks(src, elem, size)
        problem = None
        if size is None:
            problem = "the element type is not known"
        elif srep is None:
            problem = f"the row pitch {src} is not known to be whole 32-byte blocks"
        elif cs.name == "ReduceSum" and not (re.fullmatch(r"\d+", mask) and int(mask) * size <= 256):
            problem = f"the row length {mask} is not known to fit one repeat (256 bytes)"
        elif re.fullmatch(r"\d+", count) and int(count) > _MAX_REPEAT:
            problem = f"{count} rows exceed the {_MAX_REPEAT} repeats one instruction takes"
        if problem is not None:
            return Site(self.id, sf.path, line, end_line, f"{why}, but {problem}", None)
        tmpl = f"<{elem}>"
        merged = (
            f"WholeReduceSum{tmpl}({split_index(d)[0]}, {split_index(s)[0]}, {mask}, "
            f"{_int(count)}, {dst}, {sblk}, {srep});"
        )
        return Site(self.id, sf.path, line, end_line, why, [edit_range(sf, loop.start_byte, loop.end_byte, merged)])

    @staticmethod
    def _row(expr: str, var: str) -> str | None:
        """The per-row step of `X[i * a]` (a), `X[i]` (1); None when the index is anything else (an offset too)."""
        _, idx = split_index(expr)
        if idx is None:
            return None
        idx = strip_parens(idx)
        if squash(idx) == var:
            return "1"
        f = [strip_parens(x) for x in top_split(idx, "*")]
        if len(f) >= 2 and f[0] == var:
            return " * ".join(f[1:])
        if len(f) == 2 and f[1] == var:
            return f[0]
        return None

    @staticmethod
    def _blocks(step: str, elem: str | None, size: int | None) -> str | None:
        """A row step in elements as 32-byte blocks: `(R) * (32 / sizeof(T))` -> R, a literal -> its block count."""
        if size is None:
            return None
        f = [strip_parens(x) for x in top_split(step, "*")]
        per = {f"32/sizeof({elem})", str(32 // size)}
        if len(f) >= 2 and squash(f[-1]) in per:
            return " * ".join(f[:-1])
        if re.fullmatch(r"\d+", step) and int(step) * size % 32 == 0:
            return str(int(step) * size // 32)
        return None


MOTIF = WholeReduce(
    id="whole-reduce",
    title="Reduce a tile of rows with one WholeReduceSum",
    removes="a loop calling a reduction once per row where one WholeReduceSum with a repeat per row would do",
    kinds=("reduction",),
)
