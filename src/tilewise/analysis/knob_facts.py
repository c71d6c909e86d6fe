"""Constants that state a fact of the types or the hardware, read from how the code uses them: never tiling knobs.

A tiling function is full of integer constants, and only some of them are choices. `4` as the size of a float,
`32` as the block every length is rounded to, `256` as one repeat of a vector instruction and `65535` as the most a
copy's burst length field holds are facts: a tuner that moves them makes a kernel that is wrong (on some dtype,
some shape) or that means nothing. What gives them away is what the code does with them, however they are spelled
(a named `const`, a `constexpr`, a `#define`, a literal in the tiling function):

- **a type size**: compared with a `sizeof` (or a variable that holds one); a branch of `?:` whose other branch
  is a `sizeof`; one of several definitions of a variable where another definition is the same expression with a
  `sizeof` in its place; or chosen by a test of the data type (`dt == DT_FLOAT ? 4 : 2`) with a dtype's size;
- **an alignment** (a block or repeat size used to round): the modulus of `%`; `K - 1` in a bit mask; divided by
  and multiplied back by (`x / K * K`, directly or through the variable the quotient is stored in); the unit of an
  align or round helper (`AlignUp(x, K)`);
- **a block or repeat size dividing a byte length**: 32 or 256 dividing an expression of bytes (one holding a
  `sizeof`, or the UB size the platform reports);
- **a hardware limit**: a bound (an argument of `min`/`max`, a side of a comparison) whose value is a field's
  documented maximum (255 repeats, 4095 bursts, 65535 for a burst length or stride), or the 32-byte block or the
  256-byte repeat as a bound on a length.

`fact_of(...)` says why a knob is one of these (a phrase for the user), or None for a choice.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from tilewise.analysis.dataflow import OperatorFlow
from tilewise.analysis.knobs import PLATFORM_UB
from tilewise.analysis.model import Knob, OperatorModel
from tilewise.analysis.source import SourceFile

_TRANSPARENT = frozenset(("parenthesized_expression", "cast_expression"))
_COMPARE = frozenset(("==", "!=", "<", "<=", ">", ">="))
_MIN_MAX = frozenset(("min", "max", "Min", "Max", "MIN", "MAX"))
_ALIGN_RE = re.compile(r"align|round", re.IGNORECASE)
# Documented field limits: repeatTimes (8 bits), blockCount (12 bits), blockLen and the strides (16 bits).
FIELD_LIMITS = {
    255: "the most repeats one vector instruction takes",
    4095: "the most bursts one copy takes",
    65535: "the most a copy's burst length or stride field holds",
}
BLOCK_BYTES, REPEAT_BYTES = 32, 256
DTYPE_SIZES = frozenset((1, 2, 4, 8))
# What a length is rounded to: a block or a repeat, in bytes or in elements of some dtype (32 / 8 = 4, 256 / 2 =
# 128, ...). A rounding step by another value (`n / 512 * 512`, `n / TILE * TILE` taking the whole tiles of a
# length) is a tiling's own arithmetic, not the hardware's.
ALIGN_UNITS = frozenset(1 << k for k in range(1, 9))
CHECKED_UNITS = frozenset(1 << k for k in range(2, 9))  # (`i % 2` is a parity, a ping-pong index, more than that)
_TYPE_SIZE_CALLS = frozenset(("sizeof", "GetSizeByDataType", "GetTypeSize", "GetDataTypeSize"))
_DTYPE_TEST_RE = re.compile(r"\bDT_|dtype|DataType|is_same|sizeof", re.IGNORECASE)


class _Facts:
    """The questions asked of one operator's code, with its def-use maps."""

    def __init__(self, model: OperatorModel, sources: dict[str, SourceFile], flow: OperatorFlow | None = None):
        self.model, self.sources = model, sources
        self.flow = flow or OperatorFlow(model, sources)
        self.ub_names = {k.target for k in model.tiling_knobs if k.name == PLATFORM_UB and k.target}
        self._sized: dict[str, bool] = {}  # name -> whether it holds a type size (memoised: asked again and again)
        self._uses: dict[str, list[tuple[SourceFile, Node]]] = {}
        self._calls: dict[str, list[tuple[SourceFile, Node]]] | None = None

    # ---- what an expression is ---------------------------------------------------------------------------------
    def type_size(self, sf: SourceFile, node: Node) -> bool:
        """Whether the expression IS a type's size: a `sizeof`, a dtype-size query, a `?:` of two, or a variable
        every definition of which is one (through parentheses, casts and conversions). An expression that merely
        holds one (`n * sizeof(T)`, a byte length) is not."""
        n = _strip(node)
        if n.type == "sizeof_expression":
            return True
        if n.type == "call_expression":
            fn = n.child_by_field_name("function")
            return fn is not None and re.split(r"::|\.|->", sf.node_text(fn))[-1] in _TYPE_SIZE_CALLS
        if n.type == "conditional_expression":
            branches = [n.child_by_field_name("consequence"), n.child_by_field_name("alternative")]
            return all(b is not None and self.type_size(sf, b) for b in branches)
        if n.type == "identifier":
            return self._name_is_type_size(sf.node_text(n))
        return False

    def _name_is_type_size(self, name: str) -> bool:
        known = self._sized.get(name)
        if known is not None:
            return known
        self._sized[name] = False  # (a definition that reads the name itself is no evidence for it)
        defs = [
            (dsf, n)
            for side in (self.flow.host, self.flow.kernel)
            for dsf, start, end in side.defs(name)
            if (n := dsf.tree.root_node.named_descendant_for_byte_range(start, end)) is not None
        ]
        found = bool(defs) and all(self.type_size(dsf, n) for dsf, n in defs)
        self._sized[name] = found
        return found

    def bytes_expr(self, sf: SourceFile, node: Node) -> bool:
        """Whether the expression is a number of bytes: a product with a type size in it, or what the UB size the
        platform gives flows into."""
        stack = [node]
        while stack:
            n = stack.pop()
            if n.type in ("sizeof_expression", "call_expression", "identifier") and self.type_size(sf, n):
                return True
            stack.extend(n.named_children)
        names = self.flow.host.names_reaching(sf, node) | self.flow.kernel.names_reaching(sf, node)
        return bool(names & self.ub_names)

    # ---- one use ---------------------------------------------------------------------------------------------
    def use_fact(self, sf: SourceFile, use: Node, name: str | None, value: int, depth: int = 0) -> str | None:
        """What the use `use` (an identifier named `name`, or a literal) shows the constant to be, if a fact."""
        child, parent = _up(use)
        if parent is None:
            return None
        t = parent.type
        if t == "binary_expression":
            return self._binary_fact(sf, parent, child, name, value)
        if t == "argument_list":
            return self._argument_fact(sf, parent, child, value)
        if t == "conditional_expression":
            return self._branch_fact(sf, parent, child, value)
        if t in ("init_declarator", "assignment_expression") and depth < 2:
            return self._stored_fact(sf, parent, child, value, depth)
        return None

    def _binary_fact(self, sf: SourceFile, binary: Node, child: Node, name: str | None, value: int) -> str | None:
        op = _operator(sf, binary)
        left, right = binary.child_by_field_name("left"), binary.child_by_field_name("right")
        other = right if child == left else left
        if op in _COMPARE and other is not None:
            if self.type_size(sf, other):
                return "a type size (compared with a sizeof)"
            return self._bound_fact(sf, other, value)
        if op == "%" and child == right and value in CHECKED_UNITS and self._alignment_check(sf, binary):
            return "an alignment (the modulus lengths are checked against)"
        if value not in ALIGN_UNITS:
            return self._sizeof_counterpart(sf, child) if op in ("*", "/") else None
        if op == "-" and child == left and right is not None and sf.node_text(right) == "1":
            _, outer = _up(binary)
            if outer is not None and (outer.type == "unary_expression" or _operator(sf, outer) in ("&", "|")):
                return "an alignment (K - 1 as a bit mask)"
        if op in ("*", "/") and (found := self._sizeof_counterpart(sf, child)) is not None:
            return found
        if op == "/" and child == right:
            if name is not None and self._multiplied_back(sf, binary, name):
                return "an alignment (divided by, then multiplied back by)"
            if value in (BLOCK_BYTES, REPEAT_BYTES) and left is not None and self.bytes_expr(sf, left):
                return f"the {value}-byte {'block' if value == BLOCK_BYTES else 'repeat'} a byte length is divided by"
        return None

    def _alignment_check(self, sf: SourceFile, remainder: Node) -> bool:
        """Whether `x % K` tests or removes a misalignment: compared with 0 (`x % K == 0`, `!= 0`), a condition by
        itself, or subtracted (`x - x % K`). An index (`i % K`, the ping-pong buffer of a loop) is not."""
        child, outer = _up(remainder)
        if outer is None:
            return False
        op = _operator(sf, outer)
        if op in ("==", "!="):
            other = outer.child_by_field_name("right" if outer.child_by_field_name("left") == child else "left")
            return other is not None and sf.node_text(other).strip() in ("0", "0U", "0u")
        if op == "-":
            return outer.child_by_field_name("right") == child
        return outer.type in ("condition_clause", "if_statement", "unary_expression") and (
            outer.type != "unary_expression" or sf.node_text(outer).startswith("!")
        )

    def _bound_fact(self, sf: SourceFile, other: Node, value: int) -> str | None:
        """A bound at a field's documented limit, or the block or the repeat bounding a byte length."""
        if value in FIELD_LIMITS:
            return f"a hardware limit ({FIELD_LIMITS[value]})"
        if value in (BLOCK_BYTES, REPEAT_BYTES) and self.bytes_expr(sf, other):
            return f"the {value}-byte {'block' if value == BLOCK_BYTES else 'repeat'} as a bound on a byte length"
        return None

    def _argument_fact(self, sf: SourceFile, args: Node, child: Node, value: int) -> str | None:
        call = args.parent
        fn = call.child_by_field_name("function") if call is not None else None
        if fn is None:
            return None
        called = re.split(r"::|\.|->", sf.node_text(fn))[-1]
        position = [a for a in args.named_children if a.type != "comment"].index(child) if child in args.children else 0
        if _ALIGN_RE.search(called) and position > 0:
            return f"an alignment (the unit of {called})"
        if called in _MIN_MAX:
            others = [a for a in args.named_children if a.type != "comment" and a != child]
            return next((f for a in others if (f := self._bound_fact(sf, a, value)) is not None), None)
        return None

    def _branch_fact(self, sf: SourceFile, cond: Node, child: Node, value: int) -> str | None:
        branches = [cond.child_by_field_name("consequence"), cond.child_by_field_name("alternative")]
        if child not in branches:
            return None
        other = branches[1] if child == branches[0] else branches[0]
        if other is not None and self.type_size(sf, other):
            return "a type size (the other branch is a sizeof)"
        test = cond.child_by_field_name("condition")
        if test is not None and value in DTYPE_SIZES and _DTYPE_TEST_RE.search(sf.node_text(test)):
            return "a type size (chosen by a test of the data type)"
        return None

    def _stored_fact(self, sf: SourceFile, store: Node, child: Node, value: int, depth: int) -> str | None:
        """`v = K` (or `v = n * K`): a fact when v's uses show one, or when another definition of v is the same
        expression with a sizeof where K stands."""
        target = store.child_by_field_name("declarator") or store.child_by_field_name("left")
        value_node = store.child_by_field_name("value") or store.child_by_field_name("right")
        if target is None or target.type != "identifier" or value_node is None:
            return None
        var = sf.node_text(target)
        for side in (self.flow.host, self.flow.kernel):
            for dsf, start, end in side.defs(var):
                n = dsf.tree.root_node.named_descendant_for_byte_range(start, end)
                if n is not None and n != value_node and self.type_size(dsf, n):
                    return "a type size (another definition of the same variable is a sizeof)"
        if value_node == child:  # the whole value: what v does, K does
            for use_sf, use in self.uses_of(var, skip=(sf.path, target.start_byte)):
                found = self.use_fact(use_sf, use, var, value, depth + 1)
                if found is not None:
                    return found
        return None

    def _sizeof_counterpart(self, sf: SourceFile, use: Node) -> str | None:
        """A type size when the expression K stands in has a counterpart with a sizeof where K is: another
        definition of the variable it is stored in, the other branch of a `?:`, or the same argument of another
        call of the same function (`InitBuffer(q, 2, n * K)` beside `InitBuffer(q, 2, n * sizeof(half))`)."""
        top = use
        while top.parent is not None and top.parent.type in ("binary_expression", *_TRANSPARENT):
            top = top.parent
        container = top.parent
        if container is None:
            return None
        template = _squash(sf, top, {(use.start_byte, use.end_byte)})
        counterparts: list[tuple[SourceFile, Node]] = []
        if container.type in ("init_declarator", "assignment_expression"):
            target = container.child_by_field_name("declarator") or container.child_by_field_name("left")
            if target is not None and target.type == "identifier":
                for side in (self.flow.host, self.flow.kernel):
                    for dsf, start, end in side.defs(sf.node_text(target)):
                        n = dsf.tree.root_node.named_descendant_for_byte_range(start, end)
                        if n is not None:
                            counterparts.append((dsf, n))
        elif container.type == "conditional_expression":
            for field in ("consequence", "alternative"):
                n = container.child_by_field_name(field)
                if n is not None:
                    counterparts.append((sf, n))
        elif container.type == "argument_list" and container.parent is not None and not _is_conversion(container):
            counterparts += self._same_arguments(sf, container, top)
        for csf, n in counterparts:
            if n.start_byte == top.start_byte and csf.path == sf.path:
                continue
            sizes = {(s.start_byte, s.end_byte) for s in _descendants(n) if s.type == "sizeof_expression"}
            if sizes and _squash(csf, n, sizes) == template:
                return "a type size (the same expression elsewhere has a sizeof in its place)"
        return None

    def _same_arguments(self, sf: SourceFile, args: Node, arg: Node) -> list[tuple[SourceFile, Node]]:
        call = args.parent
        fn = call.child_by_field_name("function") if call is not None else None
        if fn is None:
            return []
        called = re.split(r"::|\.|->", sf.node_text(fn))[-1]
        position = [a for a in args.named_children if a.type != "comment"].index(arg)
        out = []
        for other_sf, c in self._calls_of(called):
            a = c.child_by_field_name("arguments")
            named = [x for x in a.named_children if x.type != "comment"] if a is not None else []
            if len(named) > position:
                out.append((other_sf, named[position]))
        return out

    def _calls_of(self, called: str) -> list[tuple[SourceFile, Node]]:
        """The calls of a function by its last name, over the sources (indexed once)."""
        if self._calls is None:
            self._calls = {}
            for other_sf in self.sources.values():
                for c in other_sf.facts("call"):
                    f = c.child_by_field_name("function")
                    if f is not None:
                        name = re.split(r"::|\.|->", other_sf.node_text(f))[-1]
                        self._calls.setdefault(name, []).append((other_sf, c))
        return self._calls.get(called, [])

    def uses_of(self, name: str, skip: tuple[str, int] | None = None) -> list[tuple[SourceFile, Node]]:
        """`uses(...)` of a name, found once per name."""
        if name not in self._uses:
            self._uses[name] = uses(self.sources, name)
        return [(sf, n) for sf, n in self._uses[name] if skip is None or (sf.path, n.start_byte) != skip]

    def _multiplied_back(self, sf: SourceFile, division: Node, name: str) -> bool:
        """Whether `x / K` is multiplied by K again: in the same expression (`x / K * K`, `(x + K - 1) / K * K`)
        or through the variable the quotient is stored in (`n = x / K; ...; n * K`)."""
        _, outer = _up(division)
        while outer is not None and outer.type == "binary_expression" and _operator(sf, outer) in ("+", "-"):
            _, outer = _up(outer)
        if _operator(sf, outer) == "*" and outer is not None and name in _operand_names(sf, outer):
            return True
        store = outer
        while store is not None and store.type not in ("init_declarator", "assignment_expression"):
            if store.type in ("expression_statement", "declaration", "compound_statement"):
                return False
            store = store.parent
        if store is None:
            return False
        target = store.child_by_field_name("declarator") or store.child_by_field_name("left")
        if target is None or target.type != "identifier":
            return False
        var = sf.node_text(target)
        for use_sf, use in self.uses_of(var, skip=(sf.path, target.start_byte)):
            _, p = _up(use)
            if p is not None and _operator(use_sf, p) == "*" and name in _operand_names(use_sf, p):
                return True
        return False


