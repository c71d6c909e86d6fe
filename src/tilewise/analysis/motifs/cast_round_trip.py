"""cast-round-trip: a tile is widened (half or bfloat16 -> float) once and the wide copy is used from then on; it is
never narrowed back into its source and widened again while neither changed.

Why: narrowing a value that was just widened from the same narrow tile gives back that tile exactly, and widening it
again gives back the same wide tile: the two casts change no bit and cost two passes of vector time over the tile
(a Cast to or from float runs at the fp32 rate, 64 lanes per cycle).

Rewind: after a widening `Cast(wide, narrow, mode, n)`, the narrow tile is written back from the wide one
(`Cast(narrow, wide, RoundMode::CAST_RINT, n)`, exact) and the original Cast runs again, each after a
PipeBarrier<PIPE_V>. Detect: in one block, `Cast(a, b, ..., n)`, later `Cast(b, a, ..., n)` and later `Cast(a, b,
..., n)` again, a widening first (a float, b half or bfloat16) and nothing in between writing a or b: the edits
delete the last two casts (each with a PipeBarrier<PIPE_V> right before it). The same trip the other way round, a
narrowing first (`Cast(y, yF)`, `Cast(yF, y)`, `Cast(y, yF)`: an output narrowed twice), is found too: the last
narrowing meets values y holds exactly, so it goes, and the widening with it when nothing in the function reads
the wide tile afterwards. Casts are matched with or without the `AscendC::` qualifier.

Example (slow -> fast): `Cast(xF, x, RoundMode::CAST_NONE, n); PipeBarrier<PIPE_V>(); Cast(x, xF,
RoundMode::CAST_RINT, n); PipeBarrier<PIPE_V>(); Cast(xF, x, RoundMode::CAST_NONE, n);` ->
`Cast(xF, x, RoundMode::CAST_NONE, n);`
"""

from __future__ import annotations

import re

from tree_sitter import Node

from tilewise.analysis.findings import edit_range
from tilewise.analysis.model import ApiCall
from tilewise.analysis.motifs._effects import base_name, written
from tilewise.analysis.motifs.base import (
    Motif,
    MotifContext,
    Rewound,
    Site,
    element_type,
    enclosing,
    indent_at,
    line_end,
    line_start,
    splice,
)
from tilewise.analysis.source import SourceFile

_NARROW = {"half", "bfloat16_t", "float16_t"}
_WIDE = {"float", "float32_t"}
_BARRIER = "PipeBarrier<PIPE_V>();"


def _widening(ctx: MotifContext, call: ApiCall) -> tuple[SourceFile, Node, list[str]] | None:
    """The statement and (wide, narrow, mode, count) texts of a count-form Cast from a 16-bit float to float."""
    return _count_cast(ctx, call, wide_first=True)


def _narrowing(ctx: MotifContext, call: ApiCall) -> tuple[SourceFile, Node, list[str]] | None:
    """The statement and (narrow, wide, mode, count) texts of a count-form Cast from float to a 16-bit float."""
    return _count_cast(ctx, call, wide_first=False)


def _count_cast(ctx: MotifContext, call: ApiCall, wide_first: bool) -> tuple[SourceFile, Node, list[str]] | None:
    if len(call.args) != 4 or call.template_args:
        return None
    found = ctx.statement(call)
    if found is None:
        return None
    sf, stmt = found
    fn = enclosing(stmt, "function_definition") or stmt
    args = [a.text.strip() for a in call.args]
    wide_at, narrow_at = (0, 1) if wide_first else (1, 0)
    narrow = element_type(sf, fn, args[narrow_at])
    if element_type(sf, fn, args[wide_at]) not in _WIDE or narrow is None:
        return None
    if narrow not in _NARROW and not _narrow_branch(sf, stmt, narrow):
        return None
    return sf, stmt, args


def _narrow_branch(sf: SourceFile, stmt: Node, param: str) -> bool:
    """Whether a template parameter is a 16-bit type where the statement runs: it stands in the first branch of an
    `if constexpr (sizeof(T) < sizeof(float))` (or `sizeof(T) == 2`)."""
    test = re.compile(rf"sizeof\(\s*{re.escape(param)}\s*\)\s*(?:<\s*(?:sizeof\(\s*float\s*\)|4)|==\s*2(?!\d))")
    child, n = stmt, stmt.parent
    while n is not None and n.type != "function_definition":
        branch = n.type == "if_statement" and n.child_by_field_name("consequence") == child
        if branch and test.search(sf.node_text(n.child_by_field_name("condition"))):
            return True
        child, n = n, n.parent
    return False


