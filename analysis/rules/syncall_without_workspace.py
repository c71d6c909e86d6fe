"""`SyncAll()` needs a GM workspace; a host that allocates none makes the cross-core barrier fail."""

from __future__ import annotations

from analysis.rules.base import Rule, RuleContext


class SyncAllWithoutWorkspace(Rule):
    id = "syncall-without-workspace"
    severity = "error"
    summary = "SyncAll without a workspace"

    def check(self, ctx: RuleContext):
        model = ctx.model
        if model.layout != "project" or not model.tiling.functions:
            return
        calls = model.calls("SyncAll")
        if not calls:
            return
        workspace = [w for tf in model.tiling.functions for w in tf.workspace]
        if workspace and any(w.value is None or w.value > 0 for w in workspace):
            return
        yield self.finding(calls[0].loc, (
            "SyncAll() synchronises cores through a GM workspace, but the tiling function allocates none "
            "(GetWorkspaceSizes is unset or 0). Set it to the system workspace "
            "(ascendcPlatform.GetLibApiWorkSpaceSize()) plus what the kernel uses."))
