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
from dataclasses import dataclass
from dataclasses import field as _field
from functools import partial

from tree_sitter import Node

from tilewise.analysis.chunks import memo
from tilewise.analysis.model import OperatorModel
from tilewise.analysis.source import Chunk, SourceFile
from tilewise.analysis.treeutil import function_declarator


def _last_name(sf: SourceFile, node: Node) -> str | None:
    if node.type in ("identifier", "field_identifier"):
        return sf.node_text(node)
    if node.type == "field_expression":
        f = node.child_by_field_name("field")
        return sf.node_text(f) if f is not None else None
    if node.type in ("pointer_declarator", "reference_declarator", "array_declarator"):
        inner = node.child_by_field_name("declarator") or (node.named_children[-1] if node.named_children else None)
        return _last_name(sf, inner) if inner is not None else None
    return None


@dataclass
class _ChunkFlow:
    """What one chunk contributes to the slices, with offsets relative to the chunk (kept across edits)."""

    # name <- expressions at [start, end): declarations, then assignments
    inits: dict[str, list[tuple[int, int]]] = _field(default_factory=dict)
    assigns: dict[str, list[tuple[int, int]]] = _field(default_factory=dict)
    params: dict[str, list[str | None]] = _field(default_factory=dict)  # function -> parameter names
    calls: dict[str, list[list[tuple[int, int]]]] = _field(default_factory=dict)  # callee -> argument ranges
    ident_starts: list[int] = _field(default_factory=list)
    ident_names: list[str] = _field(default_factory=list)


def _chunk_flow(sf: SourceFile, chunk: Chunk, _movable: list) -> _ChunkFlow:
    caps = sf.facts_in(chunk.start, chunk.end)
    out = _ChunkFlow()
    base = chunk.start
    for kind, into in (("init", out.inits), ("assign", out.assigns)):
        for node in caps.get(kind, []):
            target = node.child_by_field_name("declarator") or node.child_by_field_name("left")
            value = node.child_by_field_name("value") or node.child_by_field_name("right")
            key = _last_name(sf, target) if target is not None else None
            if value is not None and key:
                into.setdefault(key, []).append((value.start_byte - base, value.end_byte - base))
    for fn in caps.get("function", []):
        decl = function_declarator(fn)
        if decl is None:
            continue
        name_node = decl.child_by_field_name("declarator")
        if name_node is None:
            continue
        fname = sf.node_text(name_node).split("::")[-1]
        plist = decl.child_by_field_name("parameters")
        pnames: list[str | None] = []
        for p in plist.named_children if plist is not None else []:
            d = p.child_by_field_name("declarator")
            pnames.append(_last_name(sf, d) if d is not None else "")
        out.params[fname] = pnames
    for call in caps.get("call", []):
        callee = call.child_by_field_name("function")
        if callee is None:
            continue
        name = _last_name(sf, callee) if callee.type != "qualified_identifier" else sf.node_text(callee).split("::")[-1]
        args = call.child_by_field_name("arguments")
        if name and args is not None:
            out.calls.setdefault(name, []).append(
                [(a.start_byte - base, a.end_byte - base) for a in args.named_children if a.type != "comment"]
            )
    for node in caps.get("ident", []):
        out.ident_starts.append(node.start_byte - base)
        out.ident_names.append(sf.node_text(node))
    return out


