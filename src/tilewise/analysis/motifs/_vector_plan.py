"""The vector instructions that compute what an element loop computes (analysis/motifs/_elementwise.py), with the
C++ semantics of the loop kept: the same types, the same roundings.

`plan(read, types)` lowers each stored expression, once the type parameters are bound (`T` -> `half`), into count-form
vector calls over the loop's elements. `value(e, t)` is a tile of type `t` holding `e`'s value as C++ would convert it
to `t`, and it computes in the narrowest type that gives the same result:

- an operation is done in the type C++ does it in (half operands are added in float), then cast to where its value
  goes, with the round mode of the C++ conversion (nearest-even to a float type, truncation to an integer);
- except where the narrower type gives the same bits: `+ - * /` of two values exact in half, rounded to half, is
  the half instruction (rounding twice, to float and then to half, is innocuous for one operation: 24 >= 2*11+2
  bits); `max`, `min`, `abs` and negation commute with a monotone, symmetric rounding, so they run in the
  destination's type on operands rounded to it; a conversion that widens exactly (half -> float) is dropped before
  a narrowing back.

A scalar operand is the `s` form of the instruction (`Adds`, `Muls`, `Maxs`, `Mins`), converted to the tile's type
as C++ converts it. Intermediate values go to temporary tiles (slots of one buffer, each as wide as a float tile of
the loop's count), with a `PipeBarrier<PIPE_V>` before an instruction that reads what the one before wrote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tilewise.analysis.motifs._elementwise import Bin, Conv, Expr, Fn, Ite, Load, LoopRead, Scalar, ctype_of
from tilewise.analysis.motifs._scalar_types import FLOATS, arithmetic, literal_exact, number

# the types the vector unit computes in, and what each instruction takes
_ARITH = frozenset(("half", "float", "int16_t", "int32_t"))
_FLOAT_ONLY = frozenset(("half", "float"))
_FILLABLE = frozenset(("half", "float", "int16_t", "uint16_t", "int32_t", "uint32_t"))  # what Duplicate writes
# the element types a tile the vector unit reads or writes may have (the 8-bit ones and bfloat16 through Cast only)
_TILE_TYPES = _FILLABLE | {"bfloat16_t", "int8_t", "uint8_t"}
_BINARY = {"+": "Add", "-": "Sub", "*": "Mul", "/": "Div"}
_UNARY = {"abs": "Abs", "exp": "Exp", "log": "Ln", "sqrt": "Sqrt"}
# exact widenings: every value of the first type is one of the second
_WIDER = {
    "half": {"float", "double"},
    "bfloat16_t": {"float", "double"},
    "float": {"double"},
    "int8_t": {"half", "float", "int16_t", "int32_t", "double"},
    "uint8_t": {"half", "float", "int16_t", "int32_t", "double"},
    "int16_t": {"float", "int32_t", "double"},
    "uint16_t": {"float", "int32_t", "double"},
    "int32_t": {"double", "int64_t"},
    "bool": {"half", "float", "int32_t", "int16_t", "double"},
}
# one operation in the wide type rounded to the narrow one equals the narrow operation (p' >= 2p + 2)
_INNOCUOUS = {("half", "float"), ("half", "double"), ("float", "double"), ("bfloat16_t", "float")}


class Unplannable(Exception):
    """No vector instruction sequence computes this with the loop's semantics."""


def exact_in(t: str, of: str) -> bool:
    """Whether every value of type `of` is exactly a value of type `t`."""
    return of == t or t in _WIDER.get(of, set())


def cast_mode(src: str, dst: str) -> str:
    """The round mode of C++'s conversion from `src` to `dst`, as the Cast instruction spells it."""
    if dst not in FLOATS:
        return "CAST_TRUNC" if src in FLOATS else "CAST_NONE"
    if exact_in(dst, src):
        return "CAST_NONE"
    return "CAST_RINT"


_CASTABLE = {
    ("half", "float"),
    ("bfloat16_t", "float"),
    ("float", "half"),
    ("float", "bfloat16_t"),
    ("float", "int32_t"),
    ("int32_t", "float"),
    ("half", "int32_t"),
    ("int16_t", "float"),
    ("float", "int16_t"),
    ("half", "int16_t"),
    ("int16_t", "half"),
    ("half", "int8_t"),
    ("int8_t", "half"),
    ("uint8_t", "half"),
    ("half", "uint8_t"),
}


