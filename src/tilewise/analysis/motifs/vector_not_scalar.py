"""vector-not-scalar: elementwise arithmetic on a tile is one vector instruction (Add, Muls, Maxs, Abs, ...), never a
GetValue/SetValue loop on the scalar unit.

Why: the vector unit does 128 fp16 or 64 fp32 lanes per cycle; the scalar unit does one element per UB load and
store, each waiting for the pipes, so an element loop over a tile of thousands of elements costs tens of times more.

Rewind: a vector call on whole tiles (`Add/Sub/Mul/Div(dst, a, b, n)`, `Adds/Muls(dst, a, s, n)`,
`Max/Min(dst, a, b, n)`, `Maxs/Mins(dst, a, s, n)`, `Abs/Relu(dst, a, n)`) becomes a loop of SetValue over the same
n elements, with the V->S event before it when vector work precedes it in the function (the scalar unit reads what
the vector unit wrote) and an S->V (or S->MTE3) event after it (what comes next reads what the loop wrote).
Detect: the scalar-loop lint rule's loops, and the element loops it leaves unreported (nested in a row loop,
reading a slice). Where the rule proved its own one-call fix the same computation, that fix (with the events around
the loop taken out too); otherwise the loop's meaning, lowered: the body is read as an expression over whole tiles
(casts, arithmetic, comparisons, clamps written as if-chains, ternaries or min/max: analysis/motifs/_elementwise.py)
and becomes the vector calls that compute the same values with the same types and roundings
(analysis/motifs/_vector_plan.py), with a buffer for temporaries when the computation needs one
(analysis/motifs/_vector_edits.py).

Example (slow -> fast):
`for (uint32_t i = 0; i < len; i++) { zLocal.SetValue(i, xLocal.GetValue(i) + yLocal.GetValue(i)); }`
-> `Add(zLocal, xLocal, yLocal, len);`
"""

from __future__ import annotations

import re

from tilewise.analysis.apis import PIPES
from tilewise.analysis.findings import TextEdit, edit_range
from tilewise.analysis.model import ApiCall
from tilewise.analysis.motifs._vector_edits import vector_edits
from tilewise.analysis.motifs.base import (
    Motif,
    MotifContext,
    Rewound,
    Site,
    element_type,
    enclosing,
    indent_at,
    is_gm,
    line_end,
    line_start,
    splice,
)
from tilewise.analysis.rules.scalar_loop import SMALL_TRIPS
from tilewise.analysis.source import SourceFile

_OPERATOR = {"Add": "+", "Sub": "-", "Mul": "*", "Div": "/", "Adds": "+", "Muls": "*"}
_PICK = {"Max": ">", "Min": "<", "Maxs": ">", "Mins": "<"}
_ARITY = {**{n: 4 for n in (*_OPERATOR, *_PICK)}, "Abs": 3, "Relu": 3}
_SCALAR_ARG = {"Adds", "Muls", "Maxs", "Mins"}
_LOW_FLOAT = {"half", "bfloat16_t", "float16_t"}
_VECTOR = tuple(n for n, p in PIPES.items() if p == "vector")
_SYNC_LINE = re.compile(
    r"[ \t]*(?:event_t \w+ = static_cast<event_t>\(GetTPipePtr\(\)->FetchEventID\(HardEvent::(\w+)\)\);"
    r"|SetFlag<HardEvent::(\w+)>\(\w+\);|WaitFlag<HardEvent::(\w+)>\(\w+\);)[ \t]*\n"
)


def _sync(event: str, name: str, indent: str) -> str:
    return (
        f"{indent}event_t {name} = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::{event}));\n"
        f"{indent}SetFlag<HardEvent::{event}>({name});\n"
        f"{indent}WaitFlag<HardEvent::{event}>({name});\n"
    )


def _free_name(text: str) -> str:
    for name in ("i", "j", "k", "e", "idx", "elem"):
        if not re.search(rf"\b{name}\b", text):
            return name
    return "scalarLoopIdx"


