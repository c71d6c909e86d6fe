"""merged-copy: one DataCopy moves a whole tile of rows (or one DataCopyParams copy with blockCount rows), instead of
one copy per row or per chunk.

What: every DataCopy occupies its MTE pipe for at least its issue cost (about 20 cycles on 910B), however few bytes
it moves, and the scalar unit issues each one. A row of 64 floats (256 bytes) moves in about 4 cycles of bandwidth,
so copying a tile row by row pays the issue cost per row where one copy pays it once.

Why: the copy pipe, not the bytes, becomes the bound; merging the rows into one copy (contiguous rows) or one
strided copy (DataCopyParams: blockCount rows of blockLen blocks, srcStride/dstStride blocks between rows) gives
the bandwidth back.

Rewind: a count-form GM <-> UB `DataCopy(dst, src, n)` standing as a statement becomes a loop of smaller copies, each
a whole number of 32-byte blocks: for `n = rows * len`, one copy of `len` per row; otherwise chunks of 256 bytes.
The loop runs under a runtime check that the row (or n) is whole 32-byte blocks, falling back to the original copy.
A `DataCopy(dst, src, p)` with a `DataCopyParams p` becomes one count-form copy of p.blockLen blocks per row of
p.blockCount, each row at its own strides (no guard: every row is whole blocks by construction).

Detect: a for-loop `for (i = 0; i < N; i++)` whose body is one count-form `DataCopy(D[i * L], S[b + i * L], L)`
(both sides advancing by the copied length: contiguous) -> one `DataCopy(D, S[b], N * L)`; where the loop is the
then-branch of the rewind's guard, the whole `if` becomes its else-branch's single copy. The strided case
(`D[i * P]`, `S[b + i * Q]`, copying L) -> one DataCopyParams copy with blockCount N when L, P and Q are integer
literals (whole 32-byte blocks); otherwise the site has no edit and says why. A loop over `p.blockCount` rows that
copies each row at `p`'s strides (the params rewind's shape) -> the one `DataCopy(dst, src, p)`. A tile copied in
chunks, `for (v = 0; v < N; v += S)` copying `X[b + v]` to `Y[c + v]` min(N - v, S) elements at a time (a ternary
or a min, directly or through locals the body declares), covers [0, N) on both sides -> one `DataCopy(Y[c], X[b],
N)`.

Example (slow -> fast):
    for (uint32_t r = 0; r < rows; r++) { DataCopy(xLocal[r * 64], xGm[off + r * 64], 64); }
    -> DataCopy(xLocal, xGm[off], rows * 64);
"""

from __future__ import annotations

import re

from tree_sitter import Node

from tilewise.analysis.findings import edit_range
from tilewise.analysis.motifs._stmts import (
    SIZES,
    CallStmt,
    call_stmts,
    distinct,
    loop_header,
    loop_of,
    parse_call,
    plain,
    split_index,
    squash,
    strip_parens,
    top_split,
)
from tilewise.analysis.motifs.base import (
    Motif,
    MotifContext,
    Rewound,
    Site,
    element_type,
    indent_at,
    is_gm,
    splice,
)
from tilewise.analysis.source import SourceFile
from tilewise.analysis.treeutil import enclosing_function

CHUNK_BYTES = 256


def _params_type(cs: CallStmt) -> str | None:
    """The declared type of a copy's third argument when it is a params variable (`DataCopyParams p{...}`)."""
    n = cs.args[2] if len(cs.args) == 3 else ""
    if re.fullmatch(r"\w+", n) is None:
        return None
    fn = enclosing_function(cs.stmt)
    start = fn.start_byte if fn is not None else 0
    scope = cs.sf.data[start : cs.stmt.start_byte].decode("utf-8", "replace")  # the declaration nearest before
    found = re.findall(rf"\b(\w*Params)\s*(?:<[^>]*>)?\s*&?\s*{re.escape(n)}\b", scope)
    return found[-1] if found else None


