"""What each knob's value does, read from the data flow: where it goes decides how a tuner searches it.

A constant's name says what its author called it; what the code does with it says what it is. `TILE_NUM` that is
passed to `SetBlockDim` is a core count, `BLOCK_SIZE` that divides the tile lengths is a divisor, and `NUM = 2`
that sizes an `InitBuffer`'s buffer count is a buffer count. So every place the hardware takes a decision of the
tiling is a sink, and the flow is followed back from each sink through the expressions that compute it:

- **cores**: `SetBlockDim(n)` in a tiling function, the `<<<n, ...>>>` of a kernel launch;
- **buffers**: an `InitBuffer`'s buffer count, a queue's depth template argument;
- **length**: an `InitBuffer`'s byte length, the element count of a `DataCopy`, the blockLen (and a block count
  that is not a literal) of the DataCopyParams a `DataCopy` or `DataCopyPad` is given; and apart, each `InitBuffer`
  site as **ub** (its count and its length), for how the Unified Buffer asked moves with the knob.

Going back through an expression keeps a sign: the operands of `+` and `*`, the numerator of `/` and `>>`, a
cast, `min`/`max`, the branches of `?:` keep it; what is divided by or subtracted flips it (`total / blockDim`
shrinks as blockDim grows). Names are followed through their definitions on their side (analysis/dataflow.py's
DefUse: declarations, assignments, the arguments bound to a parameter), a kernel name that is a tiling field into
the host's setter, a kernel's `GetBlockNum()` into the host's block count, and a compound assignment by its
operator (`n /= K` divides by K). Each name and each integer literal reached is recorded with the sinks it reaches
and the sign it reaches them with.

`knob_flows` gives, per knob (a named constant by its literal and name, a tiling-function literal by its literal),
a `KnobFlow`: the sinks it reaches, so its role (`role`) and its effect on the UB (`ub_effect`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from tree_sitter import Node

from tilewise.analysis.dataflow import OperatorFlow
from tilewise.analysis.model import Expr, KnobRole, OperatorModel
from tilewise.analysis.source import SourceFile
from tilewise.analysis.treeutil import descendants

CORES, BUFFERS, LENGTH = "cores", "buffers", "length"
UB_PREFIX = "ub@"  # a sink "ub@FILE:LINE": the InitBuffer at that line (its count or its length)

_KEEP = frozenset(("+", "*", "<<"))
_NUMERATOR = frozenset(("/", ">>", "%"))  # the left operand keeps the sign; the right one of `/` and `>>` flips it
_FLIP_RIGHT = frozenset(("/", ">>", "-"))
_MIN_MAX = frozenset(("min", "max", "Min", "Max", "MIN", "MAX", "fmin", "fmax"))
_CASTS = frozenset(("static_cast", "reinterpret_cast", "const_cast", "int32_t", "uint32_t", "int64_t", "uint64_t"))
_CEIL_RE = re.compile(r"ceil|div", re.IGNORECASE)  # CeilDiv(a, b), DivCeil(a, b): grows with a, shrinks with b
_ALIGN_RE = re.compile(r"align|round", re.IGNORECASE)  # AlignUp(a, b): grows with a; b is a unit
_COPIES = ("DataCopy",)
_BLOCK_NUM = frozenset(("GetBlockNum",))  # the kernel's view of the launch's block count
_COMPOUND = {"+=": 1, "*=": 1, "<<=": 1, "-=": -1, "/=": -1, ">>=": -1}
_IDENT_RE = re.compile(r"[A-Za-z_]\w*")
_LIMIT = 6000  # expressions visited per sink: coarse def-use maps can be large on big operators

Hit = tuple[str, int]  # (sink, sign)


@dataclass(frozen=True, slots=True)
class KnobFlow:
    """The sinks one knob reaches, each with the signs it reaches it with (+1: the sink grows with the knob)."""

    sinks: frozenset[Hit] = frozenset()

    def reaches(self, sink: str) -> bool:
        return any(s == sink for s, _ in self.sinks)

    def signs(self, sink: str) -> set[int]:
        return {sign for s, sign in self.sinks if s == sink}

    @property
    def role(self) -> KnobRole | None:
        """What the knob is, by what it decides: a core count, a buffer count, a tile length (grows the lengths),
        a divisor (shrinks them); None when it reaches no sink the flow can see."""
        if self.reaches(CORES):
            return "block_dim"
        if self.reaches(BUFFERS):
            return "buffer_num"
        signs = self.signs(LENGTH)
        if 1 in signs:
            return "tile"
        if -1 in signs:
            return "divisor"
        return None

    @property
    def ub_sites(self) -> dict[str, set[int]]:
        """The InitBuffer sites ("FILE:LINE") the knob sizes, with the signs it sizes each with."""
        out: dict[str, set[int]] = {}
        for s, sign in self.sinks:
            if s.startswith(UB_PREFIX):
                out.setdefault(s[len(UB_PREFIX) :], set()).add(sign)
        return out

    @property
    def ub_effect(self) -> int:
        """+1 when every InitBuffer the knob sizes grows with it, -1 when every one shrinks, else 0 (none, or some
        of each: BUFFER_NUM buffers of a length it also divides)."""
        signs = set().union(*self.ub_sites.values()) if self.ub_sites else set()
        return signs.pop() if len(signs) == 1 else 0


@dataclass
class _Walk:
    """One operator's walk back from every sink: the hits of each name and each literal."""

    flow: OperatorFlow
    names: dict[str, set[Hit]] = field(default_factory=dict)
    literals: dict[tuple[str, int], set[Hit]] = field(default_factory=dict)

    def from_sink(self, sink: str, sf: SourceFile, node: Node, kernel: bool) -> None:
        seen: set[tuple] = set()
        stack: list[tuple[SourceFile, Node, bool, int]] = [(sf, node, kernel, 1)]
        visits = 0
        while stack and visits < _LIMIT:
            sf, node, kernel, sign = stack.pop()
            key = (sf.path, node.start_byte, node.end_byte, kernel, sign)
            if key in seen:
                continue
            seen.add(key)
            visits += 1
            for item in self._step(sink, sf, node, kernel, sign):
                stack.append(item)

    def from_name(self, sink: str, name: str, kernel: bool) -> None:
        """A sink written as text only (a queue's depth): its names, followed like any."""
        stack = list(self._name(sink, name, kernel, 1, set()))
        seen: set[tuple] = set()
        visits = 0
        while stack and visits < _LIMIT:
            sf, node, side, sign = stack.pop()
            key = (sf.path, node.start_byte, node.end_byte, side, sign)
            if key in seen:
                continue
            seen.add(key)
            visits += 1
            stack.extend(self._step(sink, sf, node, side, sign))

    def _record_name(self, name: str, sink: str, sign: int) -> None:
        self.names.setdefault(name, set()).add((sink, sign))

    def _step(self, sink: str, sf: SourceFile, node: Node, kernel: bool, sign: int) -> list:
        """What to visit next from `node`, whose value reaches `sink` with `sign`."""
        t = node.type
        if t == "number_literal":
            self.literals.setdefault((sf.path, node.start_byte), set()).add((sink, sign))
            return []
        if t in ("identifier", "field_identifier"):
            return self._name(sink, sf.node_text(node), kernel, sign, set())
        if t == "field_expression":
            member = node.child_by_field_name("field")
            return self._name(sink, sf.node_text(member), kernel, sign, set()) if member is not None else []
        if t == "qualified_identifier":
            return self._name(sink, sf.node_text(node).split("::")[-1], kernel, sign, set())
        if t in ("parenthesized_expression", "initializer_list", "argument_list"):
            return [(sf, c, kernel, sign) for c in node.named_children if c.type != "comment"]
        if t == "cast_expression":
            value = node.child_by_field_name("value")
            return [(sf, value, kernel, sign)] if value is not None else []
        if t == "unary_expression":
            arg = node.child_by_field_name("argument")
            op = sf.node_text(node)[:1]
            return [(sf, arg, kernel, -sign if op == "-" else sign)] if arg is not None and op in "-+" else []
        if t == "binary_expression":
            return self._binary(sf, node, kernel, sign)
        if t == "conditional_expression":
            branches = (node.child_by_field_name("consequence"), node.child_by_field_name("alternative"))
            return [(sf, b, kernel, sign) for b in branches if b is not None]
        if t == "assignment_expression":
            right = node.child_by_field_name("right")
            return [(sf, right, kernel, sign)] if right is not None else []
        if t == "call_expression":
            return self._call(sf, node, kernel, sign)
        return []

    def _binary(self, sf: SourceFile, node: Node, kernel: bool, sign: int) -> list:
        op_node = node.child_by_field_name("operator")
        op = sf.node_text(op_node) if op_node is not None else ""
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        out = []
        if op in _KEEP or op == "-":
            out += [(sf, left, kernel, sign)] if left is not None else []
            if right is not None:
                out.append((sf, right, kernel, -sign if op in _FLIP_RIGHT else sign))
        elif op in _NUMERATOR:
            out += [(sf, left, kernel, sign)] if left is not None else []
            if right is not None and op in _FLIP_RIGHT:
                out.append((sf, right, kernel, -sign))
        elif op == "&" and left is not None:  # `x & ~31`: the value is x's, the mask a unit
            out.append((sf, left, kernel, sign))
        return out

    def _call(self, sf: SourceFile, node: Node, kernel: bool, sign: int) -> list:
        fn = node.child_by_field_name("function")
        args_node = node.child_by_field_name("arguments")
        if fn is None or args_node is None:
            return []
        if fn.type == "template_function":
            fn = fn.child_by_field_name("name") or fn
        name = re.split(r"::|\.|->", sf.node_text(fn))[-1]
        args = [a for a in args_node.named_children if a.type != "comment"]
        if name in _BLOCK_NUM and kernel and not args:
            return self._block_count(sign)
        if not args:
            return []
        if name in _MIN_MAX:
            return [(sf, a, kernel, sign) for a in args]
        if name in _CASTS or (len(args) == 1 and re.fullmatch(r"u?int\d*_t|size_t|int|unsigned", name)):
            return [(sf, args[0], kernel, sign)]
        if _ALIGN_RE.search(name) and "get" not in name.lower():
            return [(sf, args[0], kernel, sign)]
        if _CEIL_RE.search(name) and len(args) == 2 and "get" not in name.lower():
            return [(sf, args[0], kernel, sign), (sf, args[1], kernel, -sign)]
        return []

    def _block_count(self, sign: int) -> list:
        """`GetBlockNum()` in a kernel is the launch's block count: what the host passes to SetBlockDim, or the
        `<<<n, ...>>>` of a launch, so a core count that sizes each core's share reaches the kernel's buffers."""
        model = self.flow.model
        exprs = [e for tf in model.tiling.functions for e in tf.block_dim] + [x.block_dim for x in model.launches]
        return [(found[0], found[1], False, sign) for e in exprs if (found := _node(self.flow.sources, e)) is not None]

    def _name(self, sink: str, name: str, kernel: bool, sign: int, _seen: set) -> list:
        self._record_name(name, sink, sign)
        out = []
        side = self.flow.kernel if kernel else self.flow.host
        for dsf, start, end in side.defs(name):
            n = dsf.tree.root_node.named_descendant_for_byte_range(start, end)
            if n is None:
                continue
            out.append((dsf, n, kernel, sign * _compound_sign(dsf, n)))
        if kernel and name in self.flow.fields:
            # A tiling field: its value is what the host stores, by setter or by assignment to the field.
            out += [(hsf, hnode, False, sign) for hsf, hnode in self.flow.setter_exprs(name)]
            for dsf, start, end in self.flow.host.defs(name):
                n = dsf.tree.root_node.named_descendant_for_byte_range(start, end)
                if n is not None:
                    out.append((dsf, n, False, sign * _compound_sign(dsf, n)))
        return out