def _strip(node: Node) -> Node:
    """The expression under its parentheses, casts and one-argument conversions."""
    while True:
        if node.type == "parenthesized_expression" and node.named_children:
            node = node.named_children[0]
        elif node.type == "cast_expression" and node.child_by_field_name("value") is not None:
            node = node.child_by_field_name("value")  # type: ignore[assignment]
        elif (
            node.type == "call_expression"
            and (args := node.child_by_field_name("arguments")) is not None
            and (_is_conversion(args))
        ):
            node = args.named_children[0]
        else:
            return node


def _descendants(node: Node) -> list[Node]:
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(n.named_children)
    return out


def _squash(sf: SourceFile, node: Node, holes: set[tuple[int, int]]) -> str:
    """The expression's text without spaces, each span of `holes` written `@`: the shape two spellings share."""
    data = sf.data
    out, at = [], node.start_byte
    for start, end in sorted(holes):
        if start < at or end > node.end_byte:
            continue
        out.append(data[at:start].decode(errors="replace"))
        out.append("@")
        at = end
    out.append(data[at : node.end_byte].decode(errors="replace"))
    return re.sub(r"\s+", "", "".join(out))


def _up(node: Node) -> tuple[Node, Node | None]:
    """(the node as its context sees it, that context), through parentheses, casts and one-argument conversions."""
    child, parent = node, node.parent
    while parent is not None:
        if parent.type in _TRANSPARENT:
            child, parent = parent, parent.parent
        elif parent.type == "argument_list" and _is_conversion(parent) and parent.parent is not None:
            child, parent = parent.parent, parent.parent.parent
        else:
            break
    return child, parent


