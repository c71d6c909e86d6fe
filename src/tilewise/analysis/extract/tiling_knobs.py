"""The tiling function's own knobs: what it asks the platform, and the integer literals that decide its tiling.

Real tiling functions rarely take their decisions from a named constant. They ask the platform how many cores and
how much UB there are (`GetCoreNumAiv()`, `GetCoreMemSize(CoreMemType::UB, ub)`, mki's `GetUbSize()`) and derive
the tiling through arithmetic full of literals (`ub / BLOCK_SIZE / 2 / NUM`, `NUM = 8`, `std::min(n, 4096)`). This
pass makes both searchable:

- a **platform knob** per query (`platform.cores`, `platform.ub_bytes`): the tuner caps what the query answers, so
  the tiling function derives a consistent tiling by its own logic while the kernel still runs on the whole chip;
- a **tiling literal** per integer literal that flows into what the function sets (`set_*`, `SetBlockDim`,
  `SetTilingKey`, a tiling struct's fields), found by following local variables back from those calls. Only
  literals whose change keeps the arithmetic meaningful are taken: a divisor or multiplier, a whole initial value,
  an argument of `min`/`max`. Comparisons, offsets (`+ 1`, `- 1`), indexes, alignment pairs (`/ 8 * 8`), type
  sizes and the 32-byte block are left alone.

The knobs go to `OperatorModel.tiling_knobs`, apart from the named constants the lint rules reason about.
"""

from __future__ import annotations

import re
from pathlib import Path

from tree_sitter import Node

from tilewise.analysis.evaluate import parse_int_literal
from tilewise.analysis.extract.constants import make_knob
from tilewise.analysis.extract.context import BuildContext, FileFacts
from tilewise.analysis.knobs import PLATFORM_CORES, PLATFORM_UB, role_of
from tilewise.analysis.model import Knob, KnobRole, OperatorModel
from tilewise.analysis.source import SourceFile
from tilewise.analysis.treeutil import arg_nodes, call_parts, enclosing_statement, function_name, squash

_CORE_QUERIES = {"GetCoreNum", "GetCoreNumAiv", "GetCoreNumAic", "GetCoreNumVector"}
_SETTERS = {"SetBlockDim", "SetTilingKey", "SetTilingId"}
_MIN_MAX = {"min", "max", "Min", "Max", "std::min", "std::max"}
# Variables that hold a dtype's size or the block size: their literals are facts, not choices.
_FACT_NAME_RE = re.compile(r"sizeof|type|dtype|byte|bit|align|block_?size", re.IGNORECASE)
_TRANSPARENT = {"parenthesized_expression", "cast_expression"}
_OPERANDS = {"identifier", "sizeof_expression", "field_expression", "qualified_identifier", "call_expression"}
_AMOUNT_RE = re.compile(r"num|factor|size|count|len|tile|block|split|core|buf|row|col|loop|batch|chunk", re.I)
_MODE_RE = re.compile(r"mode|flag|path|type|key|kind|case|reduction|axis|dim", re.I)


def tiling_knobs(ctx: BuildContext, model: OperatorModel) -> None:
    wanted = model.opdef.tiling_func if model.opdef else None
    fingerprint = (wanted, ctx.project.layout)
    seen: set[str] = set()
    named = {(k.file, k.literal.start) for k in model.knobs if k.kind not in ("set_block_dim", "launch")}
    for f in ctx.of_side("host"):
        for _, found in ctx.chunked(
            f, "tiling_knobs", lambda view, _c: _knobs_in(ctx, view, wanted), lambda _c: fingerprint
        ):
            for knob in found:
                if (knob.file, knob.literal.start) in named:
                    continue  # a named constant's literal: the constants pass has it
                # Platform knobs share their name across query sites (one decision, clamped at each site).
                if knob.kind == "platform" or knob.name not in seen:
                    seen.add(knob.name)
                    model.tiling_knobs.append(knob)


