"""SetFlag without its WaitFlag (the sync does nothing) or WaitFlag without its SetFlag (the pipe hangs).

A flag is named by its event kind and its event id, and the id is a value, not a spelling: public kernels keep ids
in arrays indexed by a slot (`SetFlag(ev[slot])` ... `WaitFlag(ev[s])` in the drain loop) and rotate ids through
variables (`tmp = e0; e0 = e1; e1 = e2; e2 = tmp;` for a triple buffer). Ids are therefore matched by the array
they come from and through the plain assignments between id variables; only a kind whose ids never meet is
reported.
"""

from __future__ import annotations

import re

from analysis.findings import Fix
from analysis.rules.base import Rule, RuleContext, edit_range, indent_of, statement_of

_COPY_RE = re.compile(r"\b([A-Za-z_]\w*)\s*=\s*([A-Za-z_]\w*)\s*;")


def _event(template_args: str | None) -> str:
    return "".join((template_args or "").split()).replace("AscendC::", "")


def _id_base(arg: str) -> str:
    """The variable an event id comes from: `ev[slot]` -> `ev`, `this->ev` -> `ev`."""
    text = "".join(arg.split())
    text = re.sub(r"\[.*\]$", "", text)
    return re.sub(r"^(?:this->|\(event_t\))", "", text)


def _id_groups(ctx: RuleContext, names: set[str]) -> dict[str, str]:
    """Each id name's group: names joined by a copy `a = b;` between two of them, or of one to a constant id."""
    parent = {n: n for n in names}

    def find(n: str) -> str:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for path in ctx.model.kernel_files:
        sf = ctx.sources.get(path)
        if sf is None:
            continue
        for m in _COPY_RE.finditer(sf.pre.text.decode("utf-8", "replace")):
            a, b = m.group(1), m.group(2)
            if a in names and (b in names or b.startswith("EVENT_ID")):
                parent.setdefault(b, b)
                parent[find(a)] = find(b)
    return {n: find(n) for n in names}


class UnpairedFlag(Rule):
    id = "unpaired-flag"
    severity = "warning"
    summary = "SetFlag / WaitFlag without its partner"

    def check(self, ctx: RuleContext):
        calls_ = ctx.model.calls("SetFlag", "WaitFlag")
        group = _id_groups(ctx, {_id_base(c.args[0].text) for c in calls_ if c.args})
        sets: dict[tuple[str, str], list] = {}
        waits: dict[tuple[str, str], list] = {}
        keys: dict[int, tuple[str, str]] = {}
        for c in calls_:
            key = (_event(c.template_args), "".join(c.args[0].text.split()) if c.args else "")
            keys[id(c)] = key
            ident = (key[0], group[_id_base(c.args[0].text)] if c.args else "")
            (sets if c.name == "SetFlag" else waits).setdefault(ident, []).append(c)
        for ident, calls in sets.items():
            if ident in waits:
                continue
            for c in calls:
                key = keys[id(c)]
                yield self.finding(c.loc, (
                    f"SetFlag<{key[0]}>({key[1]}) has no matching WaitFlag<{key[0]}>({key[1]}): the consumer pipe "
                    "does not wait, so it may read data the producer has not finished writing."),
                    self._insert_wait(ctx, c, key))
        for ident, calls in waits.items():
            if ident in sets:
                continue
            for c in calls:
                key = keys[id(c)]
                yield self.finding(c.loc, (
                    f"WaitFlag<{key[0]}>({key[1]}) waits for an event no SetFlag<{key[0]}>({key[1]}) sets: the "
                    "pipe will hang. Add the SetFlag after the producing instruction."), severity="error")

    @staticmethod
    def _insert_wait(ctx: RuleContext, call, key) -> list[Fix]:
        found = ctx.node(call.loc)
        if found is None:
            return []
        sf, node = found
        stmt = statement_of(node)
        indent = indent_of(sf, stmt.start_byte)
        text = f"\n{indent}WaitFlag<{key[0]}>({call.args[0].text});"
        return [Fix(title=f"Add the matching WaitFlag<{key[0]}>",
                    edits=[edit_range(sf, stmt.end_byte, stmt.end_byte, text)])]
