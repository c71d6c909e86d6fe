"""Proving that raising a blockDim constant keeps the kernel's per-core split sound, for low-block-dim's fix.

Raising the count is safe ("Apply") only when, for every case the operator has run, each core's share at the new
count keeps every property it had at the old one: it is not empty, it still covers the input (exactly, when it did
exactly), it is still a whole number of 32-byte blocks, and every count-independent tiling value that divided it
(a tile length) still divides it. The share is a tiling field the host computes from the count (`total / blockDim`,
`CeilDiv(total, blockDim)`, aligned or not: the split is written for any count); the input size of each case is the
tiling field the host stores the share's numerator in (`set_totalLength(total)`), read from the case's facts. The
host's expression is evaluated at the old count first and must give the value the case saw: a check that this
reading of the host is the one that ran. Without facts (no case ran) nothing is proved and the fix stays
"Verify on the emulator".
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from tilewise.analysis.dtypes import DTYPE_SIZES
from tilewise.analysis.rules._valueflow import VALUE, resolved_value, value_flow
from tilewise.analysis.source import SourceFile

_DIVIDERS = ("ceil", "div", "align", "roundup", "round_up")


@dataclass
class Share:
    field: str
    sf: SourceFile
    node: Node  # the setter's value expression
    numerator: str  # the name the count divides (`total`)
    size_field: str  # the tiling field holding the numerator's value per case


def proved_count(ctx, knob, cores: int) -> tuple[int, str] | None:
    """The largest count in (knob.value, cores] at which every case's split stays sound, and a line saying what was
    checked; None when no case ran, a case ran at another count, or the host's split is not read."""
    facts = ctx.facts
    if not facts or any(f.block_dim != knob.value for f in facts):
        return None
    elem = _elem_size(ctx)
    shares = _shares(ctx, knob)
    if elem is None or not shares:
        return None
    for share in shares:
        if any(share.field not in f.tiling or share.size_field not in f.tiling for f in facts):
            return None
        for f in facts:
            if _share_at(ctx, share, knob, knob.value, f.tiling[share.size_field]) != f.tiling[share.field]:
                return None  # the host evaluated here is not the one that ran
    others = {name for f in facts for name in f.tiling} - {s.field for s in shares}
    if any(not _independent(ctx, name, knob) for name in others):
        return None  # another field moves with the count (a tail length): its new value is not read here
    for target in range(cores, knob.value, -1):
        if all(_sound(ctx, s, knob, target, f, elem, others) for s in shares for f in facts):
            fields = ", ".join(sorted({s.field for s in shares}))
            return target, (
                f"proved for {len(facts)} case(s): each core's {fields} stays non-empty, covers the "
                f"input and stays a whole number of 32-byte blocks at {target} cores"
            )
    return None


def _sound(ctx, share: Share, knob, target: int, fact, elem: int, others: set[str]) -> bool:
    n = fact.tiling[share.size_field]
    old, new = fact.tiling[share.field], _share_at(ctx, share, knob, target, n)
    if new is None or new <= 0:
        return False
    if old * knob.value >= n and new * target < n:
        return False  # the input would no longer be covered
    if old * knob.value == n and new * target != n:
        return False  # an exact split would leave a remainder the kernel never handled
    if (old * elem) % 32 == 0 and (new * elem) % 32 != 0:
        return False  # each core's start would leave the 32-byte grid
    for name in others:
        g = fact.tiling.get(name)
        if g and g > 1 and old % g == 0 and new % g != 0:
            return False  # a tile length that divided the share no longer does
    return True


def _share_at(ctx, share: Share, knob, count: int, size: int) -> int | None:
    return resolved_value(ctx, share.sf, share.node, kernel=False, override={knob.name: count, share.numerator: size})


def _shares(ctx, knob) -> list[Share]:
    """Tiling fields the host sets from the count as a divisor, with the numerator stored in another field."""
    out = []
    setters = [s for tf in ctx.model.tiling.functions for s in tf.setters]
    stored: dict[str, str] = {}
    for s in setters:
        found = ctx.node(s.expr.loc) if s.expr.loc is not None else None
        if found is not None and found[1].type == "identifier":
            stored.setdefault(found[0].node_text(found[1]), s.field)
    for s in setters:
        found = ctx.node(s.expr.loc) if s.expr.loc is not None else None
        if found is None:
            continue
        sf, node = found
        numerator = _divided_by(ctx, sf, node, knob)
        if numerator is not None and numerator in stored and stored[numerator] != s.field:
            out.append(Share(s.field, sf, node, numerator, stored[numerator]))
    return out


def _divided_by(ctx, sf: SourceFile, node: Node, knob) -> str | None:
    """`x / count` or `CeilDiv(x, count)` somewhere in the expression, with `count` flowing from the knob and `x` a
    plain name: that name."""
    flow = value_flow(ctx)
    todo = [node]
    while todo:
        n = todo.pop()
        left = right = None
        if n.type == "binary_expression" and sf.node_text(n.child_by_field_name("operator")) == "/":
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
        elif n.type == "call_expression":
            fn = sf.node_text(n.child_by_field_name("function") or n).lower()
            args = [a for a in (n.child_by_field_name("arguments") or n).named_children if a.type != "comment"]
            if any(w in fn for w in _DIVIDERS) and len(args) == 2:
                left, right = args
        if (
            left is not None
            and right is not None
            and left.type == "identifier"
            and (
                sf.node_text(right) == knob.name or VALUE in flow.sources(sf, right, kernel=False).get(knob.name, set())
            )
        ):
            return sf.node_text(left)
        todo.extend(n.named_children)
    return None


def _independent(ctx, field: str, knob) -> bool:
    """The host sets `field` without the count (a tile length), so the new count leaves it as it was."""
    flow = value_flow(ctx)
    for tf in ctx.model.tiling.functions:
        for s in tf.setters:
            if s.field == field and s.expr.loc is not None:
                found = ctx.node(s.expr.loc)
                if found is None or knob.name in flow.sources(found[0], found[1], kernel=False):
                    return False
    return True


def _elem_size(ctx) -> int | None:
    inputs = ctx.model.inputs
    return DTYPE_SIZES.get(inputs[0].dtypes[0]) if inputs and inputs[0].dtypes else None
