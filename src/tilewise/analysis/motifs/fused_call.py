"""fused-call: one fused vector instruction instead of two passes over the tile.

What: `Axpy(dst, src, s, n)` computes dst += src * s in one pass; `MulAddDst(dst, a, b, n)` computes dst += a * b
and `FusedMulAdd(dst, a, b, n)` computes dst = a * dst + b. Written as two calls (Muls or Mul into a scratch, then
Add), the tile is read and written twice and the second call must wait behind a PipeBarrier<PIPE_V> for the first
one's result to land in UB.

Why: the vector pipe pays two instruction heads, two sweeps of repeats and the barrier's drain per tile instead of
one; in a kernel whose vector stage binds (small tiles, several inputs per tile) that is the stage's time. In a
streaming kernel whose copies bind, the vector stage hides under them and the split costs little (the emulator
measures the axpy example's split at under 1%, its one-core 128-element-tile variant at about 4%).

Rewind: `Axpy(d, s, k, n)` -> `Muls(s, s, k, n); PipeBarrier<PIPE_V>(); Add(d, d, s, n);` (the source tile is the
scratch, so the rewind applies only where the source is a plain tile name not read after the call, in its function
or its loop); `MulAddDst(d, a, b, n)` likewise with `Mul(a, a, b, n)`; `FusedMulAdd(d, a, b, n)` ->
`Mul(d, a, d, n); PipeBarrier<PIPE_V>(); Add(d, d, b, n);` (no scratch). Only the four-argument count forms, and only
where source and destination have the same element type (the mixed half->float Axpy needs a Cast to split).

Detect: `Muls(t, a, k, n)` then (an optional PipeBarrier<PIPE_V>) `Add(d, d, t, n)` or `Add(d, t, d, n)`, t not read
afterwards -> one `Axpy(d, a, k, n)`; `Mul(t, a, b, n)` then such an Add -> `MulAddDst(d, a, b, n)`;
`Mul(d, a, d, n)` then `Add(d, d, b, n)` -> `FusedMulAdd(d, a, b, n)` (d itself is the product's operand).

Example (slow -> fast):
    Muls(xLocal, xLocal, alpha, len); PipeBarrier<PIPE_V>(); Add(yLocal, yLocal, xLocal, len);
    -> Axpy(yLocal, xLocal, alpha, len);
"""

from __future__ import annotations

from tree_sitter import Node

from tilewise.analysis.findings import edit_range
from tilewise.analysis.motifs._stmts import (
    CallStmt,
    base_name,
    call_stmts,
    distinct,
    is_plain_name,
    lines_of,
    next_stmt,
    parse_call,
    read_later,
)
from tilewise.analysis.motifs.base import Motif, MotifContext, Rewound, Site, element_type, indent_at, splice
from tilewise.analysis.source import SourceFile
from tilewise.analysis.treeutil import enclosing_function

_BARRIER = "PipeBarrier<PIPE_V>();"


def _same_type(cs: CallStmt, a: str, b: str) -> bool:
    fn = enclosing_function(cs.stmt)
    if fn is None:
        return False
    ta, tb = element_type(cs.sf, fn, a), element_type(cs.sf, fn, b)
    return ta is not None and ta == tb


class FusedCall(Motif):
    def rewind(self, ctx: MotifContext) -> list[Rewound]:
        out = []
        for cs in call_stmts(ctx, "Axpy", "MulAddDst", "FusedMulAdd"):
            if len(cs.args) != 4:
                continue
            d, a, b, n = cs.args
            if not _same_type(cs, d, a):
                continue
            if cs.name == "FusedMulAdd":
                if base_name(b) == base_name(d):
                    continue
                first, second = f"Mul({d}, {a}, {d}, {n});", f"Add({d}, {d}, {b}, {n});"
            else:
                if not is_plain_name(a) or a == base_name(d) or read_later(cs.sf, cs.stmt, a):
                    continue
                first = f"Muls({a}, {a}, {b}, {n});" if cs.name == "Axpy" else f"Mul({a}, {a}, {b}, {n});"
                second = f"Add({d}, {d}, {a}, {n});"
            indent = indent_at(cs.sf, cs.stmt.start_byte)
            new = f"{first}\n{indent}{_BARRIER}\n{indent}{second}"
            text = splice(cs.sf, cs.stmt.start_byte, cs.stmt.end_byte, new)
            what = f"{cs.name}({d}, ...) -> {first.split('(')[0]} + Add (two passes)"
            out.append(Rewound(self.id, what, {cs.sf.path: text}, cs.sf.path, cs.call.loc.line))
        return distinct(out)

    def detect(self, ctx: MotifContext) -> list[Site]:
        sites = []
        for cs in call_stmts(ctx, "Muls", "Mul"):
            if len(cs.args) != 4:
                continue
            t, a, k, n = cs.args
            add, nodes = self._following_add(cs.sf, cs.stmt)
            if add is None or not is_plain_name(t):
                continue
            d, x, y, m = add
            if m != n:
                continue
            if cs.name == "Mul" and t == d and d in (a, k) and d in (x, y):
                # Mul(d, s, d) then Add(d, d, b): d = s * d + b, which is FusedMulAdd(d, s, b)
                s0 = k if a == d else a
                b = y if x == d else x
                if d in (s0, b) or not _same_type(cs, d, s0):
                    continue
                fused, t = f"FusedMulAdd({d}, {s0}, {b}, {n});", d
            else:
                if t == base_name(d) or {x, y} != {d, t} or read_later(cs.sf, nodes[-1], t):
                    continue
                if not _same_type(cs, d, a):
                    continue
                # Mul(t, t, b) is fine too: the fused call reads a and b before anything is written, and t is dead.
                fused = f"Axpy({d}, {a}, {k}, {n});" if cs.name == "Muls" else f"MulAddDst({d}, {a}, {k}, {n});"
            sf = cs.sf
            start, end = lines_of(sf, cs.stmt, nodes[-1])
            indent = indent_at(sf, cs.stmt.start_byte)
            edit = edit_range(sf, start, end, f"{indent}{fused}\n")
            line, end_line = sf.line_col(cs.stmt.start_byte)[0], sf.line_col(nodes[-1].end_byte)[0]
            why = f"{cs.name} into {t} and an Add of it into {d} sweep the tile twice with a barrier between; "
            why += f"{fused.split('(')[0]} does both in one pass" + ("" if t == d else f" ({t} is not read afterwards)")
            sites.append(Site(self.id, sf.path, line, end_line, why, [edit]))
        return sites

    @staticmethod
    def _following_add(sf: SourceFile, stmt: Node) -> tuple[list[str] | None, list[Node]]:
        """The Add right after `stmt` (an optional PipeBarrier<PIPE_V> between): its four arguments and the nodes
        from `stmt`'s successor through it."""
        nodes: list[Node] = []
        nxt = next_stmt(stmt)
        while nxt is not None and nxt.type == "expression_statement":
            parsed = parse_call(sf.node_text(nxt))
            if parsed is None:
                break
            name, tmpl, args = parsed
            nodes.append(nxt)
            if name == "PipeBarrier" and (tmpl or "").strip() == "PIPE_V" and len(nodes) == 1:
                nxt = next_stmt(nxt)
                continue
            if name == "Add" and len(args) == 4:
                return args, nodes
            break
        return None, nodes


MOTIF = FusedCall(
    id="fused-call",
    title="Fuse a multiply and an add into one vector call",
    removes="a Muls/Mul into a scratch tile followed by an Add of it (two vector passes and a barrier)",
)