def _value(call: ApiCall, elem: str, i: str) -> tuple[list[str], str] | None:
    """The loop body's locals and the stored value of element `i`, or None for a call this motif does not write."""
    args = [a.text.strip() for a in call.args]
    if len(args) != _ARITY.get(call.name, -1):
        return None
    get_a = f"{args[1]}.GetValue({i})"
    other = args[2] if call.name in _SCALAR_ARG else f"{args[2]}.GetValue({i})" if len(args) == 4 else ""
    if call.name in _OPERATOR:  # the one-statement form the scalar-loop rule's fix turns back into the call
        return [], f"{get_a} {_OPERATOR[call.name]} {other}"
    wide = "float" if elem in _LOW_FLOAT else elem  # half has no comparison of its own: pick in float
    lets = [f"{wide} v = static_cast<{wide}>({get_a});"]
    if call.name in _PICK:
        lets.append(f"{wide} w = static_cast<{wide}>({other});")
        return lets, f"static_cast<{elem}>(v {_PICK[call.name]} w ? v : w)"
    zero = f"static_cast<{wide}>(0)"
    if call.name == "Abs":
        return lets, f"static_cast<{elem}>(v < {zero} ? static_cast<{wide}>({zero} - v) : v)"
    return lets, f"static_cast<{elem}>(v > {zero} ? v : {zero})"  # Relu


class VectorNotScalar(Motif):
    def rewind(self, ctx: MotifContext) -> list[Rewound]:
        vector = ctx.calls(*_VECTOR)
        out = []
        for call in sorted(ctx.calls(*_ARITY), key=lambda c: not c.in_loop):  # loop work first
            if call.template_args:
                continue
            found = ctx.statement(call)
            if found is None:
                continue
            sf, stmt = found
            fn = enclosing(stmt, "function_definition")
            if fn is None or stmt.parent is None or stmt.parent.type != "compound_statement":
                continue
            dst = call.args[0].text.strip() if call.args else ""
            elem = element_type(sf, fn, dst)
            i = _free_name(sf.node_text(fn))
            made = _value(call, elem, i) if elem else None
            if made is None:
                continue
            lets, value = made
            same_fn = [
                c
                for c in vector
                if c is not call and c.loc.file == sf.path and fn.start_byte <= c.loc.start < fn.end_byte
            ]
            before = any(c.loc.start < stmt.start_byte for c in same_fn)
            after = any(c.loc.start >= stmt.end_byte for c in same_fn)
            text = self._loop(sf, stmt.start_byte, call, i, lets, value, dst, before, after)
            new = splice(sf, line_start(sf, stmt.start_byte), line_end(sf, stmt.end_byte), text)
            out.append(
                Rewound(
                    self.id,
                    f"{call.name}({dst}, ...) -> a scalar SetValue loop",
                    {sf.path: new},
                    sf.path,
                    call.loc.line,
                )
            )
        return out

    @staticmethod
    def _loop(
        sf: SourceFile, at: int, call: ApiCall, i: str, lets: list[str], value: str, dst: str, before: bool, after: bool
    ) -> str:
        indent = indent_at(sf, at)
        inner = indent + "    "
        n = call.args[-1].text.strip()
        n = n if re.fullmatch(r"[\w.>\-]+", n) else f"({n})"
        tag = call.loc.line
        head = _sync("V_S", f"eventVToS{tag}", indent) if before else ""
        body = "".join(f"{inner}{let}\n" for let in lets) + f"{inner}{dst}.SetValue({i}, {value});\n"
        loop = f"{indent}for (uint32_t {i} = 0; {i} < {n}; {i}++) {{\n{body}{indent}}}\n"
        tail = _sync("S_V", f"eventSToV{tag}", indent) if after else _sync("S_MTE3", f"eventSToMte3{tag}", indent)
        return head + loop + tail

    def detect(self, ctx: MotifContext) -> list[Site]:
        sites = []
        for f in ctx.findings_of(self.rule or ""):
            fix = f.fixes[0] if f.fixes else None
            sf = ctx.sources.get(f.file)
            edits = list(fix.edits) if fix is not None else None
            if sf is not None and (fix is None or not fix.safe):
                # the rule's rewrite is not proved the same computation: the loop's meaning, lowered, where it reads
                meant = _meant_at(ctx, sf, f.line, f.end_line)
                edits = meant if meant is not None else edits
            if edits and len(edits) == 1 and sf is not None and fix is not None and edits == list(fix.edits):
                edits = [self._with_events(sf, edits[0])]
            elif edits is None and sf is not None:
                edits = _vectorised_at(sf, f.line, f.end_line)
            site = Site(self.id, f.file, f.line, f.end_line, f.message, edits or None, col=f.col, end_col=f.end_col)
            sites.append(site)
        return sites + self._unreported(ctx, sites)

    def _unreported(self, ctx: MotifContext, sites: list[Site]) -> list[Site]:
        """Element loops the rule did not report (nested in a row loop, reading a slice) whose whole body computes
        each element from UB tiles by operations the vector unit has: each is a few vector calls."""
        out: list[Site] = []
        for path in ctx.kernel_files:
            sf = ctx.sources[path]
            for loop in _loops(sf):
                line, end = loop.start_point[0] + 1, loop.end_point[0] + 1
                if any(s.file == path and s.line <= end and line <= s.end_line for s in sites + out):
                    continue
                if _short(ctx, sf, loop) or any(
                    is_gm(sf, t) for t in re.findall(r"(\w+)(?:\[[^\]]*\])?\.(?:Set|Get)Value", sf.node_text(loop))
                ):
                    continue
                found = vector_edits(ctx.model, sf, loop)
                edits = found[0] if found is not None else _vectorised(sf, loop)
                if edits is None:
                    continue
                why = (
                    "this loop computes one element per iteration with GetValue/SetValue on the scalar unit; its "
                    "whole body is elementwise operations the vector unit has, which vector instructions do for the "
                    "whole tile."
                )
                out.append(Site(self.id, path, line, end, why, edits))
        return out

    @staticmethod
    def _with_events(sf: SourceFile, e: TextEdit) -> TextEdit:
        """The rule's loop replacement widened over the event triples that stand right before and after the loop
        (a scalar loop's own syncs, which the vector call does not need)."""
        start, end = line_start(sf, e.start), line_end(sf, e.end)
        if sf.data[start : e.start].strip() or sf.data[e.end : end].strip():
            return e  # the loop shares its lines with other code: keep the rule's edit as it is
        above = sf.data[:start].decode("utf-8", "replace").splitlines(keepends=True)[-3:]
        if len(above) == 3 and _events(above) == {"V_S"}:
            start -= len("".join(above).encode())
        below = sf.data[end:].decode("utf-8", "replace").splitlines(keepends=True)[:3]
        if len(below) == 3 and _events(below) in ({"S_V"}, {"S_MTE3"}):
            end += len("".join(below).encode())
        return edit_range(sf, start, end, f"{indent_at(sf, e.start)}{e.new_text}\n")