def _gm_ub(cs: CallStmt) -> str | None:
    """The UB operand of a copy between GM and UB (either direction), or None."""
    if len(cs.args) != 3:
        return None
    d, s, _ = cs.args
    gd, gs = is_gm(cs.sf, d), is_gm(cs.sf, s)
    return None if gd == gs else (s if gd else d)


def _ub_side(cs: CallStmt) -> str | None:
    """The UB operand of a GM <-> UB count-form copy, or None for any other copy (a DataCopyParams form too)."""
    ub = _gm_ub(cs)
    n = cs.args[2] if ub is not None else ""
    if ub is None or "{" in n or n.startswith("DataCopy") or _params_type(cs) is not None:
        return None
    return ub


def _at(expr: str, extra: str) -> str:
    name, idx = split_index(expr)
    return f"{name}[{extra}]" if idx is None else f"{name}[{idx} + {extra}]"


class MergedCopy(Motif):
    def rewind(self, ctx: MotifContext) -> list[Rewound]:
        per_row: list[Rewound] = []
        out: list[Rewound] = []
        for cs in call_stmts(ctx, "DataCopy"):
            ub = _ub_side(cs)
            fn = enclosing_function(cs.stmt)
            if fn is None or cs.call.template_args:
                continue
            if ub is None:
                if _params_type(cs) == "DataCopyParams" and (gm_ub := _gm_ub(cs)) is not None:
                    rw = self._rewind_params(cs, element_type(cs.sf, fn, gm_ub))
                    per_row.extend([rw] if rw is not None else [])
                continue
            elem = element_type(cs.sf, fn, ub)
            if elem is None:
                continue
            d, s, n = cs.args
            sf, stmt = cs.sf, cs.stmt
            indent = indent_at(sf, stmt.start_byte)
            i1, i2 = indent + "    ", indent + "        "
            factors = top_split(strip_parens(n), "*")
            if len(factors) == 2:
                rows, row = factors
                guard = f"({row}) * sizeof({elem}) % 32 == 0"
                step = f"twRow * ({row})"
                loop = f"for (uint32_t twRow = 0; twRow < static_cast<uint32_t>({rows}); twRow++) {{"
                each = f"DataCopy({_at(d, step)}, {_at(s, step)}, {row});"
                what = f"DataCopy({d}, {s}, {n}) -> one DataCopy per row of {row}"
            else:
                chunk = f"{CHUNK_BYTES} / sizeof({elem})"
                guard = f"({n}) * sizeof({elem}) % 32 == 0"
                loop = f"for (uint32_t twOff = 0; twOff < static_cast<uint32_t>({n}); twOff += {chunk}) {{"
                left = f"static_cast<uint32_t>({n}) - twOff"
                each = f"DataCopy({_at(d, 'twOff')}, {_at(s, 'twOff')}, {left} < {chunk} ? {left} : {chunk});"
                what = f"DataCopy({d}, {s}, {n}) -> {CHUNK_BYTES}-byte chunks"
            new = (
                f"if ({guard}) {{\n{i1}{loop}\n{i2}{each}\n{i1}}}\n"
                f"{indent}}} else {{\n{i1}{sf.node_text(stmt).strip()}\n{indent}}}"
            )
            if stmt.parent is None or stmt.parent.type != "compound_statement":
                new = "{\n" + i1 + new.replace("\n", "\n    ") + f"\n{indent}}}"
            text = splice(sf, stmt.start_byte, stmt.end_byte, new)
            (per_row if len(factors) == 2 else out).append(
                Rewound(self.id, what, {sf.path: text}, sf.path, cs.call.loc.line)
            )
        # the per-row forms first: a tile copied row by row is the pattern this motif removes
        return distinct(per_row + out)

    def _rewind_params(self, cs: CallStmt, elem: str | None) -> Rewound | None:
        """`DataCopy(d, s, p)` with `DataCopyParams p` -> one count-form copy per row of p.blockCount."""
        if elem is None:
            return None
        d, s, p = cs.args
        sf, stmt = cs.sf, cs.stmt
        indent = indent_at(sf, stmt.start_byte)
        blk = f"(32 / sizeof({elem}))"
        each = (
            f"DataCopy({_at(d, f'twRow * ({p}.blockLen + {p}.dstStride) * {blk}')}, "
            f"{_at(s, f'twRow * ({p}.blockLen + {p}.srcStride) * {blk}')}, "
            f"static_cast<uint32_t>({p}.blockLen * {blk}));"
        )
        new = f"for (uint16_t twRow = 0; twRow < {p}.blockCount; twRow++) {{\n{indent}    {each}\n{indent}}}"
        if stmt.parent is None or stmt.parent.type != "compound_statement":
            new = "{\n" + indent + "    " + new.replace("\n", "\n    ") + f"\n{indent}}}"
        text = splice(sf, stmt.start_byte, stmt.end_byte, new)
        what = f"DataCopy({d}, {s}, {p}) -> one DataCopy per row of {p}.blockCount"
        return Rewound(self.id, what, {sf.path: text}, sf.path, cs.call.loc.line)

    def detect(self, ctx: MotifContext) -> list[Site]:
        sites = []
        seen: set[tuple[str, int]] = set()
        for cs in call_stmts(ctx, "DataCopy"):
            if _ub_side(cs) is None:
                continue
            loop = loop_of(cs.stmt)
            if loop is None:
                chunked = self._chunked_site(cs, seen)
                if chunked is not None:
                    sites.append(chunked)
                continue
            if (cs.sf.path, loop.start_byte) in seen:
                continue
            header = loop_header(cs.sf, loop)
            if header is None:
                continue
            seen.add((cs.sf.path, loop.start_byte))
            site = self._site(ctx, cs, loop, *header)
            if site is not None:
                sites.append(site)
        return sites

    def _chunked_site(self, cs: CallStmt, seen: set[tuple[str, int]]) -> Site | None:
        """A tile copied in chunks: `for (v = 0; v < N; v += STEP)` whose body is one count-form copy of
        `X[b + v]` to `Y[c + v]` moving min(N - v, STEP) elements (written as a ternary or a min, directly or
        through locals declared in the body), so the chunks cover [0, N) contiguously on both sides: one copy
        of N does it."""
        block = cs.stmt.parent
        if block is None or block.type != "compound_statement":
            return None
        loop = block.parent
        if loop is None or loop.type != "for_statement" or (cs.sf.path, loop.start_byte) in seen:
            return None
        sf = cs.sf
        body = loop.child_by_field_name("body")
        head = sf.data[loop.start_byte : body.start_byte if body else loop.end_byte].decode("utf-8", "replace")
        m = _CHUNK_HEAD.match(head)
        if m is None or not m.group(1) == m.group(2) == m.group(4):
            return None
        var, bound, step = m.group(1), m.group(3), m.group(5)
        locals_: dict[str, str] = {}
        for other in block.named_children:
            if other.type == "comment" or other == cs.stmt:
                continue
            local = _CHUNK_LOCAL.fullmatch(sf.node_text(other).strip())
            if local is None:
                return None  # the body does more than copy the chunk
            locals_[local.group(1)] = local.group(2)
        to, frm, n = cs.args
        dst, src = _chunk_base(to, var), _chunk_base(frm, var)
        if dst is None or src is None or not _is_remaining_min(n, var, bound, step, locals_):
            return None
        seen.add((sf.path, loop.start_byte))
        merged = f"DataCopy({dst}, {src}, {bound});"
        why = (
            f"the tile's {bound} elements are copied in chunks of {step}, each starting where the last ended on "
            "both sides: one DataCopy of the whole tile moves the same elements and pays the issue cost once"
        )
        line, end_line = sf.line_col(loop.start_byte)[0], sf.line_col(loop.end_byte)[0]
        return Site(self.id, sf.path, line, end_line, why, [edit_range(sf, loop.start_byte, loop.end_byte, merged)])

    @staticmethod
    def _stride(expr: str, var: str) -> tuple[str | None, str] | None:
        """`X[b + i * L]` -> (b, L); `X[i * L]` -> (None, L); `X[L * i]` too. None for any other index."""
        _, idx = split_index(expr)
        if idx is None:
            return None
        terms = top_split(idx, "+")
        for k, term in enumerate(terms):
            f = [strip_parens(x) for x in top_split(strip_parens(term), "*")]
            if len(f) == 2 and var in f:
                rest = [t for j, t in enumerate(terms) if j != k]
                if any(re.search(rf"\b{re.escape(var)}\b", r) for r in rest):
                    return None
                return (" + ".join(rest) or None), (f[1] if f[0] == var else f[0])
        return None

    def _site(self, ctx: MotifContext, cs: CallStmt, loop: Node, var: str, count: str) -> Site | None:
        d, s, n = cs.args
        sf = cs.sf
        line, end_line = sf.line_col(loop.start_byte)[0], sf.line_col(loop.end_byte)[0]
        m = re.fullmatch(r"(\w+)\.blockCount", squash(count))
        if m is not None:  # the rows of one DataCopyParams copy, one copy each
            p = m.group(1)
            row = rf"{var}\*\({p}\.blockLen\+{p}\.(dst|src)Stride\)\*\(32/sizeof\(\w+\)\)"
            di, si = split_index(d), split_index(s)
            dm = re.fullmatch(rf"(?:(.+)\+)?{row}", squash(di[1] or ""))
            sm = re.fullmatch(rf"(?:(.+)\+)?{row}", squash(si[1] or ""))
            if dm and sm and dm.group(2) == "dst" and sm.group(2) == "src" and f"{p}.blockLen" in n:
                dn = di[0] if dm.group(1) is None else f"{di[0]}[{dm.group(1)}]"
                sn = si[0] if sm.group(1) is None else f"{si[0]}[{sm.group(1)}]"
                why = f"one copy per row of {p}: the DataCopyParams copy itself moves all {p}.blockCount rows at once"
                merged = f"DataCopy({dn}, {sn}, {p});"
                return Site(
                    self.id, sf.path, line, end_line, why, [edit_range(sf, loop.start_byte, loop.end_byte, merged)]
                )
        dst, src = self._stride(d, var), self._stride(s, var)
        if dst is None or src is None:
            return None
        (db, dl), (sb, sl) = dst, src
        dname, sname = split_index(d)[0], split_index(s)[0]
        dn = dname if db is None else f"{dname}[{db}]"
        sn = sname if sb is None else f"{sname}[{sb}]"
        if squash(strip_parens(dl)) == squash(strip_parens(n)) == squash(strip_parens(sl)):  # `(L)` is L
            merged = f"DataCopy({dn}, {sn}, {count} * {n});"
            guard = self._guard(sf, loop, merged)
            target = loop if guard is None else guard[0]
            merged = merged if guard is None else guard[1]
            why = (
                f"{count} copies of {n} elements, one per row, at offsets advancing by {n} on both sides: the rows "
                "are contiguous, so one DataCopy moves them all and pays the copy's issue cost once"
            )
            edit = edit_range(sf, target.start_byte, target.end_byte, merged)
            return Site(self.id, sf.path, line, end_line, why, [edit])
        why = f"{count} copies of {n} elements with row pitches {sl} (source) and {dl} (destination)"
        fn = enclosing_function(cs.stmt)
        elem = element_type(sf, fn, _ub_side(cs) or d) if fn is not None else None
        size = SIZES.get(elem or "")
        nums = [int(x) if re.fullmatch(r"\d+", x) else None for x in (n, sl, dl)]
        if size is None or None in nums or any((x or 0) * size % 32 for x in nums):
            why += (
                ": one DataCopyParams copy (blockCount rows) would do, but its blockLen and strides in 32-byte "
                "blocks are not known from the source"
            )
            return Site(self.id, sf.path, line, end_line, why, None)
        length, spitch, dpitch = (x * size // 32 for x in nums if x is not None)
        params = f"DataCopyParams{{static_cast<uint16_t>({count}), {length}, {spitch - length}, {dpitch - length}}}"
        merged = f"DataCopy({dn}, {sn}, {params});"
        why += ": one DataCopyParams copy of blockCount rows moves them all and pays the issue cost once"
        return Site(self.id, sf.path, line, end_line, why, [edit_range(sf, loop.start_byte, loop.end_byte, merged)])

    @staticmethod
    def _guard(sf: SourceFile, loop: Node, merged: str) -> tuple[Node, str] | None:
        """The rewind's guard around the loop (`if (...) { loop } else { merged }`) when its else is the merged copy:
        the if statement and the else branch's copy as written."""
        block = loop.parent
        if block is None or block.type != "compound_statement" or len(block.named_children) != 1:
            return None
        cond = block.parent
        if cond is None or cond.type != "if_statement" or cond.child_by_field_name("consequence") != block:
            return None
        alt = cond.child_by_field_name("alternative")
        if alt is None:
            return None
        text = sf.node_text(alt).strip()
        text = re.sub(r"^else\s*", "", text).strip()
        if text.startswith("{") and text.endswith("}"):
            text = text[1:-1].strip()
        parsed, want = parse_call(text), parse_call(merged)
        if parsed is None or want is None or parsed[0] != "DataCopy":
            return None
        same = [plain(a) for a in parsed[2]] == [plain(a) for a in want[2]]
        return (cond, text) if same else None


_CHUNK_HEAD = re.compile(
    r"\s*for\s*\(\s*(?:[\w:]+\s+)?(\w+)\s*=\s*0[uU]?\s*;\s*(\w+)\s*<\s*([^;]+?)\s*;\s*(\w+)\s*\+=\s*([^)]+?|[^;]+?)\s*\)\s*$"
)
_CHUNK_LOCAL = re.compile(r"(?:const\s+)?[\w:]+\s+(\w+)\s*=\s*([^;]+);")
_CAST = re.compile(r"static_cast<[\w:]+>|\((?:u?int\d+_t|size_t|int|unsigned)\)")


def _chunk_base(expr: str, var: str) -> str | None:
    """`X[b + v]` (or `X[v + b]`, `X[v]`) -> `X[b]` (or `X`): the chunk's start advancing by the loop variable."""
    name, idx = split_index(expr)
    if idx is None:
        return None
    terms = [strip_parens(t) for t in top_split(idx, "+")]
    if terms.count(var) != 1:
        return None
    rest = [t for t in terms if t != var]
    if any(re.search(rf"\b{re.escape(var)}\b", t) for t in rest):
        return None
    return f"{name}[{' + '.join(rest)}]" if rest else name


def _bare(text: str, locals_: dict[str, str]) -> str:
    """An expression with the body's locals replaced by their values, casts, parentheses and spaces gone: for
    comparing what two spellings compute."""
    for name, value in locals_.items():
        text = re.sub(rf"\b{re.escape(name)}\b", f"({value})", text)
    return re.sub(r"[()\s]", "", _CAST.sub("", text))


def _is_remaining_min(count: str, var: str, bound: str, step: str, locals_: dict[str, str]) -> bool:
    """`count` is min(bound - var, step): `A < S ? A : S`, `A > S ? S : A`, `S < A ? S : A` or a min call."""
    left, s = _bare(f"{bound} - {var}", {}), _bare(step, {})
    c = _bare(count, locals_)
    pairs = {f"{left}<{s}?{left}:{s}", f"{left}<={s}?{left}:{s}", f"{left}>{s}?{s}:{left}", f"{s}<{left}?{s}:{left}"}
    mins = {f"{fn}{left},{s}" for fn in ("min", "std::min", "Min", "AscendC::Min")}
    mins |= {f"{fn}{s},{left}" for fn in ("min", "std::min", "Min", "AscendC::Min")}
    return c in pairs or re.sub(r"<[\w:]+>", "", c) in mins


MOTIF = MergedCopy(
    id="merged-copy",
    title="Copy a tile of rows with one DataCopy",
    removes="a loop of per-row (or per-chunk) DataCopy calls where one copy (or one DataCopyParams copy) would do",
    kinds=("data-copy",),
)