def _is_conversion(args: Node) -> bool:
    """Whether an argument list is a cast's or a one-argument conversion's (`static_cast<T>(x)`, `uint32_t(x)`)."""
    call = args.parent
    if call is None or call.type != "call_expression" or len(args.named_children) != 1:
        return False
    fn = call.child_by_field_name("function")
    text = fn.text.decode() if fn is not None and fn.text is not None else ""
    return "_cast" in text or bool(re.fullmatch(r"u?int\d*_t|size_t|int|unsigned|int64|uint64", text))


def _operator(sf: SourceFile, node: Node | None) -> str | None:
    if node is None or node.type != "binary_expression":
        return None
    op = node.child_by_field_name("operator")
    return sf.node_text(op) if op is not None else None


def _operand_names(sf: SourceFile, binary: Node) -> set[str]:
    out = set()
    for side in (binary.child_by_field_name("left"), binary.child_by_field_name("right")):
        n = side
        while n is not None and n.type in _TRANSPARENT:
            n = n.child_by_field_name("value") or (n.named_children[0] if n.named_children else None)
        if n is not None and n.type in ("identifier", "qualified_identifier"):
            out.add(sf.node_text(n).split("::")[-1])
    return out


def uses(
    sources: dict[str, SourceFile], name: str, skip: tuple[str, int] | None = None
) -> list[tuple[SourceFile, Node]]:
    """Every identifier named `name` in the sources (`skip`: the definition's own, by file and byte offset)."""
    pattern = re.compile(rb"\b" + re.escape(name.encode()) + rb"\b")
    out = []
    for sf in sources.values():
        if name.encode() not in sf.data:
            continue
        for m in pattern.finditer(sf.data):
            if skip is not None and (sf.path, m.start()) == skip:
                continue
            n = sf.tree.root_node.named_descendant_for_byte_range(m.start(), m.end())
            if n is not None and n.type in ("identifier", "qualified_identifier") and n.start_byte == m.start():
                out.append((sf, n))
    return out