@dataclass
class Plan:
    """The vector calls, in order, with their temporaries: `lines` name slot i of type t as `@i@`; `slots[i]` is its
    type."""

    lines: list[str] = field(default_factory=list)
    slots: list[str] = field(default_factory=list)


@dataclass
class _Tile:
    text: str
    ctype: str
    made: int = -1  # the index of the line that wrote it (-1: a tensor of the kernel)


class _Planner:
    def __init__(self, read: LoopRead, types: dict[str, str]):
        self.read, self.types = read, types
        self.plan = Plan()
        self.memo: dict[tuple[Expr, str], _Tile] = {}
        self.n = read.count
        self.last_barrier = -1

    def t(self, name: str) -> str:
        return self.types.get(name, name)

    def show(self, t: str) -> str:
        """How a concrete type is written: as the type parameter bound to it (so that every instantiation whose
        plan is the same gets the same text), else as itself."""
        return next((p for p, c in self.types.items() if c == t), t)

    def slice(self, tensor: str, offset: str | None) -> str:
        start = None if re.fullmatch(r"0[uUlL]*", self.read.start) else self.read.start
        parts = [p for p in (offset, start) if p]
        return f"{tensor}[{' + '.join(parts)}]" if parts else tensor

    # emitting
    def emit(self, api: str, dst: _Tile, srcs: list[_Tile], rest: list[str]) -> _Tile:
        if any(s.made >= 0 and s.made > self.last_barrier for s in srcs):
            self.plan.lines.append("PipeBarrier<PIPE_V>();")
            self.last_barrier = len(self.plan.lines) - 1
        args = [dst.text, *(s.text for s in srcs), *rest, self.n]
        self.plan.lines.append(f"{api}({', '.join(args)});")
        dst.made = len(self.plan.lines) - 1
        return dst

    def temp(self, t: str) -> _Tile:
        self.plan.slots.append(self.show(t))
        return _Tile(f"@{len(self.plan.slots) - 1}@", t)

    def out(self, t: str, into: _Tile | None) -> _Tile:
        return into if into is not None else self.temp(t)

    def leaf(self, e: Expr, t: str) -> bool:
        """Whether e's value in type t is a tensor of the kernel as it is (no instruction makes it)."""
        if isinstance(e, Load):
            return self.t(e.ctype) == t
        if isinstance(e, Conv):
            to = self.t(e.to)
            return (to == t or self.exact(e.x, to)) and self.leaf(e.x, t)
        return False

    def operand(self, e: Expr, t: str, into: _Tile | None, rest: tuple[Expr, ...] = ()) -> _Tile:
        """The first operand of an instruction that writes `into`: computed into `into` itself (no temporary) when
        it has that type and neither it nor the other operands read the tensor behind it."""
        if (
            into is not None
            and into.ctype == t
            and not isinstance(e, Scalar)
            and not self.leaf(e, t)
            and not any(_reads(x, _base(into.text)) for x in (e, *rest))
        ):
            return self.value(e, t, into=into)
        return self.value(e, t)

    # values
    def value(self, e: Expr, t: str, into: _Tile | None = None) -> _Tile:
        key = (e, t)
        if into is None and key in self.memo:
            return self.memo[key]
        tile = self._value(e, t, into)
        if into is None:
            self.memo[key] = tile
        return tile

    def _value(self, e: Expr, t: str, into: _Tile | None) -> _Tile:
        if isinstance(e, Load):
            src = _Tile(self.slice(e.tensor, e.offset), self.t(e.ctype))
            if src.ctype == t and into is None:
                return src
            return self.convert(src, t, into)
        if isinstance(e, Scalar):
            if t not in _FILLABLE:
                raise Unplannable(f"no Duplicate of {t}")
            dst = self.out(t, into)
            return self.emit("Duplicate", dst, [], [self.scalar(e, t)])
        if isinstance(e, Conv):
            to = self.t(e.to)
            if to == t or (self.exact(e.x, to) and to not in ("bool",)):
                return self.value(e.x, t, into)  # the conversion is what `t` asks, or keeps the value exactly
            if exact_in(t, to):
                return self.convert(self.value(e.x, to), t, into)
            return self.convert(self.value(e, to), t, into)
        if isinstance(e, Bin):
            return self.binary(e, t, into)
        if isinstance(e, Fn):
            return self.function(e, t, into)
        raise Unplannable("a select")

    def convert(self, src: _Tile, t: str, into: _Tile | None) -> _Tile:
        if src.ctype == t:
            if t not in _ARITH:
                raise Unplannable(f"no copy of {t} tiles")
            dst = self.out(t, into)
            one = "1" if t in FLOATS else "0"
            return self.emit("Muls" if t in FLOATS else "Adds", dst, [src], [f"static_cast<{self.show(t)}>({one})"])
        if (src.ctype, t) not in _CASTABLE:
            if src.ctype != "float" and (src.ctype, "float") in _CASTABLE and ("float", t) in _CASTABLE:
                return self.convert(self.convert(src, "float", None), t, into)
            raise Unplannable(f"no Cast from {src.ctype} to {t}")
        dst = self.out(t, into)
        return self.emit("Cast", dst, [src], [f"RoundMode::{cast_mode(src.ctype, t)}"])

    def scalar(self, e: Expr, t: str) -> str:
        """A scalar operand of a `...s` instruction on tiles of type t: a variable of that type as it is, anything
        else converted as C++ converts it (a literal would not deduce the instruction's type)."""
        assert isinstance(e, Scalar)
        name = self.show(t)
        plain = re.fullmatch(r"[A-Za-z_][\w.]*(?:->\w+)*", e.text.strip()) is not None
        cast = e.text.strip().startswith(f"static_cast<{name}>(")
        return e.text if (plain or cast) and e.ctype == name else f"static_cast<{name}>({e.text})"

    def exact(self, e: Expr, t: str) -> bool:
        """Whether e's value is exactly a value of type t (see the module)."""
        if isinstance(e, Load):
            return exact_in(t, self.t(e.ctype))
        if isinstance(e, Scalar):
            value = number(e.text)
            if value is not None:
                return literal_exact(repr(abs(value)), t)
            return exact_in(t, self.t(e.ctype))
        if isinstance(e, Conv):
            to = self.t(e.to)
            return exact_in(t, to) or (self.exact(e.x, to) and self.exact(e.x, t))
        if isinstance(e, Fn) and e.name in ("max", "min", "abs", "neg"):
            return all(self.exact(a, t) for a in e.args)
        return False

    def binary(self, e: Bin, t: str, into: _Tile | None) -> _Tile:
        ct = self.ct(e)
        if ct == "double":
            ct = "float"  # no double vector: the loop's double arithmetic is done in float
        if ct == t:
            work = t
        elif (t, ct) in _INNOCUOUS and t in _ARITH and self.exact(e.a, t) and self.exact(e.b, t):
            work = t  # one correctly rounded operation on values exact in t: the same bits as ct then rounding
        else:
            return self.convert(self.binary(e, ct, None), t, into)
        if work not in _ARITH or (e.op == "/" and work not in _FLOAT_ONLY):
            raise Unplannable(f"{e.op} in {work}")
        a_s, b_s = isinstance(e.a, Scalar), isinstance(e.b, Scalar)
        if e.op in "+*" and a_s:
            return self.binary(Bin(e.op, e.b, e.a), t, into)
        if b_s and e.op in "+*":
            src = self.operand(e.a, work, into)
            return self.emit("Adds" if e.op == "+" else "Muls", self.out(work, into), [src], [self.scalar(e.b, work)])
        if b_s and e.op == "-":
            src = self.operand(e.a, work, into)
            neg = f"static_cast<{self.show(work)}>(-({e.b.text}))"  # type: ignore[union-attr]
            return self.emit("Adds", self.out(work, into), [src], [neg])
        if a_s and e.op == "-":
            minus_one = f"static_cast<{self.show(work)}>(-1)"
            flipped = self.emit("Muls", self.temp(work), [self.value(e.b, work)], [minus_one])
            return self.emit("Adds", self.out(work, into), [flipped], [self.scalar(e.a, work)])
        a = self.operand(e.a, work, into, (e.b,))
        b = self.value(e.b, work)
        return self.emit(_BINARY[e.op], self.out(work, into), [a, b], [])

    def ct(self, e: Expr) -> str:
        return ctype_of(e, self.types)

    def function(self, e: Fn, t: str, into: _Tile | None) -> _Tile:
        if e.name in ("max", "min", "abs", "neg"):
            if t not in _ARITH or (e.name == "abs" and t not in _FLOAT_ONLY):
                return self.convert(self.function(e, "float", None), t, into)
            if e.name == "neg":
                src = self.operand(e.args[0], t, into)
                return self.emit("Muls", self.out(t, into), [src], [f"static_cast<{self.show(t)}>(-1)"])
            if e.name == "abs":
                return self.emit("Abs", self.out(t, into), [self.operand(e.args[0], t, into)], [])
            a, b = e.args
            if isinstance(a, Scalar):
                a, b = b, a
            api = "Max" if e.name == "max" else "Min"
            if isinstance(b, Scalar):
                return self.emit(api + "s", self.out(t, into), [self.operand(a, t, into)], [self.scalar(b, t)])
            first = self.operand(a, t, into, (b,))
            return self.emit(api, self.out(t, into), [first, self.value(b, t)], [])
        ct = arithmetic(self.ct(e.args[0]), "float")
        ct = "float" if ct == "double" else ct
        if ct != t:
            return self.convert(self.function(e, ct, None), t, into)
        return self.emit(_UNARY[e.name], self.out(t, into), [self.operand(e.args[0], t, into)], [])


