"""SetFlag without its WaitFlag (the sync does nothing) or WaitFlag without its SetFlag (the pipe hangs).

A flag is named by its event kind and its event id, and the id is a value, not a spelling: public kernels keep ids
in arrays indexed by a slot (`SetFlag(ev[slot])` ... `WaitFlag(ev[s])` in the drain loop), rotate ids through
variables (`tmp = e0; e0 = e1; e1 = e2; e2 = tmp;` for a triple buffer), hand a member's id to a reference
(`ev = self->ctx.evPing;`) or pick one with `cond ? EV_A : EV_B`. Ids are therefore matched by the variable or member
they are kept in (its last name), through the plain assignments between them, and a ternary joins its two arms;
only a kind whose ids never meet is reported.

Severity follows what is proved. When every id of the event kind is a constant (`EVENT_ID1`, a constexpr), an
unmatched WaitFlag hangs (error) and an unmatched SetFlag is never awaited (warning). When ids are variables
(allocated, fetched, stored in members), matching by name proves nothing: a note that says so, unless the kind has
no partner call at all. An id that is a
parameter of the function holding the flag comes from its callers, so it is not judged at all.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from tilewise.analysis.findings import Fix, edit_range
from tilewise.analysis.rules.base import Rule, RuleContext, indent_of, statement_of

_PATH = r"(?:[A-Za-z_]\w*(?:\[[^\];]*\])?(?:->|\.))*[A-Za-z_]\w*(?:\[[^\];]*\])?"
_COPY_RE = re.compile(rf"(?<![\w.>])({_PATH})\s*=\s*(?:static_cast<\w+>\(|\(\w+\))?\s*({_PATH})\s*\)?\s*;")
# `auto id = (idx % 2 == 0) ? pingId_ : pongId_;`: the variable holds either arm's id (a ping-pong slot)
_PICK_RE = re.compile(rf"(?<![\w.>=!<])({_PATH})\s*=(?!=)[^;?]*\?\s*({_PATH})\s*:\s*({_PATH})\s*;")


def _event(template_args: str | None) -> str:
    return "".join((template_args or "").split()).replace("AscendC::", "")


def _last_name(path: str) -> str:
    """`self->ctx.ev[slot]` -> `ev`: the member or variable the id is kept in."""
    path = re.sub(r"\[[^\]]*\]", "", path)
    return re.split(r"->|\.", path)[-1]


def _id_names(arg: str) -> list[str]:
    """The variables an event id comes from: `ev[slot]` -> [`ev`], `this->ctx.ev` -> [`ev`], a cast's operand,
    both arms of `cond ? A : B`."""
    text = "".join(arg.split())
    text = re.sub(r"^static_cast<\w+>\((.*)\)$|^\(event_t\)", r"\1", text)
    if "?" in text and ":" in text.split("?", 1)[1]:
        arms = text.split("?", 1)[1].split(":", 1)
        return [_last_name(a.strip("()")) for a in arms]
    return [_last_name(text)]


def _id_groups(ctx: RuleContext, calls: list) -> dict[str, str]:
    """Each id name's group: the names one call may use (a ternary's arms), joined by copies between id variables
    (`e0 = e1;`, `ev = self->ctx.evPing;`) or to a constant id."""
    names = {n for c in calls if c.args for n in _id_names(c.args[0].text)}
    parent = {n: n for n in names}

    def find(n: str) -> str:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    def join(a: str, b: str) -> None:
        parent.setdefault(a, a)
        parent.setdefault(b, b)
        parent[find(a)] = find(b)

    for c in calls:
        ids = _id_names(c.args[0].text) if c.args else []
        for other in ids[1:]:
            join(ids[0], other)
    if not names:
        return {}
    # Only the lines that name an id variable can copy one: the full copy pattern runs on those alone (on a whole
    # 3000-line kernel it costs more than the rest of the rule).
    named = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in sorted(names)) + r")\b")
    for path in ctx.model.kernel_files:
        sf = ctx.sources.get(path)
        if sf is None or b"=" not in sf.pre.text:
            continue
        for line in sf.pre.text.decode("utf-8", "replace").splitlines():
            if "=" not in line or not named.search(line):
                continue
            for m in _COPY_RE.finditer(line):
                a, b = _last_name(m.group(1)), _last_name(m.group(2))
                if a in names or b in names:
                    join(a, b)
            for m in _PICK_RE.finditer(line):
                a, b, c = (_last_name(m.group(i)) for i in (1, 2, 3))
                if a in names or b in names or c in names:
                    join(a, b)
                    join(a, c)
    return {n: find(n) for n in names}


# The same flags through the intrinsics or a project's macro over them: `wait_flag(PIPE_M, PIPE_MTE1, id)`,
# `WAIT_FLAG(M, MTE1, EVENT_ID0)`: partners too, though no finding is made on them.
_RAW_FLAG_RE = re.compile(
    r"\b(set_flag|wait_flag)\s*\(\s*(?:PIPE_)?(\w+)\s*,\s*(?:PIPE_)?(\w+)\s*,\s*([^;]+?)\)\s*;", re.I
)
_CONST_DEF_RE = re.compile(r"\bconstexpr\b[^;=(){}]*?\b([A-Za-z_]\w*)\s*=|#\s*define\s+([A-Za-z_]\w*)\s+\S")


def _constant_names(ctx: RuleContext) -> set[str]:
    names: set[str] = set()
    for path in ctx.model.kernel_files:
        sf = ctx.sources.get(path)
        if sf is not None:
            names.update(a or b for a, b in _CONST_DEF_RE.findall(sf.text))
    return names


def _is_constant(name: str, constants: set[str]) -> bool:
    return bool(re.fullmatch(r"EVENT_ID\d+|\d+", name)) or name in constants


def _is_parameter(ctx: RuleContext, call, name: str) -> bool:
    """Whether `name` is a parameter of the function the call is in (its value comes from the callers)."""
    found = ctx.node(call.loc)
    if found is None:
        return False
    sf, at = found
    node: Node | None = at
    while node is not None and node.type not in ("function_definition", "lambda_expression"):
        node = node.parent
    if node is None:
        return False
    params = next((d for d in _descendants(node.child_by_field_name("declarator")) if d.type == "parameter_list"), None)
    return params is not None and re.search(rf"\b{re.escape(name)}\b", sf.node_text(params)) is not None


def _descendants(node):
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        yield n
        if n.type != "compound_statement":
            stack.extend(reversed(n.children))


class UnpairedFlag(Rule):
    id = "unpaired-flag"
    severity = "warning"
    summary = "SetFlag / WaitFlag without its partner"

    def check(self, ctx: RuleContext):
        calls_ = ctx.model.calls("SetFlag", "WaitFlag")
        group = _id_groups(ctx, calls_)
        sets: dict[tuple[str, str], list] = {}
        waits: dict[tuple[str, str], list] = {}
        keys: dict[int, tuple[str, str]] = {}
        for c in calls_:
            key = (_event(c.template_args), "".join(c.args[0].text.split()) if c.args else "")
            keys[id(c)] = key
            ident = (key[0], group[_id_names(c.args[0].text)[0]] if c.args else "")
            (sets if c.name == "SetFlag" else waits).setdefault(ident, []).append(c)
        for path in ctx.model.kernel_files:
            sf = ctx.sources.get(path)
            if sf is None or "flag" not in sf.text.lower():
                continue
            for m in _RAW_FLAG_RE.finditer(sf.text):
                kind = f"HardEvent::{m.group(2).upper()}_{m.group(3).upper()}"
                names = _id_names(m.group(4))
                ident = (kind, group.get(names[0], names[0]))
                (sets if m.group(1).lower() == "set_flag" else waits).setdefault(ident, [])
        constants = _constant_names(ctx)
        proven: dict[str, bool] = {}  # event kind -> every id of that kind is a constant
        for c in calls_:
            kind = _event(c.template_args)
            names = _id_names(c.args[0].text) if c.args else [""]
            proven[kind] = proven.get(kind, True) and all(_is_constant(n, constants) for n in names)
        unproven = (
            " (the ids are variables, so matching them by name proves nothing: check that no {other} of "
            "this kind uses the same id value)"
        )
        for ident, calls in sets.items():
            if ident in waits:
                continue
            for c in calls:
                key = keys[id(c)]
                if any(_is_parameter(ctx, c, n) for n in _id_names(c.args[0].text) if c.args):
                    continue
                sure = proven[key[0]] or not any(k == key[0] for k, _ in waits)  # no WaitFlag of the kind at all
                yield self.finding(
                    c.loc,
                    (
                        f"SetFlag<{key[0]}>({key[1]}) has no matching WaitFlag<{key[0]}>({key[1]}): the consumer pipe "
                        "does not wait, so it may read data the producer has not finished writing"
                        + ("." if sure else unproven.format(other="WaitFlag") + ".")
                    ),
                    self._insert_wait(ctx, c, key) if sure else [],
                    severity=None if sure else "info",
                )
        for ident, calls in waits.items():
            if ident in sets:
                continue
            for c in calls:
                key = keys[id(c)]
                if any(_is_parameter(ctx, c, n) for n in _id_names(c.args[0].text) if c.args):
                    continue
                sure = proven[key[0]] or not any(k == key[0] for k, _ in sets)  # no SetFlag of the kind at all
                yield self.finding(
                    c.loc,
                    (
                        f"WaitFlag<{key[0]}>({key[1]}) waits for an event no SetFlag<{key[0]}>({key[1]}) sets: the "
                        "pipe will hang"
                        + ("" if sure else unproven.format(other="SetFlag"))
                        + ". Add the SetFlag after the producing instruction."
                    ),
                    severity="error" if sure else "info",
                )

    @staticmethod
    def _insert_wait(ctx: RuleContext, call, key) -> list[Fix]:
        found = ctx.node(call.loc)
        if found is None:
            return []
        sf, node = found
        stmt = statement_of(node)
        indent = indent_of(sf, stmt.start_byte)
        text = f"\n{indent}WaitFlag<{key[0]}>({call.args[0].text});"
        return [
            Fix(
                title=f"Add the matching WaitFlag<{key[0]}>", edits=[edit_range(sf, stmt.end_byte, stmt.end_byte, text)]
            )
        ]
