"""SetFlag without its WaitFlag (the sync does nothing) or WaitFlag without its SetFlag (the pipe hangs)."""

from __future__ import annotations

from analysis.findings import Fix
from analysis.rules.base import Rule, RuleContext, edit_range, indent_of, statement_of


def _event(template_args: str | None) -> str:
    return "".join((template_args or "").split()).replace("AscendC::", "")


class UnpairedFlag(Rule):
    id = "unpaired-flag"
    severity = "warning"
    summary = "SetFlag / WaitFlag without its partner"

    def check(self, ctx: RuleContext):
        sets: dict[tuple[str, str], list] = {}
        waits: dict[tuple[str, str], list] = {}
        for c in ctx.model.calls("SetFlag", "WaitFlag"):
            key = (_event(c.template_args), "".join(c.args[0].text.split()) if c.args else "")
            (sets if c.name == "SetFlag" else waits).setdefault(key, []).append(c)
        for key, calls in sets.items():
            if key in waits:
                continue
            for c in calls:
                yield self.finding(c.loc, (
                    f"SetFlag<{key[0]}>({key[1]}) has no matching WaitFlag<{key[0]}>({key[1]}): the consumer pipe "
                    "does not wait, so it may read data the producer has not finished writing."),
                    self._insert_wait(ctx, c, key))
        for key, calls in waits.items():
            if key in sets:
                continue
            for c in calls:
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
