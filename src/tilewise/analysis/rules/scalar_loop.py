"""Per-element GetValue/SetValue loops: each element is a scalar round trip through UB (or GM).

A loop is reported only when it walks elements: some access's index follows the loop variable, directly or
through locals (`idx = base + i; yGm.SetValue(idx, v)`), and no index comes from loaded data (a gather or a
scatter, which no elementwise instruction does). Then:
- silent when the loop is short by construction: at most SMALL_TRIPS iterations (a constant, the largest value
  its callers pass for a parameter bound, the tail a round-up pads, the width a shift by the loop variable
  allows), a one-time table of at most ONCE_TRIPS entries, the unaligned head or tail around a vector body, a
  walk over per-block or per-core partials (a deliberate scalar reduction of a few partial sums), or a search
  that breaks out early;
- silent when no vector instruction does the work: the stores are strided scatters no block stride reaches,
  each value (or the branch that decides a store) comes from a scalar array, 64-bit division in the kernel's
  own helper, or the loop drives a row at a time through a helper of the kernel that takes the tensor;
- silent when the loop never runs: its function is called from nowhere in the operator;
- warning when the trip count is proved (constants, the host's tiling, or how often the case runs showed the
  access ran) and the cost model says a vector instruction pays, and the body is one instruction's worth;
- info otherwise, saying what is not proved (the length, or the rewrite).
"""

from __future__ import annotations

import re

from tree_sitter import Node

from tilewise.analysis.apis import COPIES, PIPES
from tilewise.analysis.findings import Fix, edit_range
from tilewise.analysis.model import ApiCall
from tilewise.analysis.rules._gain import scalar_loop_gain, scalar_loop_trip_gain
from tilewise.analysis.rules._scalar_bounds import (
    aligned_remainder,
    block_bound,
    never_called,
    once_per_launch,
    padded_tail,
    paired_pad,
    param_bound,
    row_driver,
    scalar_branch,
    shift_width,
    strided_scatter,
    uses_int64_division,
    vector_helper,
)
from tilewise.analysis.rules.base import Rule, RuleContext
from tilewise.analysis.source import SourceFile

_BINARY = {"+": "Add", "-": "Sub", "*": "Mul", "/": "Div"}
_SCALAR = {"+": "Adds", "*": "Muls"}
_FLOAT_TYPES = frozenset(("half", "float", "bfloat16_t", "float16_t"))
SMALL_TRIPS = 16  # a loop this short costs less than the pipe hand-offs a vector instruction brings
PAYS = 4.0  # the cost model's gain from which vectorising is worth the developer's time
BLOCK_ELEMS = 32  # one 32-byte block of int8 at most: fewer than a vector instruction needs to pay its hand-offs
ONCE_TRIPS = 64  # a table this short, filled once per launch, costs a few microseconds at most
_PARTIALS_RE = re.compile(r"(block|core|aiv|aic|group)_?(num|dim|cnt|count|len)|GetBlockNum|usedCore", re.I)
_TILE_WORK = tuple(n for n in PIPES if PIPES[n] == "vector") + COPIES
_STEP_RE = re.compile(r"\b(\w+)\s*(?:\+\+|--|\+=|-=)|(?:\+\+|--)\s*(\w+)")
_ACCUMULATE_RE = re.compile(r"\b\w+\s*(?:\+=|-=|\*=|\|=|&=)|=\s*(?:std::)?(?:max|min|Max|Min)\s*\(")
_FOR_VAR_RE = re.compile(r"for\s*\(\s*[\w:<> ]*?\b(\w+)\s*=\s*([^;]*);")
# Scalar-unit bit intrinsics (find-first-set, population count): a value made by one comes from bit scanning.
_BIT_SCAN_RE = re.compile(r"\bScalar(?:GetSFFValue|CountOne|GetCountOfValue)\b")
_ASSIGN_RE = re.compile(r"\b(\w+)\s*(?:\+|-|\*|/|%|<<|>>|&|\||\^)?=(?!=)\s*([^;]+);")


