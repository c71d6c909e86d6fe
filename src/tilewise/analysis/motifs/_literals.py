"""The integer literals whose value a tiling decision is made of, however the code spells the way there.

The knob motifs (all-cores, large-tiles, double-buffer) rewrite the number a decision comes from: the core count
SetBlockDim gets, the length a copy moves, the count an InitBuffer asks for. analysis/knob_flow.py walks back from
each such sink through expressions and definitions, keeping the sign a value reaches it with; this module runs
that walk for the sinks a motif names and follows the definitions the name-level def-use map has no entry for:

- a class member's default (`uint32_t cores = 2;` in the class), a constructor's member initialiser (`: cores(2)`);
- an enumerator (`enum { DEPTH = 1 };`);
- a template parameter: its default (`int D = 1`) and the argument each instantiation passes (`KernelMix<half, 1>`);
- a named constant the model already read as a knob (`#define`, `constexpr`): its literal.

Each literal reached comes back as a `Source`: where it is, its value, the sign it reaches the sink with, whether it
is a shift count (`>> 5`: the sink moves by a power of two per unit), and whether the code uses it as a fact
(a type size, an alignment: analysis/knob_facts.py), which no rewrite may move.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from tree_sitter import Node

from tilewise.analysis.dataflow import OperatorFlow
from tilewise.analysis.evaluate import parse_int_literal
from tilewise.analysis.knob_facts import _Facts, fact_of
from tilewise.analysis.knob_flow import BUFFERS, CORES, LENGTH, _sinks, _Walk
from tilewise.analysis.model import OperatorModel
from tilewise.analysis.source import SourceFile
from tilewise.analysis.treeutil import descendants

__all__ = ["BUFFERS", "CORES", "LENGTH", "Source", "sources_of"]


@dataclass(frozen=True)
class Source:
    """One integer literal a sink's value is made of."""

    file: str
    start: int
    end: int
    line: int
    value: int
    signs: frozenset[int]  # +1: the sink grows with the literal; -1: it shrinks
    shift: bool  # the right operand of a shift: the sink moves by 2**value
    fact: str | None  # why the code treats it as a fact (a type size, an alignment), else None
    others: frozenset[str]  # the other kinds of sink it reaches (a tile literal that also sets the core count),
    # when asked for

    @property
    def sign(self) -> int:
        return next(iter(self.signs)) if len(self.signs) == 1 else 0


_MIN_MAX = frozenset(("min", "max", "Min", "Max", "MIN", "MAX", "fmin", "fmax"))
_DEFINING = ("field_declaration", "enumerator", "field_initializer", "template_declaration")


