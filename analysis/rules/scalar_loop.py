"""Per-element GetValue/SetValue loops: each element is a scalar round trip through UB (or GM)."""

from __future__ import annotations

from analysis.findings import Fix
from analysis.rules._gain import scalar_loop_gain
from analysis.rules.base import Rule, RuleContext, edit_range

_BINARY = {"+": "Add", "-": "Sub", "*": "Mul", "/": "Div"}
_SCALAR = {"+": "Adds", "*": "Muls"}


class ScalarLoop(Rule):
    id = "scalar-loop"
    severity = "warning"
    summary = "element-by-element GetValue/SetValue loop that a vector instruction would do"

    def check(self, ctx: RuleContext):
        seen: set[tuple[str, int]] = set()
        for call in ctx.model.calls("GetValue", "SetValue"):
            if not call.loops or call.receiver is None:
                continue
            loop = call.loops[0]
            key = (loop.loc.file, loop.loc.start)
            if key in seen or not _indexes_by_loop_var(loop.header, call):
                continue
            seen.add(key)
            where = "GM" if ctx.is_global(call.receiver) else "UB"
            fixes = []
            found = ctx.node(loop.loc)
            if found is not None:
                fix = _vector_rewrite(*found)
                if fix:
                    gain = scalar_loop_gain(ctx.chip, where == "GM", ctx.elem_size(call, call.receiver) or 2)
                    fix.title += f" (about {gain:.0f}x faster for a long loop, estimate)"
                    fixes.append(fix)
            yield self.finding(loop.loc, (
                f"this loop reads/writes {where} one element at a time with GetValue/SetValue on the scalar unit "
                "(each access waits for the vector and MTE pipes); a vector instruction over the whole tile (Add, "
                "Muls, Maxs, Select, ...) does 128 fp16 or 64 fp32 lanes per cycle."), fixes)


def _indexes_by_loop_var(header: str, call) -> bool:
    import re

    m = re.search(r"for\s*\(\s*[\w:<> ]*?\b(\w+)\s*=", header)
    if not m:
        return True  # while/do loops: an element walk without a for-header is still a scalar loop
    var = m.group(1)
    return any(re.search(rf"\b{re.escape(var)}\b", a.text) for a in call.args[:1])


def _vector_rewrite(sf, loop) -> Fix | None:
    """Rewrite `for (i = 0; i < N; ++i) dst.SetValue(i, a.GetValue(i) OP b.GetValue(i));` as one vector call."""
    if loop.type != "for_statement":
        return None
    init, cond, body = (loop.child_by_field_name(k) for k in ("initializer", "condition", "body"))
    if init is None or cond is None or body is None or cond.type != "binary_expression":
        return None
    var = sf.node_text(cond.child_by_field_name("left"))
    if cond.child_by_field_name("operator").type != "<" or var not in sf.node_text(init):
        return None
    count = sf.node_text(cond.child_by_field_name("right"))
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
    if value.type == "binary_expression":
        op = value.child_by_field_name("operator").type
        left, right = value.child_by_field_name("left"), value.child_by_field_name("right")
        lsrc, rsrc = _get_of(sf, left, var), _get_of(sf, right, var)
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
    return Fix(title=f"Vectorise: replace the element loop with {text.split('(')[0]}",
               edits=[edit_range(sf, loop.start_byte, loop.end_byte, text)])


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