def _knobs_in(ctx: BuildContext, f: FileFacts, wanted: str | None) -> list[Knob]:
    out: list[Knob] = []
    for fn in f.caps.get("function"):
        if not _decides_tiling(f.sf, fn, wanted):
            continue
        definitions = _definitions(f.sf, fn)
        roots = _roots(f.sf, fn)
        decided = _decided(f.sf, definitions, roots)
        # A query whose answer never reaches what the function sets would be a knob that changes nothing (a helper
        # that sets nothing, such as a platform-info getter with out-parameters, hands its answers on: kept).
        queries = _platform_queries(ctx, f.sf, fn)
        out += [k for k in queries if not roots or k.target is None or k.target in decided]
        out += _literals(ctx, f.sf, definitions, roots, decided)
    return out


def _decides_tiling(sf: SourceFile, fn: Node, wanted: str | None) -> bool:
    """A tiling function, or a host helper that sets what a tiling function would."""
    name = function_name(sf, fn)
    params = squash(sf.node_text(fn.child_by_field_name("declarator") or fn))
    if name == wanted or "TilingContext" in params or ("LaunchParam" in params and "KernelInfo" in params):
        return True
    for call in sf.facts("call", fn):
        called = call_parts(sf, call)[0]
        if called in _SETTERS or called.startswith("set_"):
            return True
    return False


# ---- platform queries ------------------------------------------------------------------------------------------
def _platform_queries(ctx: BuildContext, sf: SourceFile, fn: Node) -> list[Knob]:
    out = []
    for call in sf.facts("call", fn):
        called = call_parts(sf, call)[0]
        args = arg_nodes(call)
        if called in _CORE_QUERIES:
            name, target = PLATFORM_CORES, _assigned_name(sf, call)
        elif called == "GetCoreMemSize" and len(args) == 2 and re.search(r"\bUB\b", sf.node_text(args[0])):
            name, target = PLATFORM_UB, _identifier(sf, args[1])
        elif called == "GetUbSize" and not args:
            name, target = PLATFORM_UB, _assigned_name(sf, call)
        else:
            continue
        knob = make_knob(ctx, sf, name, 0, "platform", "host", call.start_byte, call.end_byte)
        knob.role = "block_dim" if name == PLATFORM_CORES else "tile"
        knob.context = _statement_text(sf, call)
        knob.target = target
        out.append(knob)
    return out


def _assigned_name(sf: SourceFile, node: Node) -> str | None:
    """The variable a value is stored in (`auto n = q();`, `n = q();`), through casts and parentheses."""
    parent = node.parent
    while parent is not None:
        if parent.type in _TRANSPARENT:
            parent = parent.parent
        elif parent.type == "argument_list" and _is_cast(sf, parent):  # static_cast<uint32_t>(q())
            parent = parent.parent.parent if parent.parent is not None else None
        else:
            break
    if parent is None:
        return None
    if parent.type == "init_declarator":
        return _identifier(sf, parent.child_by_field_name("declarator"))
    if parent.type == "assignment_expression" and sf.node_text(parent.child_by_field_name("operator") or parent) == "=":
        return _identifier(sf, parent.child_by_field_name("left"))
    return None


def _is_cast(sf: SourceFile, args: Node) -> bool:
    call = args.parent
    return call is not None and call.type == "call_expression" and "_cast" in call_parts(sf, call)[0]


def _identifier(sf: SourceFile, node: Node | None) -> str | None:
    return sf.node_text(node) if node is not None and node.type == "identifier" else None


def _statement_text(sf: SourceFile, node: Node) -> str:
    stmt = enclosing_statement(node)
    if stmt is None:  # (outside any statement: the whole tree, as far as it goes)
        stmt = node
        while stmt.parent is not None:
            stmt = stmt.parent
    return squash(sf.node_text(stmt))[:120]


# ---- literals ----------------------------------------------------------------------------------------------------
def _roots(sf: SourceFile, fn: Node) -> list[tuple[str, Node]]:
    """(what it decides, expression) for every value the function hands on: `set_x(e)`, `SetBlockDim(e)`,
    `tiling->x = e`."""
    roots: list[tuple[str, Node]] = []
    for call in sf.facts("call", fn):
        called, _, _ = call_parts(sf, call)
        args = arg_nodes(call)
        if called.startswith("set_") and len(args) == 1:
            roots.append((called[4:], args[0]))
        elif called == "SetBlockDim" and args:  # (a tiling key picks a kernel variant: a choice, not a magnitude)
            roots.append(("blockDim", args[0]))
    for node in sf.facts("assign", fn):  # tiling->field = value (a plain tiling struct)
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if left is not None and right is not None and left.type == "field_expression":
            member = left.child_by_field_name("field")
            roots.append((sf.node_text(member) if member is not None else "field", right))
    return roots


