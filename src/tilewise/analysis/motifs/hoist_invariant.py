"""hoist-invariant: a vector call whose result is the same in every iteration (a `Duplicate` of a constant, a `Cast`
of data loaded once) runs once, before the loop, not in each iteration.

Why: the call costs its vector time every iteration although it recomputes the same tile; run once, its result
stays in UB for the whole loop (nothing else in the loop writes it).

Rewind: a Duplicate or Cast that stands before a `for` loop in the same block (and whose destination nothing in the
loop writes, and nothing between it and the loop reads) moves to the start of the loop's body. Detect: a Duplicate
or Cast directly in a for loop's body whose arguments mention neither the loop variable nor anything the loop
assigns or declares, and whose tensors nothing else in the loop writes; the edit moves it to just before the loop.

Example (slow -> fast):
`for (uint32_t r = 0; r < rows; r++) { Cast(biasF, biasLocal, RoundMode::CAST_NONE, cols); RowAdd(r); }`
-> `Cast(biasF, biasLocal, RoundMode::CAST_NONE, cols); for (uint32_t r = 0; r < rows; r++) { RowAdd(r); }`
"""

from __future__ import annotations

from tree_sitter import Node

from tilewise.analysis.findings import TextEdit, edit_range
from tilewise.analysis.model import ApiCall
from tilewise.analysis.motifs._effects import base_name, mentions, written
from tilewise.analysis.motifs.base import (
    Motif,
    MotifContext,
    Rewound,
    Site,
    indent_at,
    line_end,
    line_start,
    splice_many,
)
from tilewise.analysis.source import SourceFile

_CALLS = ("Duplicate", "Cast")


def _own_lines(sf: SourceFile, stmt: Node) -> tuple[int, int]:
    """The byte span to delete to take a statement out: its whole lines when it has them to itself."""
    start, end = line_start(sf, stmt.start_byte), line_end(sf, stmt.end_byte)
    if sf.data[start : stmt.start_byte].strip() or sf.data[stmt.end_byte : end].strip():
        return stmt.start_byte, stmt.end_byte
    return start, end


def _tensors(call: ApiCall) -> set[str]:
    """The tensors a Duplicate (its destination) or Cast (destination and source) touches."""
    args = [a.text for a in call.args]
    return {base_name(a) for a in (args[:2] if call.name == "Cast" else args[:1])}


class HoistInvariant(Motif):
    def rewind(self, ctx: MotifContext) -> list[Rewound]:
        out = []
        for call in ctx.calls(*_CALLS):
            found = ctx.statement(call)
            if found is None or call.loops:
                continue
            sf, stmt = found
            block = stmt.parent
            if block is None or block.type != "compound_statement":
                continue
            between: list[Node] = []
            loop = stmt.next_named_sibling
            while loop is not None and loop.type != "for_statement":
                between.append(loop)
                loop = loop.next_named_sibling
            body = loop.child_by_field_name("body") if loop is not None else None
            if loop is None or body is None or body.type != "compound_statement" or not body.named_children:
                continue
            tensors = _tensors(call)
            if written(sf, [body]) & tensors or mentions("".join(sf.node_text(n) for n in between), tensors):
                continue  # the loop accumulates into it, or code before the loop reads it
            first = body.named_children[0]
            at = line_start(sf, first.start_byte)
            cut = _own_lines(sf, stmt)
            text = splice_many(sf, [(*cut, ""), (at, at, f"{indent_at(sf, first.start_byte)}{sf.node_text(stmt)}\n")])
            line = sf.line_col(loop.start_byte)[0]
            out.append(
                Rewound(
                    self.id,
                    f"{call.name}({call.args[0].text}, ...) moved into the loop at line {line}",
                    {sf.path: text},
                    sf.path,
                    call.loc.line,
                )
            )
        return out

    def detect(self, ctx: MotifContext) -> list[Site]:
        sites = []
        for call in ctx.calls(*_CALLS):
            found = ctx.statement(call) if call.loops else None
            if found is None:
                continue
            sf, stmt = found
            body = stmt.parent
            loop = body.parent if body is not None and body.type == "compound_statement" else None
            if body is None or loop is None or loop.type != "for_statement" or loop.child_by_field_name("body") != body:
                continue
            init = loop.child_by_field_name("initializer")
            update = loop.child_by_field_name("update")
            varying = written(sf, [n for n in (init, update) if n is not None])
            others = [n for n in body.named_children if n != stmt]
            varying |= written(sf, others)
            args = " ".join(a.text for a in call.args)
            if mentions(args, varying):
                continue
            indent = indent_at(sf, loop.start_byte)
            at = line_start(sf, loop.start_byte)
            edits: list[TextEdit] = [
                edit_range(sf, at, at, f"{indent}{sf.node_text(stmt)}\n"),
                edit_range(sf, *_own_lines(sf, stmt), ""),
            ]
            line = sf.line_col(loop.start_byte)[0]
            sites.append(
                Site(
                    self.id,
                    sf.path,
                    call.loc.line,
                    call.loc.end_line,
                    f"{call.name} into '{call.args[0].text}' computes the same tile in every iteration of the loop "
                    f"at line {line} (nothing in the loop changes its arguments): run it once, before the loop.",
                    edits,
                    col=call.loc.col,
                    end_col=call.loc.end_col,
                )
            )
        return sites


MOTIF = HoistInvariant(
    id="hoist-invariant",
    title="Hoist a loop-invariant Duplicate or Cast out of the loop",
    removes="a Duplicate or Cast that recomputes the same tile in every iteration",
)