# `dst.SetValue(i, a.GetValue(i) OP b.GetValue(i))` or `... OP scalar`, the whole body of an element loop
_ELEMENT_BODY = re.compile(
    r"\{?\s*(\w+(?:\[[^\]]*\])?)\.SetValue\(\s*(\w+)\s*,\s*(\w+(?:\[[^\]]*\])?)\.GetValue\(\s*\2\s*\)\s*([-+*])\s*"
    r"(?:(\w+(?:\[[^\]]*\])?)\.GetValue\(\s*\2\s*\)|([^;]+?))\s*\)\s*;\s*(?:(?:\+\+\s*\2|\2\s*\+\+|\2\s*\+=\s*1)\s*;\s*)?\}?"
)
_BINARY = {"+": "Add", "-": "Sub", "*": "Mul"}
_WITH_SCALAR = {"+": "Adds", "*": "Muls"}


def _loops(sf: SourceFile) -> list:
    """Every for and while statement of the file, in order."""
    found, stack = [], [sf.tree.root_node]
    while stack:
        n = stack.pop()
        if n.type in ("for_statement", "while_statement"):
            found.append(n)
        stack.extend(reversed(n.children))
    return found


def _meant_at(ctx: MotifContext, sf: SourceFile, line: int, end_line: int) -> list[TextEdit] | None:
    """The vector calls that compute what the first element loop starting within [line, end_line] computes, with
    its semantics kept (analysis/motifs/_vector_edits.py), or None."""
    for loop in _loops(sf):
        if line <= loop.start_point[0] + 1 <= max(end_line, line + 1):
            found = vector_edits(ctx.model, sf, loop)
            if found is not None:
                return found[0]
    return None