def plan(read: LoopRead, types: dict[str, str]) -> Plan | None:
    """The vector calls for every store of the loop with the type parameters bound, or None when some store has
    no faithful lowering. A store whose tensor another store's expression reads is refused (the order of the
    element loop would matter)."""
    for dst in read.stores:
        others = [x for k, x in read.stores.items() if k != dst]
        if any(_reads(x, dst) for x in others):
            return None
    bound = {types.get(t, t) for t in [*read.dst_types.values(), *_load_types(read)]}
    if not bound <= _TILE_TYPES:
        return None  # a tile of a type the vector unit has no instruction for (int64, double, bool)
    planner = _Planner(read, types)
    try:
        for dst, e in read.stores.items():
            t = planner.t(read.dst_types[dst])
            tensor, _, offset = dst.partition("[")
            target = _Tile(planner.slice(tensor, offset[:-1] or None), t)
            assert not isinstance(e, Ite)
            planner.value(e, t, into=target)
    except Unplannable:
        return None
    return compact(planner.plan)


def compact(p: Plan) -> Plan:
    """The plan with temporaries sharing slots: a value's slot is taken again once its last reader is behind a
    `PipeBarrier<PIPE_V>` (so no instruction still in flight reads what the new one writes)."""
    uses: dict[int, list[int]] = {}
    for i, line in enumerate(p.lines):
        for m in re.finditer(r"@(\d+)@", line):
            uses.setdefault(int(m.group(1)), []).append(i)
    barriers = [i for i, line in enumerate(p.lines) if line.startswith("PipeBarrier")]
    physical: dict[int, int] = {}
    free_after: list[int] = []  # physical slot -> the line of its last reader
    types: list[str] = []
    for slot in sorted(uses, key=lambda s: uses[s][0]):
        born, last = uses[slot][0], uses[slot][-1]
        reuse = next(
            (
                ph
                for ph, until in enumerate(free_after)
                if until < born and any(until < b < born for b in barriers) and types[ph] == p.slots[slot]
            ),
            None,
        )
        if reuse is None:
            reuse = len(free_after)
            free_after.append(last)
            types.append(p.slots[slot])
        else:
            free_after[reuse] = last
        physical[slot] = reuse
    lines = [re.sub(r"@(\d+)@", lambda m: f"@{physical[int(m.group(1))]}@", line) for line in p.lines]
    return Plan(lines, types)


def _load_types(read: LoopRead) -> list[str]:
    out: list[str] = []

    def walk(e: Expr) -> None:
        if isinstance(e, Load):
            out.append(e.ctype)
        elif isinstance(e, Conv):
            walk(e.x)
        elif isinstance(e, Bin):
            walk(e.a)
            walk(e.b)
        elif isinstance(e, Fn):
            for a in e.args:
                walk(a)

    for e in read.stores.values():
        walk(e)
    return out


def _base(text: str) -> str:
    return re.split(r"[\[.]", text.replace("this->", ""))[0].strip()


def _reads(e: Expr, tensor: str) -> bool:
    if isinstance(e, Load):
        return _base(e.tensor) == _base(tensor)
    if isinstance(e, Scalar):
        return False
    if isinstance(e, Conv):
        return _reads(e.x, tensor)
    if isinstance(e, Bin):
        return _reads(e.a, tensor) or _reads(e.b, tensor)
    if isinstance(e, Fn):
        return any(_reads(a, tensor) for a in e.args)
    return _reads(e.a, tensor) or _reads(e.b, tensor)