class _MeaningWalk(_Walk):
    """knob_flow's walk, with the definitions DefUse does not hold (see the module)."""

    @cached_property
    def _extra(self) -> dict[str, list[tuple[SourceFile, Node, bool]]]:
        out: dict[str, list[tuple[SourceFile, Node, bool]]] = {}
        kernel_files = set(self.flow.model.kernel_files)
        templates: dict[str, list[tuple[int, str]]] = {}  # class -> (position, parameter) of its template head
        for sf in self.flow.sources.values():
            kernel = sf.path in kernel_files or self.flow.model.layout == "invocation"
            for n in descendants(
                sf.tree.root_node, ("field_declaration", "enumerator", "field_initializer", "template_declaration")
            ):
                if n.type == "field_declaration":
                    value = n.child_by_field_name("default_value")
                    decl = n.child_by_field_name("declarator")
                    if value is not None and decl is not None:
                        out.setdefault(sf.node_text(decl).strip(), []).append((sf, value, kernel))
                elif n.type == "enumerator":
                    name, value = n.child_by_field_name("name"), n.child_by_field_name("value")
                    if name is not None and value is not None:
                        out.setdefault(sf.node_text(name), []).append((sf, value, kernel))
                elif n.type == "field_initializer":
                    named = [c for c in n.named_children if c.type != "comment"]
                    if len(named) == 2 and named[0].type == "field_identifier":
                        args = [a for a in named[1].named_children if a.type != "comment"]
                        if len(args) == 1:
                            out.setdefault(sf.node_text(named[0]), []).append((sf, args[0], kernel))
                else:
                    self._template(sf, n, kernel, out, templates)
        for sf in self.flow.sources.values():  # each instantiation's arguments bind the parameters
            kernel = sf.path in kernel_files or self.flow.model.layout == "invocation"
            for n in descendants(sf.tree.root_node, ("template_type", "template_function")):
                name = n.child_by_field_name("name")
                targs = n.child_by_field_name("arguments")
                params = templates.get(sf.node_text(name)) if name is not None else None
                if not params or targs is None:
                    continue
                given = [a for a in targs.named_children if a.type != "comment"]
                for pos, param in params:
                    if pos < len(given):
                        out.setdefault(param, []).append((sf, given[pos], kernel))
        return out

    @staticmethod
    def _template(sf: SourceFile, n: Node, kernel: bool, out: dict, templates: dict) -> None:
        params = n.child_by_field_name("parameters")
        target = next((c for c in n.named_children if c.type in ("class_specifier", "struct_specifier")), None)
        if params is None:
            return
        cls = target.child_by_field_name("name") if target is not None else None
        for pos, p in enumerate(c for c in params.named_children if c.type != "comment"):
            decl = p.child_by_field_name("declarator")
            if p.type not in ("parameter_declaration", "optional_parameter_declaration") or decl is None:
                continue
            name = sf.node_text(decl).strip()
            default = p.child_by_field_name("default_value")
            if default is not None:
                out.setdefault(name, []).append((sf, default, kernel))
            if cls is not None:
                templates.setdefault(sf.node_text(cls), []).append((pos, name))

    def _call(self, sf: SourceFile, node: Node, kernel: bool, sign: int) -> list:
        """`std::min<uint32_t>(a, b)` is a min as `min(a, b)` is: the name is read without scope and arguments."""
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if fn is not None and args is not None and fn.type == "qualified_identifier":
            name = re.sub(r"<.*", "", sf.node_text(fn)).split("::")[-1].strip()
            if name in _MIN_MAX:
                return [(sf, a, kernel, sign) for a in args.named_children if a.type != "comment"]
        return super()._call(sf, node, kernel, sign)

    def _name(self, sink: str, name: str, kernel: bool, sign: int, _seen: set) -> list:
        out = super()._name(sink, name, kernel, sign, _seen)
        for sf, node, _side in self._extra.get(name, []):
            n = _value_node(node)
            if n is not None:
                out.append((sf, n, kernel, sign))
        return out


def _value_node(node: Node) -> Node | None:
    """A template argument's expression (`type_descriptor` wraps an identifier the grammar took for a type)."""
    if node.type == "type_descriptor":
        inner = node.child_by_field_name("type")
        return inner if inner is not None and inner.type == "type_identifier" else None
    return node