def _compound_sign(sf: SourceFile, value: Node) -> int:
    """The sign a definition's value reaches its variable with: -1 for `v /= e` and `v -= e`, else +1."""
    parent = value.parent
    if parent is None or parent.type != "assignment_expression":
        return 1
    op = parent.child_by_field_name("operator")
    return _COMPOUND.get(sf.node_text(op), 1) if op is not None else 1


def _node(sources: dict[str, SourceFile], expr: Expr, base: int = 0) -> tuple[SourceFile, Node] | None:
    """The tree node of a model expression (`base`: the start of its call, for an API call's argument)."""
    if expr.loc is not None:
        file, start, end = expr.loc.file, expr.loc.start, expr.loc.end
    else:
        return None
    sf = sources.get(file)
    if sf is None:
        return None
    n = sf.tree.root_node.named_descendant_for_byte_range(start + base, end + base)
    return (sf, n) if n is not None else None


def _sinks(model: OperatorModel, sources: dict[str, SourceFile]) -> Iterable[tuple[str, SourceFile, Node, bool]]:
    """(sink, file, node, whether on the kernel side) for every sink of the operator (see the module)."""
    kernel_files = set(model.kernel_files)
    for tf in model.tiling.functions:
        for e in tf.block_dim:
            if (found := _node(sources, e)) is not None:
                yield CORES, found[0], found[1], False
    for launch in model.launches:
        if (found := _node(sources, launch.block_dim)) is not None:
            yield CORES, found[0], found[1], False
    for b in model.init_buffers:
        site = f"{UB_PREFIX}{b.loc.file}:{b.loc.line}"
        for expr, sinks in ((b.num, (BUFFERS, site)), (b.size, (LENGTH, site))):
            found = _node(sources, expr)
            if found is None:
                continue
            for sink in sinks:
                yield sink, found[0], found[1], found[0].path in kernel_files or model.layout == "invocation"
    for call in model.calls(*_COPIES, "DataCopyPad"):
        if len(call.args) < 3 or call.loc.file not in sources:
            continue
        sf = sources[call.loc.file]
        arg = call.args[2]
        n = sf.tree.root_node.named_descendant_for_byte_range(call.loc.start + arg.start, call.loc.start + arg.end)
        if n is None:
            continue
        fields = _copy_param_fields(sf, n)
        for field_value in fields:
            yield LENGTH, sf, field_value, True
        if call.name in _COPIES and len(call.args) == 3 and not fields:
            yield LENGTH, sf, n, True  # DataCopy(dst, src, count)


