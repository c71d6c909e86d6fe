"""The constants pass: integer `#define`s and `const`/`constexpr` declarations, and the knobs among them.

Constants are evaluated host side first, then kernel side, each file chunk by chunk in source order: a constant
may use the ones before it, and the kernel sees the tiling values the host sets from constants (the host pass
adds those to the kernel's environment). A constant whose value is one literal is a knob: a tuner can rewrite it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tree_sitter import Node

from tilewise.analysis.evaluate import Evaluator, parse_int_literal
from tilewise.analysis.extract.context import BuildContext, FileFacts
from tilewise.analysis.knobs import is_tuned, parse_annotation, role_of
from tilewise.analysis.model import Knob, KnobKind, OperatorModel, Problem, Side
from tilewise.analysis.source import SourceFile
from tilewise.analysis.treeutil import arg_nodes, enclosing_function, squash

INT_TYPES = {
    "int",
    "unsigned",
    "long",
    "short",
    "int8_t",
    "uint8_t",
    "int16_t",
    "uint16_t",
    "int32_t",
    "uint32_t",
    "int64_t",
    "uint64_t",
    "size_t",
    "auto",
    "unsigned int",
    "long long",
    "unsigned long",
    "uint",
    "char",
}


@dataclass(slots=True)
class ConstantsChunk:
    """What one chunk adds to its side's environment, and the knobs and problems it found."""

    env: dict[str, int]
    knobs: list[Knob]
    problems: list[Problem]


def constants(ctx: BuildContext, model: OperatorModel) -> None:
    sizes = frozenset(ctx.type_sizes.items())
    sides: tuple[Side, ...] = ("host", "kernel")
    for side in sides:
        env = ctx.host_env if side == "host" else ctx.kernel_env
        for f in ctx.of_side(side):
            _constants_of(ctx, model, FileFacts(f.sf, side, f.caps), env, sizes)


def _constants_of(
    ctx: BuildContext, model: OperatorModel, view: FileFacts, env: dict[str, int], sizes: frozenset[tuple[str, int]]
) -> None:
    """One file's constants, as `view.side` sees them, added to `env` and its knobs to the model."""
    # A chunk's constants depend on those before it: its fingerprint is the environment it starts in.
    parts = ctx.chunked(
        view,
        "constants",
        lambda v, _c: _constants_in(ctx, v, env),
        lambda _c: (frozenset(env.items()), sizes, ctx.project.layout),
        lambda part: env.update(part.env),
    )
    for _, part in parts:
        ctx.problems.extend(part.problems)
        for knob in part.knobs:
            if not any(k.name == knob.name and k.file == knob.file for k in model.knobs):
                model.knobs.append(knob)


def _constants_in(ctx: BuildContext, f: FileFacts, env: dict[str, int]) -> ConstantsChunk:
    before = dict(env)
    part = ConstantsChunk({}, [], [])
    ev = Evaluator(f.sf.node_text, env, ctx.type_sizes)
    items = [(n.start_byte, n) for n in f.caps.get("define") + f.caps.get("decl")]
    try:
        for _, node in sorted(items, key=lambda x: x[0]):
            knob = _constant(ctx, f, node, ev, f.side, env)
            if knob and f.side == _knob_side(f, node, ctx.project.layout):
                part.knobs.append(knob)
    except Exception as exc:  # noqa: BLE001 - analysis of arbitrary user code must never take a caller down
        part.problems.append(ctx.problem(exc, "constants"))
    part.env = {k: v for k, v in env.items() if k not in before or before[k] != v}
    return part


def _constant(
    ctx: BuildContext, f: FileFacts, node: Node, ev: Evaluator, side: Side, env: dict[str, int]
) -> Knob | None:
    """Add what a `#define` or declaration defines to `env`; the knob, when its value is a literal."""
    if node.type == "preproc_def":
        return _define(ctx, f.sf, node, side, env)
    sf = f.sf
    quals = {sf.node_text(c) for c in node.children if c.type in ("type_qualifier", "storage_class_specifier")}
    kind: KnobKind | None = "constexpr" if "constexpr" in quals else "const" if "const" in quals else None
    type_node = node.child_by_field_name("type")
    if kind is None or type_node is None or squash(sf.node_text(type_node)) not in INT_TYPES:
        return None
    knob = None
    for decl in node.children_by_field_name("declarator"):
        found = _initialised(sf, decl, ev)
        if found is None:
            continue
        name, value, value_node = found
        env[name] = value
        lit = _literal_node(value_node)
        if lit is not None and knob is None:  # (one knob per declaration: the first name a literal sets)
            knob = make_knob(ctx, sf, name, value, kind, side, lit.start_byte, lit.end_byte)
    return knob