class ScalarLoop(Rule):
    id = "scalar-loop"
    severity = "warning"
    summary = "element-by-element GetValue/SetValue loop that a vector instruction would do"

    def check(self, ctx: RuleContext):
        by_loop: dict[tuple[str, int], list] = {}
        for call in ctx.model.calls("GetValue", "SetValue"):
            if call.loops and call.receiver is not None:
                loop = call.loops[0]
                by_loop.setdefault((loop.loc.file, loop.loc.start), []).append(call)
        for calls in by_loop.values():
            finding = self._loop(ctx, calls[0].loops[0], calls)
            if finding is not None:
                yield finding

    def _loop(self, ctx: RuleContext, loop, calls):
        found = ctx.node(loop.loc)
        text = found[0].node_text(found[1]) if found is not None else loop.header
        body = text[text.find("{") :] if "{" in text else text
        if re.search(r"\b(break|return)\b", body) or self._vector_work_in(ctx, loop):
            return None  # a search that stops early, or a row loop whose scalar feeds vector/copy work
        if found is not None and never_called(ctx, *found):
            return None  # its function is called from nowhere in the operator (only from commented-out code)
        if found is not None and vector_helper(ctx, *found):
            return None  # each iteration runs a group's vector work in the kernel's helper: per-group scalars
        if found is not None and row_driver(ctx, *found):
            return None  # each iteration hands a row to the kernel's own helper: the stores are its bookkeeping
        if scalar_branch(ctx, body):
            return None  # whether an element is stored is decided by a scalar array no vector instruction reads
        m = _FOR_VAR_RE.search(loop.header)
        var = m.group(1) if m else None
        # a while loop walks with whatever its body steps (`k++`, `pos += 1`)
        walkers = {var} if var else {a or b for a, b in _STEP_RE.findall(body)}
        local = _locals(body)
        stores = loads = False
        walking: list[tuple[ApiCall, str]] = []  # (store, its resolved index) of the stores that walk
        for call in calls:
            index = _resolve(call.args[0].text if call.args else "", dict(local))
            if "GetValue" in index or re.search(r"\w\s*\[", index):
                return None  # the index comes from loaded data: a gather or scatter, not an element walk
            follows = any(re.search(rf"\b{re.escape(w)}\b", index) for w in walkers)
            if call.name == "SetValue":
                raw = call.args[1].text if len(call.args) > 1 else ""
                value = _resolve(raw, dict(local))
                if re.search(r"\w\s*\[", value):
                    return None  # stores values from a scalar array or table: no vector instruction reads those
                # (the loads' own indexes are left out: a helper that computes where to read is not the value)
                if _custom_scalar_code(value) or uses_int64_division(
                    ctx, _resolve(re.sub(r"GetValue\s*\([^()]*\)", "GetValue()", raw), dict(local))
                ):
                    return None  # each element goes through a type pun or 64-bit division (here or in a helper)
                stores |= follows
                if follows:
                    walking.append((call, index))
            else:
                loads |= follows
        evaluator = ctx.evaluator(found[0]) if found is not None else None
        if walking and all(
            strided_scatter(i, walkers, ctx.elem_size(c, c.receiver), evaluator, len(walking)) for c, i in walking
        ):
            return None  # every store lands one element per stride that no 32-byte block stride reaches: a scatter
        if not stores and not loads:
            return None  # one element re-read or re-written, not a walk
        bound = _bound(loop.header, var) if var else None
        if bound is not None and _PARTIALS_RE.search(bound):
            return None  # a few per-block / per-core partials, summed on purpose by the scalar unit
        stored = {c.receiver.replace("this->", "") for c in calls if c.name == "SetValue" and c.receiver}
        if found is not None and aligned_remainder(found[0], found[1], stored):
            return None  # the unaligned head or tail (under one block) of a run whose body a vector instruction does
        if found is not None and bound is not None and _within_a_block(ctx, found, loop, bound):
            return None  # at most one 32-byte block of elements (the bound is 32 / sizeof(T), or pads to a block)
        trips = self._trips(ctx, found, loop, var, bound, calls)
        exact = trips is not None
        if trips is None and found is not None:
            trips = _at_most(ctx, found, var, bound, body, dict(local), calls)
        if trips is not None and trips <= SMALL_TRIPS:
            return None
        if (
            not exact
            and trips is not None
            and trips <= ONCE_TRIPS
            and found is not None
            and once_per_launch(ctx, *found)
        ):
            return None  # a short table filled once per launch
        call = calls[0]
        gm = any(ctx.is_global(c.receiver) for c in calls)
        where = "GM" if gm else "UB"
        elem = ctx.elem_size(call, call.receiver) or 2
        gain = scalar_loop_trip_gain(ctx.chip, gm, elem, trips) if trips else None
        many = f"{trips}" if exact else f"at most {trips}"
        head = (
            f"this loop reads/writes {where} one element at a time with GetValue/SetValue on the scalar unit "
            "(each access waits for the vector and MTE pipes)"
        )
        if not stores:
            # A reduction of loaded elements into a scalar: deliberate when short; worth a look only when long.
            if gain is None or gain < PAYS or not _ACCUMULATE_RE.search(body) or re.search(r"\w\s*\[[^]]*\]\s*=", body):
                return None  # no accumulator (the elements go to a scalar array for scalar code), or short
            return self.finding(
                loop.loc,
                (
                    f"{head}; it reduces {many} elements into a scalar: ReduceSum / ReduceMax / WholeReduce* over the "
                    "tile would do it (if the scalar order of the sum is not needed for precision)."
                ),
                severity="info",
            )
        fix = _vector_rewrite(ctx, *found) if found is not None and not gm else None
        if fix is not None and exact and gain is not None and gain >= PAYS:
            fix.title += f" (about {gain:.0f}x faster at {trips} elements, cost-model estimate)"
            return self.finding(
                loop.loc,
                head
                + (
                    f"; it runs {trips} times, and one vector instruction over the tile does 128 fp16 or 64 fp32 "
                    "lanes per cycle."
                ),
                [fix],
            )
        if fix is not None and gain is not None:
            fix.title += f" (up to {gain:.0f}x faster at {trips} elements, cost-model estimate)"
        elif fix is not None:
            fix.title += f" (about {scalar_loop_gain(ctx.chip, gm, elem):.0f}x faster for a long loop, estimate)"
        unproved = (
            "its length is only known at run time: if it runs long, " if trips is None else f"it runs {many} times; "
        )
        what = (
            "a vector instruction over the tile (Add, Muls, Maxs, Select, ...) or a DataCopy would do it"
            if fix is None
            else "the vector instruction offered does the same"
        )
        return self.finding(loop.loc, f"{head}; {unproved}{what}.", [fix] if fix else [], severity="info")

    @staticmethod
    def _vector_work_in(ctx: RuleContext, loop) -> bool:
        """A vector or copy instruction inside the loop: the loop walks rows or tiles, and its GetValue fetches a
        per-row scalar for that work (a Muls factor, an offset), which no vector instruction replaces."""
        lo, hi = loop.loc.start, loop.loc.end
        return any(lo <= c.loc.start < hi for c in ctx.model.calls(*_TILE_WORK) if c.loc.file == loop.loc.file)

    def _trips(self, ctx: RuleContext, found, loop, var, bound, calls) -> int | None:
        """How many times the loop runs: its bound's value (a constant, or a tiling field the host sets to a
        known value), else the most times a case saw one of its accesses run."""
        if found is not None and bound is not None and var is not None:
            sf, node = found
            cond = node.child_by_field_name("condition") if node.type == "for_statement" else None
            init = _FOR_VAR_RE.search(loop.header)
            start = _int(init.group(2)) if init else None
            right = cond.child_by_field_name("right") if cond is not None and cond.type == "binary_expression" else None
            value = ctx.evaluator(sf).value(right) if right is not None else None
            if value is None:
                value = _tiling_value(ctx, bound)
            if value is not None and start is not None:
                op = cond.child_by_field_name("operator").type if cond is not None else "<"
                return max(0, value - start + (1 if op == "<=" else 0))
        counts = [f.site_calls.get((c.loc.file, c.loc.line)) for f in ctx.facts for c in calls]
        seen = [n for n in counts if n]
        return max(seen) if seen else None