def _copy_param_fields(sf: SourceFile, arg: Node) -> list[Node]:
    """The blockCount and blockLen a copy's DataCopyParams / DataCopyExtParams argument is built with (the copy
    moves blockCount blocks of blockLen): the first two values of a braced or called construction written in the
    call (`{1, len, 0, 0}`, `DataCopyParams(1, len, 0, 0)`) or in the declaration of the variable passed, and the
    values assigned to its `.blockCount` / `.blockLen` in the function around the call. A literal block count (one
    burst) is left out: more bursts of the same length copy other data, not a larger tile. Empty for anything else
    (a plain count)."""
    if arg.type in ("initializer_list", "compound_literal_expression", "call_expression"):
        return _leading_values(arg)
    if arg.type != "identifier":
        return []
    name = sf.node_text(arg)
    fn = arg.parent
    while fn is not None and fn.type != "function_definition":
        fn = fn.parent
    if fn is None:
        return []
    out: list[Node] = []
    for n in descendants(fn, ("init_declarator", "assignment_expression")):
        if n.start_byte > arg.start_byte:
            break  # only what is set before the copy
        if n.type == "init_declarator":
            decl, value = n.child_by_field_name("declarator"), n.child_by_field_name("value")
            if decl is not None and value is not None and sf.node_text(decl) == name:
                out += _leading_values(value)
            continue
        left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
        if left is None or right is None or left.type != "field_expression":
            continue
        base, member = left.child_by_field_name("argument"), left.child_by_field_name("field")
        if base is None or member is None or sf.node_text(base) != name:
            continue
        field_name = sf.node_text(member)
        if field_name == "blockLen" or (field_name == "blockCount" and right.type != "number_literal"):
            out.append(right)
    return out


