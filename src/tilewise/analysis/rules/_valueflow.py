"""Which names decide the *value* of an expression, not merely appear somewhere in its slice.

`analysis.dataflow` answers "which names may flow into this expression" at name level: a constant used as a divisor,
an index, a condition or the argument of an unknown function counts as much as one that IS the length. Rules that
claim "this constant is the copy length" or "this constant is the blockDim" must prove more: the expression's value
grows with the constant. This walk follows only the positions where it does: operands of `+ - *`, the numerator
of `/ % >> <<` and of ceil-division or align-up helpers, casts, the branches (not the condition) of `?:`, and
through every definition of a name (declarations, assignments, arguments bound to a parameter; a kernel name that
is a tiling field continues into the host's setter or field assignment). A name reached as an argument of `min`
(or as a branch of `x > N ? N : x`) is a cap: the value is at most that name, and it is marked so.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from tilewise.analysis.dataflow import DefUse, OperatorFlow
from tilewise.analysis.source import SourceFile

VALUE = "value"
CAP = "cap"
# Reached only as something subtracted (`(ubSize - RESERVED_UB_SIZE) / 4`): the result shrinks as it grows, so it
# is no length, factor or bound of the result.
INVERSE = "inverse"

_BOTH = frozenset(("+", "-", "*"))
_LEFT = frozenset(("/", "%", ">>", "<<", "&"))
_CASTS = frozenset(
    (
        "static_cast",
        "reinterpret_cast",
        "const_cast",
        "int",
        "uint32_t",
        "int32_t",
        "uint64_t",
        "int64_t",
        "uint16_t",
        "uint8_t",
        "size_t",
        "float",
        "abs",
        "Abs",
    )
)
_MIN = frozenset(("min", "Min", "MIN", "fmin"))
_MAX = frozenset(("max", "Max", "MAX", "fmax"))
_LIMIT = 3000  # expressions visited per question: coarse def-use maps can be large on big operators


class ValueFlow:
    """Answers `sources(sf, node, kernel_side)` -> {name: {"value"|"cap"}} for one operator, memoised."""

    def __init__(self, flow: OperatorFlow):
        self.flow = flow
        self._cache: dict[tuple[str, int, int, bool], dict[str, set[str]]] = {}

    def sources(self, sf: SourceFile, node: Node, kernel: bool) -> dict[str, set[str]]:
        key = (sf.path, node.start_byte, node.end_byte, kernel)
        found = self._cache.get(key)
        if found is None:
            found = {}
            self._walk(sf, node, kernel, VALUE, found, set(), [0])
            self._cache[key] = found
        return found

    def _defuse(self, kernel: bool) -> DefUse:
        return self.flow.kernel if kernel else self.flow.host

    def _name(
        self, sf: SourceFile, name: str, kernel: bool, how: str, out: dict[str, set[str]], seen: set, budget: list[int]
    ) -> None:
        out.setdefault(name, set()).add(how)
        if (name, how, kernel) in seen:
            return
        seen.add((name, how, kernel))
        for dsf, start, end in self._defuse(kernel).defs(name):
            n = dsf.tree.root_node.named_descendant_for_byte_range(start, end)
            if n is not None:
                self._walk(dsf, n, kernel, how, out, seen, budget)
        if kernel and name in self.flow.fields:
            # A tiling field: its value is what the host stores, by setter or by assignment to the field.
            for hsf, hnode in self.flow.setter_exprs(name):
                self._walk(hsf, hnode, False, how, out, seen, budget)
            self._name(sf, name, False, how, out, seen, budget)

    def _walk(
        self, sf: SourceFile, node: Node, kernel: bool, how: str, out: dict[str, set[str]], seen: set, budget: list[int]
    ) -> None:
        budget[0] += 1
        if budget[0] > _LIMIT:
            return
        t = node.type
        if t in ("identifier", "field_identifier"):
            self._name(sf, sf.node_text(node), kernel, how, out, seen, budget)
        elif t == "field_expression":
            f = node.child_by_field_name("field")
            if f is not None:
                self._name(sf, sf.node_text(f), kernel, how, out, seen, budget)
        elif t == "qualified_identifier":
            self._name(sf, sf.node_text(node).split("::")[-1], kernel, how, out, seen, budget)
        elif t in ("parenthesized_expression", "expression_statement"):
            for c in node.named_children:
                self._walk(sf, c, kernel, how, out, seen, budget)
        elif t in ("cast_expression", "unary_expression"):
            v = node.child_by_field_name("value") or node.child_by_field_name("argument")
            if v is not None and (t == "cast_expression" or sf.node_text(node)[:1] in "-+"):
                self._walk(sf, v, kernel, how, out, seen, budget)
        elif t == "binary_expression":
            op = node.child_by_field_name("operator")
            opt = sf.node_text(op) if op is not None else ""
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if opt in _BOTH:
                for side in (left, right):
                    if side is not None:
                        self._walk(
                            sf, side, kernel, INVERSE if opt == "-" and side is right else how, out, seen, budget
                        )
            elif opt in _LEFT and left is not None:
                self._walk(sf, left, kernel, how, out, seen, budget)
        elif t == "conditional_expression":
            cond = node.child_by_field_name("condition")
            cond_text = sf.node_text(cond) if cond is not None else ""
            branches = [
                b
                for b in (node.child_by_field_name("consequence"), node.child_by_field_name("alternative"))
                if b is not None
            ]
            # `x > N ? N : x`: the branches are the two sides of the comparison; the result is bounded by each.
            capped = all(sf.node_text(b).strip() in cond_text for b in branches) and len(branches) == 2
            for b in branches:
                self._walk(sf, b, kernel, CAP if capped else how, out, seen, budget)
        elif t == "assignment_expression":
            r = node.child_by_field_name("right")
            if r is not None:
                self._walk(sf, r, kernel, how, out, seen, budget)
        elif t == "call_expression":
            self._call(sf, node, kernel, how, out, seen, budget)

    def _call(
        self, sf: SourceFile, node: Node, kernel: bool, how: str, out: dict[str, set[str]], seen: set, budget: list[int]
    ) -> None:
        fn = node.child_by_field_name("function")
        args_node = node.child_by_field_name("arguments")
        if fn is None or args_node is None:
            return
        if fn.type == "template_function":
            fn = fn.child_by_field_name("name") or fn
        name = sf.node_text(fn).split("::")[-1].split(".")[-1].split("->")[-1]
        args = [a for a in args_node.named_children if a.type != "comment"]
        if not args:
            return
        low = name.lower()
        if name in _MIN and len(args) >= 2:
            for a in args:
                self._walk(sf, a, kernel, CAP, out, seen, budget)
        elif name in _MAX or name in _CASTS:
            for a in args if name in _MAX else args[:1]:
                self._walk(sf, a, kernel, how, out, seen, budget)
        elif ("ceil" in low or "align" in low or "roundup" in low or "round_up" in low) and "get" not in low:
            self._walk(sf, args[0], kernel, how, out, seen, budget)  # CeilDiv(a, b), AlignUp(a, b): grows with a


def value_flow(ctx) -> ValueFlow:
    """The operator's ValueFlow, built once per lint run and shared by the rules that ask."""
    found = ctx.__dict__.get("_value_flow")
    if found is None:
        found = ctx.__dict__["_value_flow"] = ValueFlow(ctx.flow)
    return found


