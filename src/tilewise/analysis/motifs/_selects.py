"""Selects an element loop computes (`a > b ? a : b`, an if-chain clamp, `v < 0 ? -v : v`) rewritten as the
functions a vector unit has instructions for (analysis/motifs/_elementwise.py reads the loop into `Ite` nodes).

- `a > b ? a : b` (either operand order, either comparison direction) is `max(a, b)`, the other pairing `min`;
- `v > hi ? hi : max(v, lo)` and `v < lo ? lo : min(v, hi)` are clamps: the outer bound applied to the inner one
  (an if/else-if chain and two ifs in a row both read this way);
- `v < 0 ? -v : v` is `abs(v)`;
- `v >= 0 ? v * p : v * q` is `max(v, 0) * p + min(v, 0) * q`, exact: one of the two terms is zero.

Anything else is no function of the vector unit: `normalise_read` answers None for a loop that stores one.
"""

from __future__ import annotations

from tilewise.analysis.motifs._elementwise import Bin, Cmp, Conv, Expr, Fn, Load, LoopRead, Scalar
from tilewise.analysis.motifs._scalar_types import number


class _NoFunction(Exception):
    """A select left over that no min/max/abs/clamp covers."""


def normalise_read(read: LoopRead) -> LoopRead | None:
    """The loop with each stored expression's selects rewritten (see the module), or None when one is left."""
    try:
        stores = {k: normalise(v) for k, v in read.stores.items()}
    except _NoFunction:
        return None
    return LoopRead(read.var, read.count, read.start, stores, read.dst_types)


def normalise(e: Expr) -> Expr:
    """The expression with each select rewritten as the min/max/abs it is (see the module); a select left over
    raises _NoFunction."""
    if isinstance(e, Load | Scalar):
        return e
    if isinstance(e, Conv):
        return Conv(normalise(e.x), e.to)
    if isinstance(e, Bin):
        return Bin(e.op, normalise(e.a), normalise(e.b))
    if isinstance(e, Fn):
        return Fn(e.name, tuple(normalise(a) for a in e.args))
    cond = Cmp(e.cond.op, normalise(e.cond.a), normalise(e.cond.b))
    a, b = normalise(e.a), normalise(e.b)
    found = _select(cond, a, b)
    if found is None:
        raise _NoFunction("a select that is no min, max, abs or clamp")
    return found


def _strip(e: Expr) -> Expr:
    """The value under conversions that keep it exactly (to a wider float type), for comparing operands."""
    while isinstance(e, Conv) and e.to in ("float", "double"):
        e = e.x
    return e


def _same(a: Expr, b: Expr) -> bool:
    if _strip(a) == _strip(b):
        return True
    return (
        isinstance(a, Scalar)
        and isinstance(b, Scalar)
        and number(a.text) is not None
        and (number(a.text) == number(b.text))
    )


def _is_zero(e: Expr) -> bool:
    return isinstance(e, Scalar) and number(e.text) == 0.0


def _select(c: Cmp, a: Expr, b: Expr) -> Expr | None:
    op, x, y = c.op, c.a, c.b
    if op not in ("<", "<=", ">", ">="):
        return None
    big = op in (">", ">=")  # the condition holds when x is the larger
    if _same(x, a) and _same(y, b):
        return Fn("max" if big else "min", (a, b))
    if _same(x, b) and _same(y, a):
        return Fn("min" if big else "max", (b, a))
    # abs: `v < 0 ? -v : v`, `v >= 0 ? v : -v`
    if _is_zero(y):
        neg_a = isinstance(a, Fn) and a.name == "neg" and _same(a.args[0], x)
        neg_b = isinstance(b, Fn) and b.name == "neg" and _same(b.args[0], x)
        if not big and neg_a and _same(b, x):
            return Fn("abs", (b,))
        if big and neg_b and _same(a, x):
            return Fn("abs", (a,))
        leaky = _leaky(x, a, b) if big else _leaky(x, b, a)
        if leaky is not None:
            return leaky
    # a clamp: `v > hi ? hi : max(v, lo)`, `v < lo ? lo : min(v, hi)` (the other bound already applied)
    if _same(y, a) and _clamped(b, x, "max" if big else "min"):
        return Fn("min" if big else "max", (b, a))
    return None


def _clamped(e: Expr, v: Expr, fn: str) -> bool:
    """Whether `e` is `v` with the other bound applied (`max(v, lo)` for an upper clamp), conversions aside."""
    e = _strip(e)
    return isinstance(e, Fn) and e.name == fn and any(_same(arg, v) for arg in e.args)


def _factor(e: Expr, v: Expr) -> Expr | None:
    """The scalar `s` when `e` is `v * s` or `s * v` (a Scalar one when e is v itself), else None."""
    if _same(e, v):
        return Scalar("1", "int32_t")
    s = _strip(e)
    if isinstance(s, Bin) and s.op == "*":
        if _same(s.a, v) and isinstance(s.b, Scalar):
            return s.b
        if _same(s.b, v) and isinstance(s.a, Scalar):
            return s.a
    return None


def _leaky(v: Expr, pos: Expr, neg: Expr) -> Expr | None:
    """`v >= 0 ? v * p : v * q` as `max(v, 0) * p + min(v, 0) * q`, exact: one of the terms is zero."""
    p, q = _factor(pos, v), _factor(neg, v)
    if p is None or q is None:
        return None
    zero = Scalar("0", "int32_t")
    up: Expr = Fn("max", (v, zero))
    down: Expr = Fn("min", (v, zero))
    if number(getattr(p, "text", "")) != 1.0:
        up = Bin("*", up, p)
    if number(getattr(q, "text", "")) != 1.0:
        down = Bin("*", down, q)
    return Bin("+", up, down)
