"""ub-resident: a value stays in UB from the stage that makes it to the stage that stores it, instead of a round
trip through GM (stored, waited for, loaded back).

What: a tile that is written to GM and read back into UB before its final store (a spilled intermediate, or a
result re-read to be stored again) costs an extra MTE3 store and MTE2 load, and each direction must wait for the
other (MTE3->MTE2, then MTE2->MTE3), so the copy pipes stall on each other's latency every tile.

Why: UB holds the value already; keeping it there removes both copies and both waits. GM bandwidth is the usual
bound of a vector kernel, so the extra traffic is time.

Rewind: in the copy-out, before a GM <- UB `DataCopy(zGm[off], zLocal, n)` (count form, standing as a statement; not
in a file that sets atomic accumulation, where a second store would add twice),
the tile is stored, an MTE3->MTE2 event is waited for, the same GM range is copied back into the same UB tile, an
MTE2->MTE3 event is waited for, and then the original store runs: the values are unchanged, the traffic and the
stalls are added.

Detect: a GM <- UB DataCopy followed in the same block by a UB <- GM DataCopy of the same GM expression and
length (a spill and its reload). When the reload goes back into the same tile and the next statement after it
(past waits) stores that tile to the same GM range again, the edit deletes the spill, the waits and the reload,
keeping the final store; otherwise the site has no edit (the stages must be rewired by hand).

Example (slow -> fast):
    DataCopy(zGm[off], zLocal, n); SetFlag<HardEvent::MTE3_MTE2>(e); WaitFlag<HardEvent::MTE3_MTE2>(e);
    DataCopy(zLocal, zGm[off], n); SetFlag<HardEvent::MTE2_MTE3>(f); WaitFlag<HardEvent::MTE2_MTE3>(f);
    DataCopy(zGm[off], zLocal, n);
    -> DataCopy(zGm[off], zLocal, n);
"""

from __future__ import annotations

import re

from tree_sitter import Node

from tilewise.analysis.findings import edit_range
from tilewise.analysis.motifs._stmts import (
    CallStmt,
    call_stmts,
    distinct,
    is_sync,
    lines_of,
    next_stmt,
    parse_call,
    squash,
)
from tilewise.analysis.motifs.base import Motif, MotifContext, Rewound, Site, indent_at, is_gm, splice
from tilewise.analysis.source import SourceFile


def _copy(sf: SourceFile, node: Node) -> tuple[str, str, str] | None:
    """A count-form `DataCopy(dst, src, n);` statement's three arguments."""
    if node.type != "expression_statement":
        return None
    parsed = parse_call(sf.node_text(node))
    if parsed is None or parsed[0] != "DataCopy" or len(parsed[2]) != 3:
        return None
    d, s, n = parsed[2]
    return d, s, n


def _event(kind: str, name: str, indent: str) -> str:
    return (
        f"{indent}event_t {name} = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::{kind}));\n"
        f"{indent}SetFlag<HardEvent::{kind}>({name});\n"
        f"{indent}WaitFlag<HardEvent::{kind}>({name});\n"
    )


class UbResident(Motif):
    def _stores(self, ctx: MotifContext) -> list[CallStmt]:
        out = []
        for cs in call_stmts(ctx, "DataCopy"):
            if len(cs.args) == 3 and is_gm(cs.sf, cs.args[0]) and not is_gm(cs.sf, cs.args[1]):
                out.append(cs)
        return out

    def rewind(self, ctx: MotifContext) -> list[Rewound]:
        out = []
        for cs in self._stores(ctx):
            # Under atomic accumulation a store adds to GM: storing twice would add twice.
            if cs.call.function is None or re.search(r"\bSetAtomic(?:Add|Max|Min)\b", cs.sf.text):
                continue
            g, u, n = cs.args
            sf, stmt = cs.sf, cs.stmt
            flat = stmt.parent is not None and stmt.parent.type == "compound_statement"
            indent = indent_at(sf, stmt.start_byte)
            inner = indent if flat else indent + "    "
            tag = cs.call.loc.line
            body = (
                f"DataCopy({g}, {u}, {n});\n"
                + _event("MTE3_MTE2", f"twSpill{tag}", inner)
                + f"{inner}DataCopy({u}, {g}, {n});\n"
                + _event("MTE2_MTE3", f"twReload{tag}", inner)
                + f"{inner}DataCopy({g}, {u}, {n});"
            )
            new = body if flat else "{\n" + inner + body + f"\n{indent}}}"
            text = splice(sf, stmt.start_byte, stmt.end_byte, new)
            what = f"{u} stored to {g}, reloaded from GM and stored again (a round trip through GM)"
            out.append(Rewound(self.id, what, {sf.path: text}, sf.path, cs.call.loc.line))
        return distinct(out)

    def detect(self, ctx: MotifContext) -> list[Site]:
        sites = []
        for cs in self._stores(ctx):
            g, u, n = cs.args
            sf = cs.sf
            between: list[Node] = []
            nxt = next_stmt(cs.stmt)
            reload = None
            while nxt is not None:
                copy = _copy(sf, nxt)
                if copy is not None and squash(copy[1]) == squash(g) and squash(copy[2]) == squash(n):
                    reload = (nxt, copy)
                    break
                if copy is not None and squash(copy[0]) == squash(g):
                    break  # the GM range is stored again before any reload
                between.append(nxt)
                nxt = next_stmt(nxt)
            if reload is None:
                continue
            node, (dst, _, _) = reload
            line = cs.call.loc.line
            end_line = sf.line_col(node.end_byte)[0]
            why = (
                f"{u} is stored to {g} and loaded back into {dst} from the same GM range: the value can stay in UB "
                "(no MTE3 store, MTE2 load or the waits between them)"
            )
            edits = None
            if squash(dst) == squash(u) and all(is_sync(sf, b) for b in between):
                after = next_stmt(node)
                waits: list[Node] = []
                while after is not None and is_sync(sf, after):
                    waits.append(after)
                    after = next_stmt(after)
                final = _copy(sf, after) if after is not None else None
                if final is not None and [squash(x) for x in final] == [squash(x) for x in (g, u, n)]:
                    start, _ = lines_of(sf, cs.stmt)
                    _, end = lines_of(sf, waits[-1] if waits else node)
                    edits = [edit_range(sf, start, end, "")]
                else:
                    why += "; no identical store follows the reload, so which store to keep needs a person"
            else:
                why += "; other work or another tile sits between the store and the reload, so it needs a person"
            sites.append(Site(self.id, sf.path, line, end_line, why, edits))
        return sites


MOTIF = UbResident(
    id="ub-resident",
    title="Keep intermediates in UB instead of a round trip through GM",
    removes="a tile stored to GM and loaded back (a spill and reload) before its final store",
    kinds=("data-copy",),
)