def _decided(sf: SourceFile, definitions: dict[str, list[Node]], roots: list[tuple[str, Node]]) -> dict[str, None]:
    """The locals the roots read, followed back through their definitions (a fixpoint), in the order found."""
    decided: dict[str, None] = {}
    work = [ident for _, expr in roots for ident in _identifiers(sf, expr)]
    while work:
        name = work.pop()
        if name in decided:
            continue
        decided[name] = None  # (read, even with no definition here: an out-parameter such as GetCoreMemSize's)
        for rhs in definitions.get(name, []):
            work += _identifiers(sf, rhs)
    return decided


def _literals(
    ctx: BuildContext,
    sf: SourceFile,
    definitions: dict[str, list[Node]],
    roots: list[tuple[str, Node]],
    decided: dict[str, None],
) -> list[Knob]:
    out: list[Knob] = []
    places = [(what, expr) for what, expr in roots] + [(v, rhs) for v in decided for rhs in definitions.get(v, [])]
    for what, expr in places:
        for lit in _number_literals(expr):
            knob = _literal_knob(ctx, sf, what, expr, lit)
            if knob is not None:
                out.append(knob)
    return _unique_names(out)


def _definitions(sf: SourceFile, fn: Node) -> dict[str, list[Node]]:
    """Each local variable's defining expressions: `T v = e;`, `v = e;`, `v /= e;` (every one, in any branch)."""
    defs: dict[str, list[Node]] = {}
    for node in sf.facts("init", fn):
        name = _identifier(sf, node.child_by_field_name("declarator"))
        value = node.child_by_field_name("value")
        if name is not None and value is not None:
            defs.setdefault(name, []).append(value)
    for node in sf.facts("assign", fn):
        name = _identifier(sf, node.child_by_field_name("left"))
        value = node.child_by_field_name("right")
        if name is not None and value is not None:
            defs.setdefault(name, []).append(value)
    return defs


def _identifiers(sf: SourceFile, node: Node) -> list[str]:
    if node.type == "identifier":
        return [sf.node_text(node)]
    out: list[str] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "identifier":
            out.append(sf.node_text(n))
        elif n.type == "call_expression":  # a call's arguments, not its name
            args = n.child_by_field_name("arguments")
            if args is not None:
                stack.extend(args.named_children)
            fn = n.child_by_field_name("function")
            if fn is not None and fn.type == "field_expression":  # obj.method(): obj is read
                arg = fn.child_by_field_name("argument")
                if arg is not None:
                    stack.append(arg)
        else:
            stack.extend(n.named_children)
    return out


def _number_literals(node: Node) -> list[Node]:
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "number_literal":
            out.append(n)
        elif n.type not in ("lambda_expression", "subscript_expression"):
            stack.extend(n.named_children)
    return sorted(out, key=lambda n: n.start_byte)


def _literal_knob(ctx: BuildContext, sf: SourceFile, what: str, expr: Node, lit: Node) -> Knob | None:
    value = parse_int_literal(sf.node_text(lit))
    if value is None or value < 2 or _FACT_NAME_RE.search(what):
        return None
    role = _role_in_place(sf, what, expr, lit)
    if role is None or (value == 32 and role == "divisor"):  # (x / 32: the 32-byte block, a fact)
        return None
    knob = make_knob(ctx, sf, what, value, "tiling_literal", "host", lit.start_byte, lit.end_byte)
    knob.name = f"{what}@{Path(sf.path).name}:{knob.line}"
    knob.role = role
    knob.context = _statement_text(sf, lit)
    return knob


