"""The hardware `SyncAll()` needs a workspace: a host that allocates none breaks the cross-core barrier.

The SyncAll reference: the hard-sync form (no arguments) works only in an operator project, and the tiling
function's workspace size must not be 0; a vector-only kernel forced to a MIX task type likewise needs a non-zero
workspace. The soft-sync form takes its own GM and UB buffers (any GM tensor the kernel chooses), so the host's
workspace is not its premise and it is not checked.

Severity follows what is proved: the tiling sets the size to 0 -> error. The operator's host code sets no size
lint can see (a base class outside the operator may) -> info, saying so.
"""

from __future__ import annotations

from tilewise.analysis.rules.base import Rule, RuleContext


class SyncAllWithoutWorkspace(Rule):
    id = "syncall-without-workspace"
    severity = "error"
    summary = "SyncAll without a workspace"

    def check(self, ctx: RuleContext):
        model = ctx.model
        if model.layout != "project" or not model.tiling.functions:
            return
        calls = [c for c in model.calls("SyncAll") if not c.args]  # the hard-sync form
        if not calls:
            return
        workspace = [w for tf in model.tiling.functions for w in tf.workspace]
        if workspace and any(w.value is None or w.value > 0 for w in workspace):
            return
        fix_hint = (
            "Set it to the system workspace (ascendcPlatform.GetLibApiWorkSpaceSize()) plus what the kernel uses."
        )
        if workspace:
            yield self.finding(
                calls[0].loc,
                (
                    "SyncAll() (hard sync) needs a non-zero workspace, but the tiling function sets the workspace "
                    "size to "
                    f"0. {fix_hint}"
                ),
            )
            return
        yield self.finding(
            calls[0].loc,
            (
                "SyncAll() (hard sync) needs a non-zero workspace, and the operator's tiling code sets no workspace "
                "size "
                "(no GetWorkspaceSizes here; unproven if a shared base class outside the operator sets one). If none "
                f"is set, the barrier fails. {fix_hint}"
            ),
            severity="info",
        )