def sources_of(
    model: OperatorModel,
    sources: dict[str, SourceFile],
    sink: str,
    where: Callable[[SourceFile, Node], bool] | None = None,
    *,
    others: bool = False,
    flow: OperatorFlow | None = None,
) -> list[Source]:
    """Every integer literal the value of `sink` (CORES, BUFFERS or LENGTH) is made of, at the sink sites `where`
    accepts (all when None), in file order. A queue's depth counts as a BUFFERS site (its template argument).
    `others`: also say which other kinds of sink each literal reaches (a second walk, from every other sink);
    `flow`: the operator's def-use maps when the caller has them (they are the costly part)."""
    flow = flow or OperatorFlow(model, sources)
    walk = _MeaningWalk(flow)
    other_walk = _MeaningWalk(flow)
    for kind, ssf, snode, kernel in _sinks(model, sources):
        if kind == sink and (where is None or where(ssf, snode)):
            walk.from_sink(kind, ssf, snode, kernel)
        elif others and kind in (CORES, BUFFERS, LENGTH) and kind != sink:
            other_walk.from_sink(kind, ssf, snode, kernel)
    if sink == BUFFERS:
        for q in model.queues:
            qsf = sources.get(q.loc.file)
            if qsf is None or not q.depth_expr or (where is not None and not where(qsf, _at(qsf, q.loc.start))):
                continue
            for name in re.findall(r"[A-Za-z_]\w*", q.depth_expr):
                walk.from_name(BUFFERS, name, True)
            depth = _depth_argument(qsf, q.loc.start, q.kind)
            for found in descendants(depth, ("number_literal",)) if depth is not None else ():
                walk.literals.setdefault((qsf.path, found.start_byte), set()).add((BUFFERS, 1))
    hits = dict(walk.literals)
    knobs = {(k.literal.file, k.literal.start): k for k in model.knobs}
    for k in model.knobs:  # named constants the walk reached by name: their literal (a #define's body too)
        for by_name in walk.names.get(k.name, set()):
            if by_name[0] == sink:
                hits.setdefault((k.literal.file, k.literal.start), set()).add(by_name)
    facts = _Facts(model, sources, flow)
    out = []
    for (path, start), reaching in sorted(hits.items()):
        sf = sources.get(path)
        signs = frozenset(sign for kind, sign in reaching if kind == sink)
        if sf is None or not signs:
            continue
        knob = knobs.get((path, start))
        reached = other_walk.literals.get((path, start), set()) | (
            other_walk.names.get(knob.name, set()) if knob else set()
        )
        also = frozenset(k for k, _ in reached)
        node = _literal_at(sf, start)
        if node is not None:
            value = parse_int_literal(sf.node_text(node))
            if value is None:
                continue
            fact = fact_of(model, sources, knob, facts) if knob is not None else _use_fact(facts, sf, node, value)
            end, line, shift = node.end_byte, node.start_point[0] + 1, _is_shift(sf, node)
        elif knob is not None:  # a #define's body: raw text to the grammar
            value, end, line, shift = knob.value, knob.literal.end, knob.line, False
            fact = fact_of(model, sources, knob, facts)
        else:
            continue
        out.append(Source(path, start, end, line, value, signs, shift, fact, also))
    return out


def _depth_argument(sf: SourceFile, at: int, kind: str) -> Node | None:
    """The depth template argument of the queue declared with its name at `at` (`TQue<VECIN, 1> q;`: the `1`)."""
    node: Node | None = _at(sf, at)
    while node is not None and node.type not in ("field_declaration", "declaration"):
        node = node.parent
    kind_type = node.child_by_field_name("type") if node is not None else None
    args = kind_type.child_by_field_name("arguments") if kind_type is not None else None
    given = [a for a in args.named_children if a.type != "comment"] if args is not None else []
    index = 2 if kind == "TQueBind" else 1
    return given[index] if len(given) > index else None


def _use_fact(facts: _Facts, sf: SourceFile, node: Node, value: int) -> str | None:
    try:
        return facts.use_fact(sf, node, None, value)
    except (AttributeError, ValueError):  # an unusual tree around the literal: no fact proved
        return None


def _at(sf: SourceFile, offset: int) -> Node:
    return sf.tree.root_node.named_descendant_for_byte_range(offset, offset) or sf.tree.root_node


def _literal_at(sf: SourceFile, start: int) -> Node | None:
    """The number literal starting at `start`, or None (a #define's body is raw text to the grammar)."""
    node = sf.tree.root_node.named_descendant_for_byte_range(start, start + 1)
    while node is not None and node.type != "number_literal":
        node = node.parent if node.parent is not None and node.parent.start_byte == start else None
    return node


def _is_shift(sf: SourceFile, node: Node) -> bool:
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        node, parent = parent, parent.parent
    if parent is None:
        return False
    op = parent.child_by_field_name("operator")
    right = parent.child_by_field_name("right")
    return (
        op is not None and sf.node_text(op) in (">>", "<<", ">>=", "<<=") and right is not None and right.id == node.id
    )