def _role_in_place(sf: SourceFile, what: str, expr: Node, lit: Node) -> KnobRole | None:
    """What a literal does where it stands (None: a place where changing it would not make another tiling)."""
    child, parent = _effective_parent(lit)
    if child == expr or parent is None:  # the whole value: `NUM = 8`, `set_tileNum(8)`, `n /= 2`
        assign = expr.parent
        if assign is not None and assign.type == "assignment_expression":
            op = sf.node_text(assign.child_by_field_name("operator") or assign)
            if op in ("/=", "*="):
                return "divisor" if op == "/=" else "tile"
            if op != "=":
                return None
        role = role_of(what)
        if role != "other":
            return role
        # A count or size, not a mode: `set_reduction(2)` and `useFastPath = 3` pick code paths.
        return "divisor" if _AMOUNT_RE.search(what) and not _MODE_RE.search(what) else None
    if parent.type == "binary_expression":
        op = sf.node_text(parent.child_by_field_name("operator") or parent)
        if op not in ("/", "*"):
            return None
        other = parent.child_by_field_name("left" if parent.child_by_field_name("right") == child else "right")
        if other is None or other.type == "number_literal":  # (1024 * 8: a constant written out)
            return None
        if other.type in _OPERANDS and re.search(r"sizeof|BLOCK|ALIGN|[Aa]lign", sf.node_text(other)):
            return None
        if _under_offset(sf, parent, expr):
            return None  # (ub - 1024 * 8, (ub - 64) / (12 + 3 * n): a reservation, an offset, bytes per element)
        if parent.child_by_field_name("right") == child and _alignment_pair(sf, parent, lit):
            return None
        return "divisor" if op == "/" else "tile"
    if parent.type == "argument_list":
        call = parent.parent
        if call is not None and call_parts(sf, call)[0] in _MIN_MAX:
            return "cap"
    return None


def _under_offset(sf: SourceFile, node: Node, root: Node) -> bool:
    """Whether `node` is a term of a sum or difference anywhere up to `root`."""
    while node != root and node.parent is not None:
        node = node.parent
        if node.type == "binary_expression" and sf.node_text(node.child_by_field_name("operator") or node) in "+-":
            return True
    return False


def _effective_parent(node: Node) -> tuple[Node, Node | None]:
    """(the node as its context sees it, that context), looking through parentheses and casts."""
    child, parent = node, node.parent
    while parent is not None and parent.type in _TRANSPARENT:
        child, parent = parent, parent.parent
    return child, parent


def _alignment_pair(sf: SourceFile, binary: Node, lit: Node) -> bool:
    """`x / 8 * 8` or `(x + 7) / 8 * 8`: an alignment step, whose two literals must change together."""
    text = sf.node_text(lit)
    op = _operator(sf, binary)
    if op == "/":  # the divisor of `x / 8 * 8`
        _, outer = _effective_parent(binary)
        return outer is not None and _operator(sf, outer) == "*" and _literal_text(sf, outer, "right") == text
    if op == "*":  # the multiplier of `x / 8 * 8`
        left = binary.child_by_field_name("left")
        while left is not None and left.type in _TRANSPARENT:
            left = left.named_children[-1] if left.named_children else None
        return left is not None and _operator(sf, left) == "/" and _literal_text(sf, left, "right") == text
    return False


def _operator(sf: SourceFile, node: Node) -> str | None:
    op = node.child_by_field_name("operator") if node.type == "binary_expression" else None
    return sf.node_text(op) if op is not None else None


def _literal_text(sf: SourceFile, node: Node, side: str) -> str | None:
    child = node.child_by_field_name(side)
    return sf.node_text(child) if child is not None and child.type == "number_literal" else None


def _unique_names(knobs: list[Knob]) -> list[Knob]:
    """Two literals on one line deciding the same thing get their columns in their names."""
    counts: dict[str, int] = {}
    for k in knobs:
        counts[k.name] = counts.get(k.name, 0) + 1
    seen: set[tuple[int, int]] = set()
    out = []
    for k in knobs:
        if (k.literal.start, k.literal.end) in seen:  # (a literal reached from two roots)
            continue
        seen.add((k.literal.start, k.literal.end))
        if counts[k.name] > 1:
            k.name = f"{k.name}:{k.col}"
        out.append(k)
    return out
