"""A kernel entry declared `__global__` without `__aicore__` does not compile for the AI Core."""

from __future__ import annotations

from analysis.findings import Fix
from analysis.rules.base import Rule, RuleContext, edit_range


class MissingAicore(Rule):
    id = "missing-aicore"
    severity = "error"
    summary = "kernel entry without __aicore__"

    def check(self, ctx: RuleContext):
        for entry in ctx.model.kernel.entries:
            if entry.has_aicore:
                continue
            sf = ctx.sources.get(entry.file)
            fixes = []
            if sf is not None:
                mark = next((m for m in sf.pre.marks if m.kind == "qualifier" and m.name == "__global__"
                             and m.start < entry.loc.start and entry.loc.start - m.start < 200), None)
                at = mark.end if mark else entry.loc.start
                text = " __aicore__" if mark else "__aicore__ "
                fixes.append(Fix(title="Add __aicore__ to the kernel entry", edits=[edit_range(sf, at, at, text)]))
            yield self.finding(entry.loc, (
                f"kernel entry '{entry.name}' lacks __aicore__: it must be declared "
                f"extern \"C\" __global__ __aicore__ void {entry.name}(...)."), fixes)