class CastRoundTrip(Motif):
    def rewind(self, ctx: MotifContext) -> list[Rewound]:
        out = []
        for call in sorted(ctx.calls("Cast"), key=lambda c: not c.in_loop):  # loop work first
            found = _widening(ctx, call)
            if found is None:
                continue
            sf, stmt, (wide, narrow, _, n) = found
            if stmt.parent is None or stmt.parent.type != "compound_statement":
                continue
            indent = indent_at(sf, stmt.start_byte)
            back = f"Cast({narrow}, {wide}, RoundMode::CAST_RINT, {n});"
            added = "".join(f"{indent}{s}\n" for s in (_BARRIER, back, _BARRIER, sf.node_text(stmt)))
            at = line_end(sf, stmt.end_byte)
            text = splice(sf, at, at, added)
            out.append(
                Rewound(
                    self.id,
                    f"Cast({wide}, {narrow}, ...) followed by an exact round trip through {narrow}",
                    {sf.path: text},
                    sf.path,
                    call.loc.line,
                )
            )
        return out

    def detect(self, ctx: MotifContext) -> list[Site]:
        sites = []
        casts = ctx.calls("Cast")
        for call in casts:
            found = _widening(ctx, call)
            if found is None:
                continue
            sf, first, (wide, narrow, _, n) = found
            key = (base_name(wide), base_name(narrow))
            later = list(_siblings_after(first))
            back = _find_cast(sf, later, (narrow, wide, n))
            again = _find_cast(sf, later[later.index(back) + 1 :], (wide, narrow, n)) if back is not None else None
            if back is None or again is None:
                continue
            between = [s for s in later[: later.index(again)] if s is not back]
            if written(sf, between) & set(key):
                continue  # something changes a or b between the casts: the round trip may not be a no-op
            edits = [edit_range(sf, *span, "") for span in (_cut(sf, back), _cut(sf, again))]
            sites.append(
                Site(
                    self.id,
                    sf.path,
                    sf.line_col(back.start_byte)[0],
                    sf.line_col(again.end_byte)[0],
                    f"'{narrow}' is cast back from '{wide}' (which was just widened from it) and widened again, "
                    "with neither changed in between: both casts reproduce what is already there; delete them.",
                    edits,
                )
            )
        return sites + [site for call in casts if (site := self._narrowed_twice(ctx, call)) is not None]

    def _narrowed_twice(self, ctx: MotifContext, call: ApiCall) -> Site | None:
        """`Cast(narrow, wide, ...)`, then `Cast(wide, narrow, ...)` and `Cast(narrow, wide, ...)` again with
        neither changed between: the last cast rounds values the narrow type already holds exactly (a no-op in any
        mode), so it goes; the widening between goes too when nothing reads the wide tile after it in the function
        (a local tile: a member or a parameter may be read after the return)."""
        found = _narrowing(ctx, call)
        if found is None:
            return None
        sf, first, (narrow, wide, _, n) = found
        later = list(_siblings_after(first))
        back = _find_cast(sf, later, (wide, narrow, n))
        again = _find_cast(sf, later[later.index(back) + 1 :], (narrow, wide, n)) if back is not None else None
        if back is None or again is None:
            return None
        between = [s for s in later[: later.index(again)] if s is not back]
        if written(sf, between) & {base_name(wide), base_name(narrow)}:
            return None
        cuts = [_cut(sf, again)]
        fn = enclosing(first, "function_definition")
        if fn is not None and _dead_after(sf, fn, again, base_name(wide)):
            cuts.insert(0, _cut(sf, back))
        what = "and the widening before it, whose result nothing reads, " if len(cuts) == 2 else ""
        return Site(
            self.id,
            sf.path,
            sf.line_col(back.start_byte)[0],
            sf.line_col(again.end_byte)[0],
            f"'{narrow}' is narrowed from '{wide}' again after '{wide}' was widened back from it: the second "
            f"narrowing reproduces what '{narrow}' holds; delete it {what}(the output is the same bit for bit).",
            [edit_range(sf, *span, "") for span in cuts],
        )


def _siblings_after(stmt: Node):
    n = stmt.next_named_sibling
    while n is not None:
        yield n
        n = n.next_named_sibling


def _find_cast(sf: SourceFile, stmts: list[Node], want: tuple[str, str, str]) -> Node | None:
    """The first statement of `stmts` that is exactly `Cast(want[0], want[1], <mode>, want[2]);`."""
    dst, src, n = (re.sub(r"\s+", "", w) for w in want)
    for s in stmts:
        m = _CAST_STMT.fullmatch(re.sub(r"\s+", "", sf.node_text(s)))
        if m and (m.group(1), m.group(2), m.group(4)) == (dst, src, n):
            return s
    return None


_CAST_STMT = re.compile(r"(?:AscendC::)?Cast\((.*),(.*),((?:AscendC::)?RoundMode::\w+),(.*)\);")


def _dead_after(sf: SourceFile, fn: Node, stmt: Node, name: str) -> bool:
    """`name` is declared in the function `fn` and nothing after `stmt` in it mentions it but a FreeTensor."""
    body = sf.data[fn.start_byte : stmt.start_byte].decode("utf-8", "surrogateescape")
    if not re.search(rf"\b(?:LocalTensor<[^;>]*>|auto)\s*&?\s*{re.escape(name)}\s*=", body):
        return False
    rest = sf.data[stmt.end_byte : fn.end_byte].decode("utf-8", "surrogateescape")
    rest = re.sub(r"[\w.>\-]+\.FreeTensor\s*\([^;]*\)", "", rest)
    return re.search(rf"\b{re.escape(name)}\b", rest) is None


def _cut(sf: SourceFile, stmt: Node) -> tuple[int, int]:
    """The bytes to delete for a statement: its lines, with a PipeBarrier<PIPE_V> line right before it."""
    start, end = line_start(sf, stmt.start_byte), line_end(sf, stmt.end_byte)
    if sf.data[start : stmt.start_byte].strip() or sf.data[stmt.end_byte : end].strip():
        return stmt.start_byte, stmt.end_byte
    prev = stmt.prev_named_sibling
    if prev is not None and sf.node_text(prev).replace(" ", "") == _BARRIER:
        p_start = line_start(sf, prev.start_byte)
        if not sf.data[p_start : prev.start_byte].strip() and line_end(sf, prev.end_byte) == start:
            start = p_start
    return start, end


MOTIF = CastRoundTrip(
    id="cast-round-trip",
    title="Widen a tile once: no exact cast round trip back through the narrow tile",
    removes="a Cast back into the narrow source and a second identical widening Cast",
)
