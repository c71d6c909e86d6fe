"""InitBuffer totals over the Unified Buffer's capacity, where the sizes can be evaluated.

Only buffers that can be live together are added: InitBuffer calls in the two branches of one `if` / `else`
(typically `if constexpr (std::is_same_v<T, float>)` with a per-dtype layout) are alternatives, so a path's total
is the larger branch, not their sum. Branches are named by their condition, so `if (c) {...}` followed by
`if (!c) {...}` are the two sides of one choice as well. And only buffers in the UB count: a queue or TBuf at
A1/B1/C1 (L1), A2/B2 (L0A/L0B), CO1 (L0C) or the bias table lives in another memory of the core. Functions that
InitBuffer the same buffer are alternative set-ups of the class (`Init` / `InitV2` / `InitQuant`, one per tiling
key): a buffer is set up once per run, so only the heaviest of them counts.
"""

from __future__ import annotations

from tilewise.analysis.model import InitBufferCall
from tilewise.analysis.rules.base import Rule, RuleContext

# TPositions in the Unified Buffer (LCM is an alias of VECCALC); a TQueBind counts when either end is one.
_UB_POSITIONS = frozenset({"VECIN", "VECOUT", "VECCALC", "LCM"})
_KNOWN_POSITIONS = _UB_POSITIONS | {
    "GM",
    "A1",
    "A2",
    "B1",
    "B2",
    "C1",
    "C2",
    "CO1",
    "CO2",
    "SPM",
    "SHM",
    "TSCM",
    "C2PIPE2GM",
}
Branch = tuple[tuple[str, str], str]  # ((file, the condition's text), "then" | "else")


class UbOverflow(Rule):
    id = "ub-overflow"
    severity = "error"
    summary = "InitBuffer total exceeds the UB capacity"

    def check(self, ctx: RuleContext):
        positions = {(q.owner, q.name): q.position for q in ctx.model.queues}
        by_owner: dict[str | None, list] = {}
        for b in ctx.model.init_buffers:
            if _in_ub(positions.get((b.owner, b.queue), positions.get((None, b.queue)))):
                by_owner.setdefault(b.owner, []).append(b)
        for owner, bufs in by_owner.items():
            known = [b for b in bufs if b.bytes is not None]
            path = _largest_path(ctx, known)
            total = sum(b.bytes or 0 for b in path)
            if total <= ctx.chip.ub_bytes:
                continue
            parts = ", ".join(f"{b.queue} {b.bytes}" for b in path)
            exact = "" if len(known) == len(bufs) else " (counting only the sizes known statically)"
            yield self.finding(
                path[-1].loc,
                (
                    f"{owner or 'the kernel'} allocates {total} bytes of UB{exact} but {ctx.chip.name} has "
                    f"{ctx.chip.ub_bytes} ({total - ctx.chip.ub_bytes} bytes over): {parts}. Shrink the tile or the "
                    "buffer count."
                ),
            )


def _in_ub(position: str | None) -> bool:
    """Whether a queue at this TPosition takes UB space (unknown: counted, most buffers are vector ones)."""
    if position is None:
        return True
    ends = [p.strip().split("::")[-1] for p in position.replace("->", ",").split(",")]
    if not any(p in _KNOWN_POSITIONS for p in ends):
        return True  # a template parameter or a macro: unknown, counted
    return any(p in _UB_POSITIONS for p in ends)


def _branches(ctx: RuleContext, call: InitBufferCall) -> list[Branch]:
    """The if / else branches around the call, outermost first."""
    found = ctx.node(call.loc)
    if found is None:
        return []
    sf, node = found
    out: list[Branch] = []
    child, parent = node, node.parent
    while parent is not None:
        if parent.type == "if_statement":
            cond = parent.child_by_field_name("condition")
            text, negated = _condition(sf.node_text(cond) if cond is not None else str(parent.start_byte))
            sides = ("else", "then") if negated else ("then", "else")
            if child == parent.child_by_field_name("consequence"):
                out.append(((sf.path, text), sides[0]))
            elif child.type == "else_clause" or child == parent.child_by_field_name("alternative"):
                out.append(((sf.path, text), sides[1]))
        child, parent = parent, parent.parent
    return out[::-1]


def _condition(text: str) -> tuple[str, bool]:
    """`(!(std::is_same_v<T, float>))` -> (`std::is_same_v<T,float>`, negated)."""
    text = "".join(text.split())
    negated = False
    while True:
        if text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
            text = text[1:-1]
        elif text.startswith("!") and _one_operand(text[1:]):  # not `!a && b`
            text, negated = text[1:], not negated
        else:
            return text, negated


def _one_operand(text: str) -> bool:
    """Whether no binary logical or comparison operator stands outside parentheses in text."""
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and text[i : i + 2] in ("&&", "||", "==", "!=") or depth == 0 and ch == "?":
            return False
    return True


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0


def _largest_path(ctx: RuleContext, calls: list[InitBufferCall]) -> list[InitBufferCall]:
    """The calls of the heaviest set that one execution can reach: per `if`, the heavier of its branches; of
    functions that set up the same buffer, the heaviest."""
    by_function: dict[object, list[InitBufferCall]] = {}
    for c in calls:
        by_function.setdefault(_function_of(ctx, c), []).append(c)
    keys = list(by_function)
    parent = {k: k for k in keys}

    def find(k):
        while parent[k] != k:
            k = parent[k]
        return k

    owner_of: dict[str, object] = {}
    for k in keys:
        for c in by_function[k]:
            if c.queue in owner_of and find(owner_of[c.queue]) != find(k):
                parent[find(k)] = find(owner_of[c.queue])  # the same buffer set up again: an alternative
            owner_of.setdefault(c.queue, k)
    components: dict[object, list[list[InitBufferCall]]] = {}
    for k in keys:
        components.setdefault(find(k), []).append(_heaviest([(c, _branches(ctx, c)) for c in by_function[k]]))
    chosen = [c for options in components.values() for c in max(options, key=lambda cs: sum(c.bytes or 0 for c in cs))]
    chosen.sort(key=lambda c: (c.loc.file, c.loc.start))
    return chosen


def _function_of(ctx: RuleContext, call: InitBufferCall) -> object:
    """The function definition the call is in ((file, start byte)), or the call itself outside any."""
    found = ctx.node(call.loc)
    node = found[1] if found else None
    while node is not None and node.type != "function_definition":
        node = node.parent
    return (call.loc.file, node.start_byte) if node is not None else (call.loc.file, call.loc.start)


def _heaviest(items: list[tuple[InitBufferCall, list[Branch]]]) -> list[InitBufferCall]:
    chosen = [c for c, path in items if not path]
    by_if: dict[tuple[str, str], dict[str, list[tuple[InitBufferCall, list[Branch]]]]] = {}
    for c, path in items:
        if path:
            (stmt, side), rest = path[0], path[1:]
            by_if.setdefault(stmt, {}).setdefault(side, []).append((c, rest))
    for sides in by_if.values():
        options = [_heaviest(sub) for sub in sides.values()]
        chosen.extend(max(options, key=lambda cs: sum(c.bytes or 0 for c in cs)))
    chosen.sort(key=lambda c: (c.loc.file, c.loc.start))
    return chosen