def resolved_value(ctx, sf: SourceFile, node: Node, kernel: bool, override: dict[str, int] | None = None) -> int | None:
    """The value of an expression when every name in it resolves to one constant through its definitions (a member
    set from a tiling field the host sets from a constant, say), with `override` replacing some constants."""
    from tilewise.analysis.evaluate import Evaluator

    env = dict(ctx.kernel_env)
    env.update(override or {})
    flow = value_flow(ctx)
    for name in flow._defuse(kernel).names_in(sf, node):
        if name not in env:
            v = _resolve(ctx, flow, name, kernel, env, set())
            if v is not None:
                env[name] = v
    return Evaluator(sf.node_text, env, ctx.evaluator(sf).type_sizes).value(node)


def _resolve(ctx, flow: ValueFlow, name: str, kernel: bool, env: dict[str, int], visiting: set) -> int | None:
    from tilewise.analysis.evaluate import Evaluator

    if name in env:
        return env[name]
    if (name, kernel) in visiting or len(visiting) > 40:
        return None
    visiting.add((name, kernel))
    exprs = [
        (dsf, dsf.tree.root_node.named_descendant_for_byte_range(s, e), kernel)
        for dsf, s, e in flow._defuse(kernel).defs(name)
    ]
    if kernel and name in flow.flow.fields:
        exprs += [(hsf, hnode, False) for hsf, hnode in flow.flow.setter_exprs(name)]
        exprs += [
            (dsf, dsf.tree.root_node.named_descendant_for_byte_range(s, e), False)
            for dsf, s, e in flow.flow.host.defs(name)
        ]
    values = set()
    for dsf, n, side in exprs:
        if n is None:
            return None
        if n.type in ("identifier", "field_expression") and any(
            (dsf.node_text(n).split(".")[-1].split(">")[-1], side) == v for v in visiting
        ):
            continue  # `this->x = x`: the parameter's own binding, reached again
        local = dict(env)
        for other in flow._defuse(side).names_in(dsf, n):
            if other not in local:
                v = _resolve(ctx, flow, other, side, env, visiting)
                if v is not None:
                    local[other] = v
        v = Evaluator(dsf.node_text, local, ctx.evaluator(dsf).type_sizes).value(n)
        if v is None:
            return None
        values.add(v)
    visiting.discard((name, kernel))
    return values.pop() if len(values) == 1 else None


_DTYPE_WORDS = re.compile(r"DT_|dtype|DataType|sizeof|typeSize|TypeSize|dataType|is_same|TYPE_SIZE|BYTE", re.I)