def _leading_values(value: Node) -> list[Node]:
    """blockCount and blockLen: the first two values of `{a, b, ...}`, `T{a, b, ...}` or `T(a, b, ...)`."""
    if value.type == "compound_literal_expression":
        value = value.child_by_field_name("value") or value
    elif value.type == "call_expression":
        value = value.child_by_field_name("arguments") or value
    if value.type not in ("initializer_list", "argument_list"):
        return []
    count_len = [c for c in value.named_children if c.type != "comment"][:2]
    return [c for i, c in enumerate(count_len) if i == 1 or c.type != "number_literal"]


def knob_flows(model: OperatorModel, sources: dict[str, SourceFile]) -> dict[str, KnobFlow]:
    """Each knob's KnobFlow by name (the model's named constants and the tiling function's knobs)."""
    walk = _Walk(OperatorFlow(model, sources))
    for sink, sf, node, kernel in _sinks(model, sources):
        walk.from_sink(sink, sf, node, kernel)
    for q in model.queues:
        for name in _IDENT_RE.findall(q.depth_expr or ""):
            walk.from_name(BUFFERS, name, True)
    out: dict[str, KnobFlow] = {}
    for k in model.knobs:
        if k.kind in ("set_block_dim", "launch"):
            continue
        hits = walk.literals.get((k.literal.file, k.literal.start), set()) | walk.names.get(k.name, set())
        out.setdefault(k.name, KnobFlow(frozenset(hits)))
    for k in model.tiling_knobs:
        if k.kind == "tiling_literal":
            out[k.name] = KnobFlow(frozenset(walk.literals.get((k.literal.file, k.literal.start), set())))
    return out