def _define(ctx: BuildContext, sf: SourceFile, node: Node, side: Side, env: dict[str, int]) -> Knob | None:
    """`#define NAME body`: its value when the body evaluates, and a knob when the body is one literal."""
    name_node, value_node = node.child_by_field_name("name"), node.child_by_field_name("value")
    if name_node is None or value_node is None:
        return None
    name = sf.node_text(name_node)
    raw = sf.node_text(value_node)
    literal = _literal_in(raw)
    if literal is not None:
        value, off, length = literal
        env[name] = value
        start = value_node.start_byte + len(raw[:off].encode())
        return make_knob(ctx, sf, name, value, "define", side, start, start + length)
    evaluated = eval_text(raw, env, ctx.type_sizes)
    if evaluated is not None:
        env[name] = evaluated
    return None


def _initialised(sf: SourceFile, decl: Node, ev: Evaluator) -> tuple[str, int, Node] | None:
    """(name, value, value node) of one `name = value` / `name{value}` declarator whose value evaluates."""
    if decl.type != "init_declarator":
        return None
    name_node, value_node = decl.child_by_field_name("declarator"), decl.child_by_field_name("value")
    if name_node is None or value_node is None or name_node.type not in ("identifier", "field_identifier"):
        return None
    if value_node.type == "initializer_list" and value_node.named_child_count == 1:
        value_node = value_node.named_children[0]
    value = ev.value(value_node)
    return None if value is None else (sf.node_text(name_node), value, value_node)


def make_knob(
    ctx: BuildContext, sf: SourceFile, name: str, value: int, kind: KnobKind, side: Side, start: int, end: int
) -> Knob:
    """The knob whose literal spans `start`..`end`, with the tuning annotations of its line."""
    literal = ctx.loc(sf, start, end)
    line = sf.line_text(literal.line)
    knob = Knob(
        name=name,
        value=value,
        file=sf.path,
        line=literal.line,
        col=literal.col,
        kind=kind,
        side=side,
        role=role_of(name),
        domain=parse_annotation(line, name),
        tuned=is_tuned(line),
        literal=literal,
    )
    if ctx.movable is not None:
        ctx.movable.append(knob)
    return knob


def _literal_node(node: Node | None) -> Node | None:
    """The integer literal that sets a constant's value, through casts, parentheses and a unary minus."""
    while node is not None:
        if node.type == "number_literal":
            return node
        if node.type in ("parenthesized_expression",):
            node = node.named_children[0] if node.named_children else None
        elif node.type == "cast_expression":
            node = node.child_by_field_name("value")
        elif node.type == "call_expression" and arg_nodes(node) and len(arg_nodes(node)) == 1:
            node = arg_nodes(node)[0]  # static_cast<uint32_t>(8), uint32_t(8)
        else:
            return None
    return None


_LITERAL_IN_RE = re.compile(r"^\(?\s*(\(\s*[A-Za-z_][\w:]*\s*\))?\s*(?P<num>0[xX][0-9a-fA-F]+|\d+)[uUlL]*\s*\)?$")


def _literal_in(raw: str) -> tuple[int, int, int] | None:
    """(value, offset, length) of the literal in a #define body such as `8`, `(8U)` or `(uint32_t)8`."""
    m = _LITERAL_IN_RE.match(raw.strip())
    if not m:
        return None
    value = parse_int_literal(m.group("num"))
    if value is None:  # (never: the pattern only matches what parses)
        return None
    lead = len(raw) - len(raw.lstrip())
    return value, lead + m.start("num"), len(m.group("num"))


def eval_text(text: str, env: dict[str, int], type_sizes: dict[str, int]) -> int | None:
    """The value of an expression given as text (a macro body, a launch argument), parsed on its own."""
    sf = SourceFile("<expr>", f"auto __v = {text};")
    decl = sf.tree.root_node.named_children[0] if sf.tree.root_node.named_children else None
    if decl is None or decl.type != "declaration":
        return None
    init = decl.child_by_field_name("declarator")
    value = init.child_by_field_name("value") if init is not None else None
    return Evaluator(sf.node_text, env, type_sizes).value(value)


def _knob_side(f: FileFacts, node: Node, layout: str) -> Side:
    """Which side a constant's knob belongs to: its file's, or in an invocation operator (host and kernel in one
    file) the side of the function it is declared in (file scope counts as the kernel's)."""
    if layout != "invocation":
        return f.side
    fn = enclosing_function(node)
    if fn is None:
        return "kernel"
    head = (fn.start_byte, (fn.child_by_field_name("declarator") or fn).start_byte)
    return "kernel" if f.sf.has_qualifier(*head, "__aicore__") else "host"