def _at_most(ctx: RuleContext, found, var, bound, body: str, local: dict[str, str], calls) -> int | None:
    """An upper bound on the trip count when no single value is known: the largest value the callers pass for a
    parameter bound, the tail a round-up pads, or the width a shift by the loop variable allows."""
    sf, node = found
    init = _FOR_VAR_RE.search(sf.node_text(node)[:200]) if var else None
    start_text = init.group(2) if init else ""
    start = _int(start_text) if init else None
    cond = node.child_by_field_name("condition") if node.type == "for_statement" else None
    inclusive = (
        cond is not None and cond.type == "binary_expression" and cond.child_by_field_name("operator").type == "<="
    )
    if bound is not None and start is not None:
        top = param_bound(ctx, sf, node, bound)
        if top is not None:
            return max(0, top - start + (1 if inclusive else 0))
    if bound is not None and start_text and not inclusive:
        tail = padded_tail(ctx, sf, node, start_text, bound)
        if tail is not None:
            return tail
    values = [_resolve(c.args[1].text, dict(local)) for c in calls if c.name == "SetValue" and len(c.args) > 1]
    walkers = {var} if var else {a or b for a, b in _STEP_RE.findall(body)}
    return shift_width(values, walkers)


def _within_a_block(ctx: RuleContext, found: tuple[SourceFile, Node], loop, bound: str) -> bool:
    """At most BLOCK_ELEMS elements, by construction: the bound is one 32-byte block's elements (`32 / sizeof(T)`,
    the host's `BLOCK_SIZE / dtypeSize`), or the loop pads its start up to the next multiple of at most BLOCK_ELEMS
    (before a sort or a vector instruction that needs the aligned count; its start is no aligned UB address)."""
    sf, node = found
    if block_bound(ctx, sf, node, bound) is not None:
        return True
    init = _FOR_VAR_RE.search(loop.header)
    tail = padded_tail(ctx, sf, node, init.group(2), bound) if init else None
    if tail is None and init is not None:
        tail = paired_pad(ctx, sf, node, init.group(2).strip(), bound)
    return tail is not None and tail < BLOCK_ELEMS