class DefUse:
    """name -> expressions (as (SourceFile, start, end)) that may flow into it, for one side of the operator.

    Built from per-chunk pieces that the SourceFile keeps (`analysis.chunks`), so an edit re-reads one chunk."""

    def __init__(self, sources: Iterable[SourceFile]):
        self._closures: dict[str, frozenset[str]] = {}
        self._reaching: dict[frozenset[str], set[str]] = {}
        self._defs: dict[str, list[tuple[SourceFile, int, int]]] | None = None
        # path -> (the file, its chunks' starts, (start, flow) per chunk)
        self._files: dict[str, tuple[SourceFile, list[int], list[tuple[int, _ChunkFlow]]]] = {}
        params: dict[str, list[str | None]] = {}
        for sf in sources:
            parts = memo(sf, "flow").run(sf, partial(_chunk_flow, sf))
            self._files[sf.path] = (sf, [c.start for c, _ in parts], [(c.start, flow) for c, flow in parts])
            for _, flow in parts:
                params.update(flow.params)
        # Arguments flow into the parameters of the kernel's own functions (most calls are AscendC's: skipped).
        self._bound: dict[str, list[tuple[SourceFile, int, int]]] = defaultdict(list)
        for sf, _, flows in self._files.values():
            for base, flow in flows:
                for name, calls in flow.calls.items():
                    if name not in params:
                        continue
                    for args in calls:
                        for pname, (start, end) in zip(params[name], args, strict=False):
                            if pname:
                                self._bound[pname].append((sf, base + start, base + end))

    def defs(self, name: str) -> list[tuple[SourceFile, int, int]]:
        """The expressions assigned to `name`: declarations, then assignments, in file order, then the arguments
        passed for a parameter of that name. Indexed on the first question: many analyses never ask one."""
        if self._defs is None:
            index: dict[str, list[tuple[SourceFile, int, int]]] = defaultdict(list)
            for sf, _, flows in self._files.values():
                for attr in ("inits", "assigns"):
                    for base, flow in flows:
                        for key, ranges in getattr(flow, attr).items():
                            index[key] += [(sf, base + start, base + end) for start, end in ranges]
            for key, bound in self._bound.items():
                index[key] += bound
            self._defs = dict(index)
        return self._defs.get(name, [])

    def names_in(self, sf: SourceFile, node: Node) -> list[str]:
        """The identifiers written in a node."""
        return self.names_between(sf, node.start_byte, node.end_byte)

    def names_between(self, sf: SourceFile, start: int, end: int) -> list[str]:
        """The identifiers written in [start, end) of a file."""
        found = self._files.get(sf.path)
        if found is None:
            return []
        _, starts, chunks = found
        out: list[str] = []
        i = max(bisect.bisect_right(starts, start) - 1, 0)
        while i < len(chunks) and chunks[i][0] < end:
            base, flow = chunks[i]
            lo = bisect.bisect_left(flow.ident_starts, start - base)
            hi = bisect.bisect_left(flow.ident_starts, end - base, lo=lo)
            out += flow.ident_names[lo:hi]
            i += 1
        return out

    def closure(self, name: str, limit: int = 400) -> frozenset[str]:
        """Every name whose value may flow into `name` (memoised: rules ask about the same names again and again)."""
        cached = self._closures.get(name)
        if cached is not None:
            return cached
        seen = {name}
        work = list(self.defs(name))
        visited: set[tuple[str, int, int]] = set()
        while work and len(visited) < limit:
            f, start, end = work.pop()
            key = (f.path, start, end)
            if key in visited:
                continue
            visited.add(key)
            for other in self.names_between(f, start, end):
                if other not in seen:
                    seen.add(other)
                    work.extend(self.defs(other))
        result = frozenset(seen)
        self._closures[name] = result
        return result

    def names_reaching(self, sf: SourceFile, node: Node) -> set[str]:
        """Every name whose value may flow into node (including the names written in node itself)."""
        written = frozenset(self.names_in(sf, node))
        out = self._reaching.get(written)
        if out is None:  # many expressions name the same few variables
            out = set()
            for name in written:
                out |= self.closure(name)
            self._reaching[written] = out
        return set(out)


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

    def setter_exprs(self, field: str) -> list[tuple[SourceFile, Node]]:
        """The host expressions passed to `set_<field>(...)`."""
        return list(self._setters.get(field, []))

    def knobs_reaching(self, names: set[str], role: str | None = None) -> list:
        return [k for k in self.model.knobs if k.name in names and (role is None or k.role == role)]