def fact_of(
    model: OperatorModel, sources: dict[str, SourceFile], knob: Knob, facts: _Facts | None = None
) -> str | None:
    """Why `knob` states a fact rather than a choice (see the module), or None. A named constant is judged by every
    use of its name; a tiling-function literal by the place it stands and, when it is a variable's whole value, by
    that variable's uses."""
    facts = facts or _Facts(model, sources)
    sf = sources.get(knob.literal.file)
    if knob.kind == "tiling_literal":
        if sf is None:
            return None
        lit = sf.tree.root_node.named_descendant_for_byte_range(knob.literal.start, knob.literal.end)
        return facts.use_fact(sf, lit, None, knob.value) if lit is not None else None
    if knob.kind in ("platform", "set_block_dim", "launch"):
        return None
    for use_sf, use in facts.uses_of(knob.name):
        if _defines(use):
            continue  # the definition itself
        found = facts.use_fact(use_sf, use, knob.name, knob.value)
        if found is not None:
            return found
    return None


def _defines(node: Node) -> bool:
    """Whether an identifier is the name a declaration or `#define` defines."""
    parent = node.parent
    if parent is None:
        return False
    if parent.type == "init_declarator":
        return parent.child_by_field_name("declarator") == node
    return parent.type == "preproc_def"


def knob_facts(model: OperatorModel, sources: dict[str, SourceFile]) -> dict[str, str]:
    """The knobs of the model (named and tiling-function ones) that state facts, with why."""
    facts = _Facts(model, sources)
    out = {}
    for k in [*model.knobs, *model.tiling_knobs]:
        if k.name not in out and (why := fact_of(model, sources, k, facts)) is not None:
            out[k.name] = why
    return out