def _custom_scalar_code(value: str) -> bool:
    """The stored value is made by a type pun through a pointer (bytes reassembled on the scalar unit), by a scalar
    bit scan (the positions of a mask's set bits, found one by one), or by 64-bit integer division, which the
    vector unit does not have. (A scalar math function of the kernel's own, such as a polynomial per element,
    stays reported: rewriting it with vector instructions is the point.)"""
    return (
        bool(re.search(r"\*\s*\(\s*\w+\s*\*\s*\)", value))
        or _BIT_SCAN_RE.search(value) is not None
        or ("int64" in value and re.search(r"[/%]", value) is not None)
    )


def _int(text: str) -> int | None:
    try:
        return int(text.strip().rstrip("uUlL"), 0)
    except ValueError:
        return None


def _bound(header: str, var: str) -> str | None:
    m = re.search(rf"\b{re.escape(var)}\s*(<=?|!=)\s*([^;]+);", header)
    return m.group(2).strip() if m else None


def _tiling_value(ctx: RuleContext, bound: str) -> int | None:
    """A bound named like a tiling field (`tileLength`, `this->tileLength`, `tiling.tileLength`) that every tiling
    function sets to one known value."""
    name = re.sub(r"^(this->|\w+(\.|->))", "", bound.strip())
    if not name.isidentifier():
        return None
    values = {s.expr.value for tf in ctx.model.tiling.functions for s in tf.setters if s.field == name}
    return values.pop() if len(values) == 1 and None not in values else None


def _locals(body: str) -> dict[str, str]:
    """name -> the expressions assigned to it in the loop body (`idx = base + i`, `uint32_t o = i * 2;`)."""
    out: dict[str, str] = {}
    for m in _ASSIGN_RE.finditer(body):
        out[m.group(1)] = f"{out.get(m.group(1), '')} {m.group(2)}"
    return out


def _resolve(expr: str, local: dict[str, str], depth: int = 4) -> str:
    """The index expression with each local it names replaced by what was assigned to it, a few levels deep."""
    for _ in range(depth):
        words = [w for w in re.findall(r"[A-Za-z_]\w*", expr) if w in local]
        if not words:
            break
        expr = " ; ".join([expr, *(local.pop(w) for w in dict.fromkeys(words) if w in local)])
    return expr


