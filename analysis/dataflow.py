"""Name-level backward slices: which constants can an expression's value come from?

Real tiling code rarely passes a constant straight through: the host clamps `TILE_LENGTH` against the UB size,
stores it with `set_tileLength`, the kernel reads `tilingData.tileLength` into a member, and a copy uses a local
derived from that member. The rules want to know that this copy's length is decided by `TILE_LENGTH`.

The slice is deliberately coarse (names, not SSA values): every name maps to every expression ever assigned to it
(declarations, assignments, `this->x = ...`, and the arguments passed for a parameter at each call site), on the
host and on the kernel side separately. Kernel names that are tiling fields continue into the host's setter
arguments. Coarse is fine for "which knobs may decide this", and it is linear in the size of the code.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterable

from tree_sitter import Node

from analysis.model import OperatorModel
from analysis.source import SourceFile


def _last_name(sf: SourceFile, node: Node) -> str | None:
    if node.type in ("identifier", "field_identifier"):
        return sf.node_text(node)
    if node.type == "field_expression":
        f = node.child_by_field_name("field")
        return sf.node_text(f) if f is not None else None
    if node.type in ("pointer_declarator", "reference_declarator", "array_declarator"):
        inner = node.child_by_field_name("declarator") or (node.named_children or [None])[-1]
        return _last_name(sf, inner) if inner is not None else None
    return None


class DefUse:
    """name -> expressions (as (SourceFile, Node)) that may flow into it, for one side of the operator."""

    def __init__(self, sources: Iterable[SourceFile]):
        self._idents: dict[str, tuple] = {}
        self._closures: dict[str, frozenset[str]] = {}
        self.defs: dict[str, list[tuple[SourceFile, Node]]] = defaultdict(list)
        params: dict[str, list[str]] = {}
        calls: list[tuple[SourceFile, str, list[Node]]] = []
        for sf in sources:
            for node in sf.facts("init") + sf.facts("assign"):
                target = node.child_by_field_name("declarator") or node.child_by_field_name("left")
                value = node.child_by_field_name("value") or node.child_by_field_name("right")
                key = _last_name(sf, target) if target is not None else None
                if value is not None and key:
                    self.defs[key].append((sf, value))
            for fn in sf.facts("function"):
                decl = fn.child_by_field_name("declarator")
                while decl is not None and decl.type != "function_declarator":
                    decl = decl.child_by_field_name("declarator")
                if decl is None:
                    continue
                fname = sf.node_text(decl.child_by_field_name("declarator")).split("::")[-1]
                plist = decl.child_by_field_name("parameters")
                pnames = []
                for p in plist.named_children if plist is not None else []:
                    d = p.child_by_field_name("declarator")
                    pnames.append(_last_name(sf, d) if d is not None else "")
                params[fname] = pnames
            for call in sf.facts("call"):
                fn = call.child_by_field_name("function")
                if fn is None:
                    continue
                name = _last_name(sf, fn) if fn.type != "qualified_identifier" else sf.node_text(fn).split("::")[-1]
                args = call.child_by_field_name("arguments")
                if name and args is not None:
                    calls.append((sf, name, [a for a in args.named_children if a.type != "comment"]))
        for sf, name, args in calls:
            for pname, arg in zip(params.get(name, []), args, strict=False):
                if pname:
                    self.defs[pname].append((sf, arg))

    def _identifiers(self, sf: SourceFile) -> tuple[list[int], list[str]]:
        """All identifiers of a file as (sorted start offsets, names): one query per file, not per lookup."""
        cached = self._idents.get(sf.path)
        if cached is None or cached[0] is not sf.tree:
            nodes = sf.facts("ident")
            cached = (sf.tree, [n.start_byte for n in nodes], [sf.node_text(n) for n in nodes])
            self._idents[sf.path] = cached
        return cached[1], cached[2]

    def names_in(self, sf: SourceFile, node: Node) -> list[str]:
        starts, names = self._identifiers(sf)
        i = bisect.bisect_left(starts, node.start_byte)
        j = bisect.bisect_left(starts, node.end_byte, lo=i)
        return names[i:j]

    def closure(self, name: str, limit: int = 400) -> frozenset[str]:
        """Every name whose value may flow into `name` (memoised: rules ask about the same names again and again)."""
        cached = self._closures.get(name)
        if cached is not None:
            return cached
        seen = {name}
        work = list(self.defs.get(name, []))
        visited: set[tuple[str, int, int]] = set()
        while work and len(visited) < limit:
            f, n = work.pop()
            key = (f.path, n.start_byte, n.end_byte)
            if key in visited:
                continue
            visited.add(key)
            for other in self.names_in(f, n):
                if other not in seen:
                    seen.add(other)
                    work.extend(self.defs.get(other, []))
        result = frozenset(seen)
        self._closures[name] = result
        return result

    def names_reaching(self, sf: SourceFile, node: Node) -> set[str]:
        """Every name whose value may flow into node (including the names written in node itself)."""
        out: set[str] = set()
        for name in set(self.names_in(sf, node)):
            out |= self.closure(name)
        return out


class OperatorFlow:
    """Slices across the host/kernel boundary: a kernel name that is a tiling field continues on the host."""

    def __init__(self, model: OperatorModel, sources: dict[str, SourceFile]):
        self.model = model
        self.host = DefUse(sources[p] for p in model.host_files if p in sources)
        self.kernel = DefUse(sources[p] for p in model.kernel_files if p in sources)
        self.sources = sources
        self.fields = {f.name for f in model.tiling.fields}
        self._slices: dict[tuple[str, int, int], set[str]] = {}
        self._field_slices: dict[str, set[str]] = {}
        self._setters: dict[str, list[tuple[SourceFile, Node]]] = defaultdict(list)
        for tf in model.tiling.functions:
            for s in tf.setters:
                if s.expr.loc is None or s.expr.loc.file not in sources:
                    continue
                sf = sources[s.expr.loc.file]
                node = sf.tree.root_node.named_descendant_for_byte_range(s.expr.loc.start, s.expr.loc.end)
                if node is not None:
                    self._setters[s.field].append((sf, node))

    def host_names(self, sf: SourceFile, node: Node) -> set[str]:
        return self.host.names_reaching(sf, node)

    def kernel_names(self, sf: SourceFile, node: Node) -> set[str]:
        """Names reaching a kernel expression, continued through tiling fields into the host tiling code."""
        key = (sf.path, node.start_byte, node.end_byte)
        if key in self._slices:
            return self._slices[key]
        names = self.kernel.names_reaching(sf, node)
        for field in names & self.fields:
            if field not in self._field_slices:
                host: set[str] = set()
                for hsf, hnode in self._setters.get(field, []):
                    host |= self.host.names_reaching(hsf, hnode)
                self._field_slices[field] = host
            names |= self._field_slices[field]
        self._slices[key] = names
        return names

    def knobs_reaching(self, names: set[str], role: str | None = None) -> list:
        return [k for k in self.model.knobs if k.name in names and (role is None or k.role == role)]
