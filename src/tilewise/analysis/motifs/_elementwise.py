"""What a per-element loop computes, read from its syntax tree as an expression over whole tiles.

The scalar loop `for (k = 0; k < n; k++) { float v = (float)x.GetValue(k); if (v < lo) v = lo; z.SetValue(k, (T)v); }`
computes, for every element, one expression of the loaded values and of scalars that do not change in the loop.
`read_loop` executes the body symbolically over that expression language:

- leaves: `Load` (a tensor's element at the loop index, or at the index plus a loop-invariant offset) and `Scalar`
  (a loop-invariant expression: a literal, a member, a parameter, a tiling field), each with its C++ type;
- nodes: `Conv` (an explicit cast, or the implicit conversion of an assignment or a store), `Bin` (`+ - * /`),
  `Fn` (`max`, `min`, `abs`, `neg`, `exp`, `log`, `sqrt`), `Ite` (a ternary or the merge of an if/else) over a `Cmp`.

Declarations and assignments of locals update an environment, an `if`/`else` runs both branches and merges each
local (and each store) that differs as an `Ite`, and a `SetValue(k, e)` stores `e` converted to the tensor's
element type. analysis/motifs/_selects.py then turns the selects a vector unit has instructions for into
functions (min, max, abs, clamps). A body this language does not cover (another call, a gather, a store under a
condition only one branch takes) reads as None: no vector rewrite is offered for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tree_sitter import Node

from tilewise.analysis.motifs._scalar_types import (
    FLOATS,
    INTS,
    arithmetic,
    canon,
    declared_type,
    literal_fits,
    literal_type,
    number,
)
from tilewise.analysis.source import SourceFile

_FUNCS = {
    "max": "max", "fmax": "max", "fmaxf": "max", "Max": "max",
    "min": "min", "fmin": "min", "fminf": "min", "Min": "min",
    "abs": "abs", "fabs": "abs", "fabsf": "abs", "Abs": "abs",
    "exp": "exp", "expf": "exp", "log": "log", "logf": "log", "sqrt": "sqrt", "sqrtf": "sqrt",
}  # fmt: skip
_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}


# ---- the expression language -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Load:
    tensor: str  # the tensor expression as written, `this->` and all (`xLocal`, `buf[off]`)
    offset: str | None  # a loop-invariant offset added to the loop index, as written (None: the index itself)
    ctype: str  # its element type as declared (`T`, `half`)


@dataclass(frozen=True)
class Scalar:
    text: str
    ctype: str  # the C++ type of the expression ("double" for `0.5`, "float" for `0.5f`, "int32_t" for `2`)


@dataclass(frozen=True)
class Conv:
    x: Expr
    to: str


@dataclass(frozen=True)
class Bin:
    op: str  # + - * /
    a: Expr
    b: Expr


@dataclass(frozen=True)
class Fn:
    name: str  # max min abs neg exp log sqrt
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Cmp:
    op: str
    a: Expr
    b: Expr


@dataclass(frozen=True)
class Ite:
    cond: Cmp
    a: Expr
    b: Expr


Expr = Load | Scalar | Conv | Bin | Fn | Ite


@dataclass
class LoopRead:
    """What an element loop computes: its index, its element count (as text), the first element, and each tensor it
    stores with the expression stored (already converted to the tensor's element type)."""

    var: str
    count: str
    start: str  # "0" for a loop from the first element
    stores: dict[str, Expr]
    dst_types: dict[str, str]


class _Unsupported(Exception):
    """The body holds something the expression language does not cover."""


def _f(n: Node | None, name: str | None = None) -> Node:
    """`n` (or its child `name`), which the grammar may leave out: a missing one is no body of the language."""
    found = n if name is None or n is None else n.child_by_field_name(name)
    if found is None:
        raise _Unsupported("a missing node")
    return found


# ---- types ---------------------------------------------------------------------------------------------------


def ctype_of(e: Expr, types: dict[str, str]) -> str:
    """The C++ type of an expression once the type parameters are bound (`types`: `T` -> `half`). Arithmetic
    follows the usual conversions, with half and bfloat16 promoted to float (as the emulator's types, and the
    device compiler's scalar unit, compute them)."""
    if isinstance(e, Load | Scalar):
        return types.get(e.ctype, e.ctype)
    if isinstance(e, Conv):
        return types.get(e.to, e.to)
    if isinstance(e, Bin):
        return arithmetic(ctype_of(e.a, types), ctype_of(e.b, types))
    if isinstance(e, Fn):
        if e.name in ("max", "min") and len(e.args) == 2:
            return arithmetic(ctype_of(e.args[0], types), ctype_of(e.args[1], types))
        inner = ctype_of(e.args[0], types)
        return inner if e.name in ("neg", "abs") else arithmetic(inner, "float")
    return arithmetic(ctype_of(e.a, types), ctype_of(e.b, types))


# ---- reading a loop ------------------------------------------------------------------------------------------


class _Reader:
    def __init__(self, sf: SourceFile, fn: Node, var: str, type_names: set[str]):
        self.sf, self.fn, self.var = sf, fn, var
        self.type_names = type_names
        self.env: dict[str, Expr] = {}
        self.local_types: dict[str, str] = {}
        self.stores: dict[str, Expr] = {}
        self.dst_types: dict[str, str] = {}
        self.steps: set[str] = {var}  # names a while loop steps in its body (skipped as statements)

    def text(self, n: Node | None) -> str:
        return self.sf.node_text(_f(n))

    # statements
    def block(self, n: Node) -> None:
        if n.type == "compound_statement":
            for c in n.named_children:
                if c.type != "comment":
                    self.block(c)
        elif n.type == "declaration":
            self.declaration(n)
        elif n.type == "expression_statement":
            inner = [c for c in n.named_children if c.type != "comment"]
            if inner:
                self.effect(inner[0])
        elif n.type == "if_statement":
            self.branch(n)
        else:
            raise _Unsupported(n.type)

    def declaration(self, n: Node) -> None:
        tnode = _f(n, "type")
        ctype = canon(self.text(tnode)) if tnode is not None else ""
        for d in n.children_by_field_name("declarator"):
            if d.type != "init_declarator":
                raise _Unsupported("a local without a value")
            name = self.text(_f(d, "declarator")).strip()
            value = _f(d, "value")
            if value is None or not name.isidentifier():
                raise _Unsupported("declarator")
            e = self.expr(value)
            t = ctype if ctype != "auto" else _static_type(e)
            if t not in FLOATS and t not in INTS and t not in self.type_names:
                raise _Unsupported(f"a local of type {t}")
            self.local_types[name] = t
            self.env[name] = _conv(e, t)

    def effect(self, n: Node) -> None:
        if n.type == "assignment_expression":
            left, right = _f(n, "left"), _f(n, "right")
            op = self.text(_f(n, "operator"))
            name = self.text(left).strip()
            element = self.element(left)
            if element is not None:  # `z(k) = e`, `z(k) += e`: a store through the tensor's element reference
                tensor, index = element
                value = self.expr(right)
                if op != "=":
                    if op[:-1] not in "+-*/":
                        raise _Unsupported(op)
                    value = Bin(op[:-1], self.load(tensor, index), value)
                self.put(tensor, index, value)
                return
            if name not in self.local_types:
                raise _Unsupported("an assignment to something not local to the loop body")
            value = self.expr(right)
            if op != "=":
                if op[:-1] not in "+-*/":
                    raise _Unsupported(op)
                value = Bin(op[:-1], self.env[name], value)
            self.env[name] = _conv(value, self.local_types[name])
            return
        if n.type == "update_expression":
            arg = _f(n, "argument")
            if arg is not None and self.text(arg).strip() in self.steps:
                return  # the while loop's own step
            raise _Unsupported("a step of something else")
        if n.type == "call_expression":
            fn = _f(n, "function")
            if fn is not None and fn.type == "field_expression" and self.text(_f(fn, "field")) == ("SetValue"):
                self.store(_f(fn, "argument"), _f(n, "arguments"))
                return
        raise _Unsupported(n.type)

    def store(self, receiver: Node, args: Node) -> None:
        parts = [a for a in args.named_children if a.type != "comment"]
        if len(parts) != 2:
            raise _Unsupported("SetValue arity")
        self.put(receiver, parts[0], self.expr(parts[1]))

    def put(self, receiver: Node, index: Node, e: Expr) -> None:
        """Store `e` at the loop's element of the tensor, converted to its element type."""
        tensor, offset = self.tensor_at(receiver, index)
        key = tensor if offset is None else f"{tensor}[{offset}]"
        elem = self.tensor_type(tensor)
        self.stores[key] = _conv(e, elem)
        self.dst_types[key] = elem

    def load(self, receiver: Node, index: Node) -> Expr:
        """The loop's element of the tensor: what this iteration stored there, else a Load."""
        tensor, offset = self.tensor_at(receiver, index)
        key = tensor if offset is None else f"{tensor}[{offset}]"
        if key in self.stores:
            return self.stores[key]  # read back what this iteration stored
        if any(k.split("[")[0] == tensor for k in self.stores):
            raise _Unsupported("a read of a stored tensor at another offset")
        return Load(tensor, offset, self.tensor_type(tensor))

    def element(self, n: Node) -> tuple[Node, Node] | None:
        """(tensor, index) of an element access written `t(i)` on a local tensor (its `operator()`), else None."""
        if n.type != "call_expression":
            return None
        fn, args = n.child_by_field_name("function"), n.child_by_field_name("arguments")
        parts = [a for a in args.named_children if a.type != "comment"] if args is not None else []
        if fn is None or len(parts) != 1 or fn.type not in ("identifier", "field_expression"):
            return None
        base = re.split(r"[\[.]", self.text(fn).replace("this->", ""))[0].strip()
        found = declared_type(self.sf, self.fn, base) or ""
        return (fn, parts[0]) if re.fullmatch(r"(?:AscendC::)?LocalTensor\s*<.*>", found) else None

    def branch(self, n: Node) -> None:
        cond = self.condition(_f(n, "condition"))
        saved_env, saved_stores = dict(self.env), dict(self.stores)
        self.block(_f(n, "consequence"))
        then_env, then_stores = self.env, self.stores
        self.env, self.stores = dict(saved_env), dict(saved_stores)
        alt = n.child_by_field_name("alternative")
        if alt is not None:
            body = alt.named_children[0] if alt.type == "else_clause" and alt.named_children else alt
            self.block(body)
        for name in set(then_env) | set(self.env):
            a, b = then_env.get(name), self.env.get(name)
            if a is None or b is None:
                continue  # a local declared in one branch only ends with it
            if a != b:
                self.env[name] = Ite(cond, a, b)
        for key in set(then_stores) | set(self.stores):
            a, b = then_stores.get(key), self.stores.get(key)
            if a is None or b is None:
                raise _Unsupported("a store only one branch makes")
            if a != b:
                self.stores[key] = Ite(cond, a, b)

    def condition(self, n: Node | None) -> Cmp:
        while n is not None and n.type in ("condition_clause", "parenthesized_expression"):
            inner = n.child_by_field_name("value") or next((c for c in n.named_children if c.type != "comment"), None)
            n = inner
        if n is None or n.type != "binary_expression":
            raise _Unsupported("condition")
        op = self.text(_f(n, "operator"))
        if op not in _FLIP:
            raise _Unsupported(op)
        return Cmp(op, self.expr(_f(n, "left")), self.expr(_f(n, "right")))

    # expressions
    def expr(self, n: Node) -> Expr:
        t = n.type
        if t == "parenthesized_expression":
            inner = [c for c in n.named_children if c.type != "comment"]
            if len(inner) != 1:
                raise _Unsupported("comma")
            return self.expr(inner[0])
        if t == "number_literal":
            return Scalar(self.text(n), literal_type(self.text(n)))
        if t in ("identifier", "field_expression", "qualified_identifier", "true", "false"):
            name = self.text(n).strip()
            if name in self.env:
                return self.env[name]
            return self.invariant(n)
        if t == "cast_expression":
            return _conv(self.expr(_f(n, "value")), canon(self.text(_f(n, "type"))))
        if t == "unary_expression":
            op = self.text(_f(n, "operator"))
            arg = self.expr(_f(n, "argument"))
            if op == "+":
                return arg
            if op == "-":
                return Scalar(f"-{_paren(arg.text)}", arg.ctype) if isinstance(arg, Scalar) else Fn("neg", (arg,))
            raise _Unsupported(op)
        if t == "binary_expression":
            op = self.text(_f(n, "operator"))
            if op not in ("+", "-", "*", "/"):
                raise _Unsupported(op)
            a, b = self.expr(_f(n, "left")), self.expr(_f(n, "right"))
            if isinstance(a, Scalar) and isinstance(b, Scalar):
                return Scalar(f"{_paren(a.text)} {op} {_paren(b.text)}", arithmetic(a.ctype, b.ctype))
            return Bin(op, a, b)
        if t == "conditional_expression":
            cond = self.condition(_f(n, "condition"))
            then = self.expr(_f(n, "consequence"))
            return Ite(cond, then, self.expr(_f(n, "alternative")))
        if t == "call_expression":
            return self.call(n)
        raise _Unsupported(t)

    def call(self, n: Node) -> Expr:
        fn = _f(n, "function")
        args = [a for a in _f(n, "arguments").named_children if a.type != "comment"]
        method = self.text(_f(fn, "field")) if fn.type == "field_expression" else ""
        if method == "GetValue" and len(args) == 1:
            return self.load(_f(fn, "argument"), args[0])
        element = self.element(n)
        if element is not None:
            return self.load(*element)
        cast = self.cast_type(fn)
        if cast is not None and len(args) == 1:
            return _conv(self.expr(args[0]), cast)
        name = self.text(fn).split("::")[-1]
        name = re.sub(r"<.*", "", name).strip()
        func = _FUNCS.get(name)
        if func is not None:
            parts = tuple(self.expr(a) for a in args)
            if func in ("max", "min") and len(parts) == 2:
                return Fn(func, parts)
            if func not in ("max", "min") and len(parts) == 1:
                return Fn(func, parts)
        if not self.depends(n):
            return self.invariant(n)
        raise _Unsupported(f"a call of {name}")

    def cast_type(self, fn: Node) -> str | None:
        """The type a call-shaped cast converts to: `static_cast<float>(e)`, `float(e)`, `(T)(e)`, or None."""
        if fn.type == "template_function" and self.text(_f(fn, "name")) == "static_cast":
            return canon(self.text(_f(fn, "arguments"))[1:-1])
        if fn.type == "primitive_type" or (fn.type in ("identifier", "type_identifier") and self.is_type(fn)):
            return canon(self.text(fn))
        if fn.type == "parenthesized_expression":
            inner = [c for c in fn.named_children if c.type != "comment"]
            if len(inner) == 1 and inner[0].type in ("identifier", "primitive_type") and self.is_type(inner[0]):
                return canon(self.text(inner[0]))
        return None

    def is_type(self, n: Node) -> bool:
        name = canon(self.text(n))
        return name in FLOATS or name in INTS or name in self.type_names

    def tensor_at(self, receiver: Node, index: Node) -> tuple[str, str | None]:
        """The tensor an access names and the offset it adds to the loop index (`x.GetValue(k)` -> (x, None),
        `x.GetValue(base + k)` -> (x, base))."""
        tensor = self.text(receiver).strip()
        if "GetValue" in tensor or re.search(rf"\b{re.escape(self.var)}\b", tensor):
            raise _Unsupported("a tensor chosen per element")
        idx = self.text(index).strip()
        if idx == self.var:
            return tensor, None
        m = re.fullmatch(rf"(.+?)\s*\+\s*{re.escape(self.var)}|{re.escape(self.var)}\s*\+\s*(.+)", idx)
        offset = (m.group(1) or m.group(2)).strip() if m else None
        if offset is None or re.search(rf"\b{re.escape(self.var)}\b|GetValue|\(", offset):
            raise _Unsupported("an index that is not the element's")
        if any(re.search(rf"\b{re.escape(name)}\b", offset) for name in self.local_types):
            raise _Unsupported("an index made in the loop")
        return tensor, offset

    def tensor_type(self, tensor: str) -> str:
        found = declared_type(self.sf, self.fn, re.split(r"[\[.]", tensor.replace("this->", ""))[0].strip())
        m = re.fullmatch(r"(?:AscendC::)?LocalTensor\s*<\s*([\w:]+)\s*>", found or "")
        if m is None:
            raise _Unsupported("not a local tensor")
        return canon(m.group(1))

    def depends(self, n: Node) -> bool:
        text = self.text(n)
        names = {self.var, *self.local_types}
        return "GetValue" in text or any(re.search(rf"\b{re.escape(x)}\b", text) for x in names)

    def invariant(self, n: Node) -> Scalar:
        if self.depends(n):
            raise _Unsupported("the index used as a value")
        text = self.text(n).strip()
        if n.type in ("true", "false"):
            return Scalar(text, "bool")
        base = re.sub(r"^(?:this->|\w+(?:\.|->))", "", text)
        found = declared_type(self.sf, self.fn, base) if base.isidentifier() else None
        if found is None:
            raise _Unsupported(f"a scalar of unknown type: {text}")
        return Scalar(text, canon(found))


def _paren(text: str) -> str:
    return text if re.fullmatch(r"[\w.>\-]+", text) and not text.startswith("-") else f"({text})"


def _conv(e: Expr, to: str) -> Expr:
    """`e` converted to `to`: a scalar stays a scalar (a literal exact in `to` as it is, else cast in C++)."""
    if isinstance(e, Scalar):
        if e.ctype == to:
            return e
        value = number(e.text)
        if value is not None and literal_fits(value, to):
            return Scalar(e.text, to)
        return Scalar(f"static_cast<{to}>({e.text})", to)
    return e if isinstance(e, Conv) and e.to == to else Conv(e, to)


def _static_type(e: Expr) -> str:
    if isinstance(e, Load | Scalar):
        return e.ctype
    if isinstance(e, Conv):
        return e.to
    raise _Unsupported("auto of a computed value")


# ---- the loop ------------------------------------------------------------------------------------------------


def read_loop(sf: SourceFile, loop: Node, fn: Node, type_names: set[str]) -> LoopRead | None:
    """What the element loop computes (see the module), or None when it is no element loop of this language: a
    `for` or `while` from a start to a count by one, whose body stores at the index and reads at it."""
    header = _header(sf, loop)
    if header is None:
        return None
    var, start, count, body = header
    reader = _Reader(sf, fn, var, type_names)
    try:
        reader.block(body)
    except (_Unsupported, KeyError, AttributeError):
        return None
    if not reader.stores:
        return None
    return LoopRead(var, count, start, dict(reader.stores), reader.dst_types)


def _header(sf: SourceFile, loop: Node) -> tuple[str, str, str, Node] | None:
    """(index, first value, element count, body) of a loop that steps by one from a start to a bound."""
    body = loop.child_by_field_name("body")
    cond = loop.child_by_field_name("condition")
    while cond is not None and cond.type in ("condition_clause", "parenthesized_expression"):
        cond = cond.child_by_field_name("value") or next((c for c in cond.named_children if c.type != "comment"), None)
    if body is None or cond is None or cond.type != "binary_expression":
        return None
    var = sf.node_text(cond.child_by_field_name("left")).strip()
    op = sf.node_text(cond.child_by_field_name("operator"))
    bound = sf.node_text(cond.child_by_field_name("right")).strip()
    if not var.isidentifier() or op not in ("<", "<=", "!="):
        return None
    if loop.type == "for_statement":
        init = sf.node_text(loop.child_by_field_name("initializer") or loop).strip().rstrip(";")
        update = sf.node_text(loop.child_by_field_name("update") or loop).strip()
        m = re.fullmatch(rf"(?:[\w:]+\s+)?{re.escape(var)}\s*=\s*(.+)", init, re.S)
        step = rf"\+\+\s*{re.escape(var)}|{re.escape(var)}\s*\+\+|{re.escape(var)}\s*\+=\s*1[uU]?"
        if m is None or re.fullmatch(step, update) is None:
            return None
        start = m.group(1).strip()
    elif loop.type == "while_statement":
        steps = re.findall(rf"(?:\+\+\s*{re.escape(var)}|{re.escape(var)}\s*\+\+)\s*;", sf.node_text(body))
        if len(steps) != 1 or not _steps_last(sf, body, var):
            return None
        start = _while_start(sf, loop, var)
        if start is None:
            return None
    else:
        return None
    count = bound if op != "<=" else f"{_paren(bound)} + 1"
    if not re.fullmatch(r"0[uUlL]*", start):
        count = f"{_paren(count)} - {_paren(start)}"
    return var, start, count, body


def _steps_last(sf: SourceFile, body: Node, var: str) -> bool:
    stmts = [c for c in body.named_children if c.type != "comment"] if body.type == "compound_statement" else [body]
    return (
        bool(stmts)
        and re.fullmatch(rf"(?:\+\+\s*{re.escape(var)}|{re.escape(var)}\s*\+\+)\s*;", sf.node_text(stmts[-1]).strip())
        is not None
    )


def _while_start(sf: SourceFile, loop: Node, var: str) -> str | None:
    """The value a while loop's counter is declared with right above the loop (`uint32_t idx = 0;`)."""
    prev = loop.prev_named_sibling
    while prev is not None and prev.type == "comment":
        prev = prev.prev_named_sibling
    if prev is None or prev.type != "declaration":
        return None
    m = re.fullmatch(rf"[\w:\s]+\b{re.escape(var)}\s*=\s*([^;,]+);", sf.node_text(prev).strip())
    return m.group(1).strip() if m else None