def _vector_rewrite(ctx: RuleContext, sf, loop) -> Fix | None:
    """Rewrite `for (i = s; i < N; ++i) dst.SetValue(i, a.GetValue(i) OP b.GetValue(i));` as one vector call (on
    `dst[s]`, ... for N - s elements when s is not 0). Safe ("Apply") only when the semantics are the same: the
    loop starts at 0 and steps by one, every tensor is a whole local tensor (no offset sub-tensor: aligned) of one
    element type (no conversion), and a division is on a floating type; else it is offered to verify on the
    emulator."""
    if loop.type != "for_statement":
        return None
    init, cond, body = (loop.child_by_field_name(k) for k in ("initializer", "condition", "body"))
    update = loop.child_by_field_name("update")
    if init is None or cond is None or body is None or cond.type != "binary_expression":
        return None
    var = sf.node_text(cond.child_by_field_name("left"))
    if cond.child_by_field_name("operator").type != "<" or not re.search(rf"\b{re.escape(var)}\b", sf.node_text(init)):
        return None
    count = sf.node_text(cond.child_by_field_name("right"))
    # From element `start` on (a tail that pads, `for (i = n; ...)`): the rewrite works on the sub-tensors from
    # there, for the remaining count, or it would overwrite the elements before it.
    first = re.search(rf"\b{re.escape(var)}\s*=\s*(.+)$", sf.node_text(init).strip().rstrip(";"), re.S)
    start = first.group(1).strip() if first else "0"
    zero = re.fullmatch(r"0[uUlL]*", start) is not None
    if not zero:
        simple = re.fullmatch(r"[\w.>-]+", start) is not None
        count = f"{count} - {start}" if simple else f"{count} - ({start})"
    stmts = [s for s in body.named_children if s.type != "comment"] if body.type == "compound_statement" else [body]
    if len(stmts) != 1 or stmts[0].type != "expression_statement":
        return None
    call = stmts[0].named_children[0] if stmts[0].named_children else None
    if call is None or call.type != "call_expression":
        return None
    dst, method = _member_call(sf, call)
    args = [a for a in call.child_by_field_name("arguments").named_children if a.type != "comment"]
    if method != "SetValue" or len(args) != 2 or sf.node_text(args[0]) != var:
        return None
    value = args[1]
    text = None
    tensors = [dst]
    op = None
    if value.type == "binary_expression":
        op = value.child_by_field_name("operator").type
        left, right = value.child_by_field_name("left"), value.child_by_field_name("right")
        lsrc, rsrc = _get_of(sf, left, var), _get_of(sf, right, var)
        tensors += [t for t in (lsrc, rsrc) if t]
        if lsrc and rsrc and op in _BINARY:
            text = f"{_BINARY[op]}({dst}, {lsrc}, {rsrc}, {count});"
        elif lsrc and not rsrc and op in _SCALAR and var not in sf.node_text(right):
            text = f"{_SCALAR[op]}({dst}, {lsrc}, {sf.node_text(right)}, {count});"
        elif rsrc and not lsrc and op in _SCALAR and var not in sf.node_text(left):
            text = f"{_SCALAR[op]}({dst}, {rsrc}, {sf.node_text(left)}, {count});"
    elif var not in sf.node_text(value) and "GetValue" not in sf.node_text(value):
        text = f"Duplicate({dst}, {sf.node_text(value)}, {count});"
    if text is None:
        return None
    if not zero:
        for t in dict.fromkeys(t for t in tensors if t):
            text = re.sub(rf"(?<![\w.>]){re.escape(t)}(?=,)", f"{t}[{start}]", text, count=1)
    found_types = {ctx.tensor_types.get((t or "").replace("this->", "")) for t in tensors}
    types = {t for t in found_types if t is not None}
    safe = (
        re.fullmatch(rf"[\w:<> ]*\b{re.escape(var)}\s*=\s*0[uUlL]*", sf.node_text(init).strip().rstrip(";")) is not None
        and update is not None
        and re.fullmatch(
            rf"(\+\+\s*{re.escape(var)}|{re.escape(var)}\s*\+\+|"
            rf"{re.escape(var)}\s*\+=\s*1)",
            sf.node_text(update).strip(),
        )
        is not None
        and None not in found_types
        and len(types) == 1
        and next(iter(types))[0] == "LocalTensor"
        and all("[" not in (t or "") for t in tensors)
        and (op != "/" or next(iter(types))[1] in _FLOAT_TYPES)
        and not _scalar_use_elsewhere(sf, loop, tensors)
    )
    return Fix(
        title=f"Vectorise: replace the element loop with {text.split('(')[0]}",
        edits=[edit_range(sf, loop.start_byte, loop.end_byte, text)],
        safe=safe,
    )


def _scalar_use_elsewhere(sf, loop, tensors: list[str | None]) -> bool:
    """Another GetValue/SetValue of these tensors in the same function: once the loop is a vector instruction, that
    scalar access needs a vector<->scalar sync the loop never needed, so the rewrite is not proved equivalent."""
    fn = loop
    while fn is not None and fn.type != "function_definition":
        fn = fn.parent
    if fn is None:
        return True
    text = sf.node_text(fn)
    lo, hi = loop.start_byte - fn.start_byte, loop.end_byte - fn.start_byte
    rest = text[:lo] + text[hi:]
    return any(re.search(rf"\b{re.escape(t)}\s*\.\s*(GetValue|SetValue)\b", rest) for t in tensors if t)


def _member_call(sf, call) -> tuple[str | None, str | None]:
    fn = call.child_by_field_name("function")
    if fn is None or fn.type != "field_expression":
        return None, None
    return sf.node_text(fn.child_by_field_name("argument")), sf.node_text(fn.child_by_field_name("field"))


def _get_of(sf, node, var) -> str | None:
    if node is None or node.type != "call_expression":
        return None
    recv, method = _member_call(sf, node)
    args = [a for a in node.child_by_field_name("arguments").named_children if a.type != "comment"]
    if method == "GetValue" and len(args) == 1 and sf.node_text(args[0]) == var:
        return recv
    return None