def knob_uses(ctx, knob) -> dict[str, list[tuple[SourceFile, Node]]]:
    """Where a constant is used outside its definition, by kind: "compare" (`== K`, `case K:`: a dispatch value),
    "template" (a template argument), "dtype" (chosen in a branch on the data type or its size), "define" (the
    definition of another constant: changing K changes it too), "bits" (a bit operation or shift amount),
    "array" (an array's size), "other" (plain arithmetic)."""
    out: dict[str, list[tuple[SourceFile, Node]]] = {}
    pattern = re.compile(rb"\b" + re.escape(knob.name.encode()) + rb"\b")
    knob_names = {k.name for k in ctx.model.knobs}
    for sf in ctx.sources.values():
        if knob.name.encode() not in sf.data:
            continue
        for m in pattern.finditer(sf.data):
            if sf.path == knob.literal.file and knob.literal.start - 200 < m.start() < knob.literal.start:
                continue  # the definition itself
            n = sf.tree.root_node.named_descendant_for_byte_range(m.start(), m.end())
            if n is None or n.type not in ("identifier", "qualified_identifier", "field_identifier"):
                continue
            out.setdefault(_use_kind(sf, n, knob_names), []).append((sf, n))
    return out


def _use_kind(sf: SourceFile, n: Node, knob_names: set[str]) -> str:
    child, p = n, n.parent
    depth = 0
    while p is not None and depth < 12:
        t = p.type
        if t == "binary_expression":
            op = sf.node_text(p.child_by_field_name("operator"))
            if op in ("==", "!="):
                return "compare"
            if op in ("&", "|", "^") or (op in ("<<", ">>") and child == p.child_by_field_name("right")):
                return "bits"
        elif t == "case_statement" and child == p.child_by_field_name("value"):
            return "compare"
        elif t == "template_argument_list":
            return "template"
        elif t == "array_declarator":
            return "array"
        elif t == "init_declarator":
            d = p.child_by_field_name("declarator")
            if d is not None and sf.node_text(d) in knob_names:
                return "define"
        elif t in ("if_statement", "conditional_expression", "switch_statement", "while_statement"):
            cond = p.child_by_field_name("condition")
            if cond is not None and cond != child and _DTYPE_WORDS.search(sf.node_text(cond)):
                return "dtype"
        elif t == "function_definition":
            break
        child, p = p, p.parent
        depth += 1
    return "other"


def divides_extent(ctx, knob) -> bool:
    """Whether the constant cuts an extent into pieces somewhere: it (or a name it gives its value to) is a divisor
    (`n / TILE`, `n % TILE`, `CeilDiv(n, TILE)`) or a loop's stride (`i += TILE`). That is what makes a length a
    *tile* length; a fixed record size (a hash's 192-byte output) is copied whole and never divides anything."""
    flow = value_flow(ctx)
    name = knob.name
    for sf in ctx.sources.values():
        kernel = sf.path in ctx.model.kernel_files
        for m in _DIVISOR_RE.finditer(sf.data):
            start = m.start("operand")
            n = sf.tree.root_node.named_descendant_for_byte_range(start, m.end("operand"))
            while (
                n is not None
                and n.parent is not None
                and n.parent.start_byte == start
                and n.parent.type in ("field_expression", "parenthesized_expression", "qualified_identifier")
            ):
                n = n.parent
            if n is None or not _is_divisor(sf, n):
                continue
            text = sf.data[n.start_byte : n.end_byte]
            if name.encode() in text:
                return True
            last = re.split(r"\.|->", text.decode("utf-8", "replace"))[-1].strip("() ")
            coarse = (ctx.flow.kernel if kernel else ctx.flow.host).closure(last)
            if (name in coarse or coarse & ctx.flow.fields) and name in flow.sources(sf, n, kernel):
                return True
    return False


_DIVISOR_RE = re.compile(
    rb"(?:[/%]|\+=|(?i:ceil|div)\w*\s*\([^,;()]*(?:\([^()]*\)[^,;()]*)*,)\s*"
    rb"(?:static_cast<\w+>)?\(?\s*(?P<operand>(?:this->)?[A-Za-z_][\w.]*(?:->\w+)?)"
)


def _is_divisor(sf: SourceFile, n: Node) -> bool:
    child: Node = n
    p: Node | None = n.parent
    while (
        p is not None
        and p.type in ("parenthesized_expression", "cast_expression", "argument_list", "call_expression")
        and p.type != "binary_expression"
    ):
        if p.type == "argument_list":
            call = p.parent
            if call is None:
                return False
            fn = call.child_by_field_name("function")
            args = [a for a in p.named_children if a.type != "comment"]
            text = sf.node_text(fn).lower() if fn is not None else ""
            if "ceil" in text or "div" in text:
                return len(args) >= 2 and args[1] == child
            if "cast" not in text:
                return False
            child, p = call, call.parent
            continue
        child, p = p, p.parent
    if p is None:
        return False
    if p.type == "binary_expression":
        op = sf.node_text(p.child_by_field_name("operator"))
        return op in ("/", "%") and p.child_by_field_name("right") == child
    if p.type == "assignment_expression":
        op = sf.node_text(p.child_by_field_name("operator"))
        return op in ("+=", "/=", "%=") and p.child_by_field_name("right") == child
    return False