def _short(ctx: MotifContext, sf: SourceFile, loop) -> bool:
    """A loop whose bound is a constant of at most SMALL_TRIPS: cheaper on the scalar unit than the hand-offs."""
    cond = loop.child_by_field_name("condition")
    right = cond.child_by_field_name("right") if cond is not None and cond.type == "binary_expression" else None
    value = ctx.rules.evaluator(sf).value(right) if right is not None else None
    return value is not None and value <= SMALL_TRIPS


def _vectorised_at(sf: SourceFile, line: int, end_line: int) -> list[TextEdit] | None:
    """The vectorisation of the first element loop that starts within [line, end_line] (a finding may start on
    the counter's line above its loop)."""
    for loop in _loops(sf):
        if line <= loop.start_point[0] + 1 <= max(end_line, line + 1):
            edits = _vectorised(sf, loop)
            if edits is not None:
                return edits
    return None


def _vectorised(sf: SourceFile, loop) -> list[TextEdit] | None:
    """Where the rule found an element loop it has no fix for (a while loop, barriers around it), the one vector
    call it computes, when its whole body is one `dst.SetValue(i, a.GetValue(i) OP ...)`: the loop, its counter's
    declaration right above (for a while loop) and full barriers right around it become that call."""
    cond = sf.node_text(loop.child_by_field_name("condition")).strip()
    if loop.type == "while_statement" and cond.startswith("(") and cond.endswith(")"):
        cond = cond[1:-1].strip()  # the while's condition clause keeps its parentheses
    head = re.fullmatch(r"(\w+)\s*<\s*(.+)", cond, re.DOTALL)
    body = loop.child_by_field_name("body")
    m = _ELEMENT_BODY.fullmatch(sf.node_text(body).strip()) if head and body is not None else None
    if head is None or m is None or m.group(2) != head.group(1):
        return None
    dst, _, a, op, other, scalar = m.groups()
    n = head.group(2).strip()
    if other is not None:
        call = f"{_BINARY[op]}({dst}, {a}, {other}, {n});"
    elif op in _WITH_SCALAR:
        call = f"{_WITH_SCALAR[op]}({dst}, {a}, {scalar.strip()}, {n});"
    else:
        call = f"Adds({dst}, {a}, -({scalar.strip()}), {n});"
    start, end = line_start(sf, loop.start_byte), line_end(sf, loop.end_byte)
    counter = loop.type == "while_statement" and head.group(1)
    above = sf.data[:start].decode("utf-8", "replace").splitlines(keepends=True)
    while above and (
        above[-1].strip() == "PipeBarrier<PIPE_ALL>();"
        or (counter and re.fullmatch(rf"\s*(?:u?int\d*_t|int|unsigned|size_t)\s+{counter}\s*=\s*0\s*;\s*", above[-1]))
    ):
        start -= len(above.pop().encode())
    below = sf.data[end:].decode("utf-8", "replace").splitlines(keepends=True)
    if below and below[0].strip() == "PipeBarrier<PIPE_ALL>();":
        end += len(below[0].encode())
    return [edit_range(sf, start, end, f"{indent_at(sf, loop.start_byte)}{call}\n")]


def _events(lines: list[str]) -> set[str] | None:
    """The event of three lines that are one FetchEventID/SetFlag/WaitFlag triple, else None."""
    found = [_SYNC_LINE.fullmatch(line) for line in lines]
    if not all(found):
        return None
    return {g for m in found if m for g in m.groups() if g}


MOTIF = VectorNotScalar(
    id="vector-not-scalar",
    title="Do elementwise tile arithmetic with vector instructions, not a scalar loop",
    removes="a GetValue/SetValue loop over a tile's elements",
    kinds=("scalar-to-vector",),
    rule="scalar-loop",
)
