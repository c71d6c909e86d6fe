"""Code actions: "Apply" for a fix its rule proved safe; "Verify on the emulator" for one it could not prove (and,
once verified on the current sources, "Apply (verified ...)" when it held); "Apply tuned tiling"; and what other
features provide (TilewiseServer.action_providers: the motifs').

In an untrusted workspace (features/trust.py) "Verify on the emulator" is not offered: it builds and runs the
workspace's code, which the server refuses there. The actions that only edit text stay."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types

from tilewise.analysis.findings import Finding, Fix
from tilewise.lsp.convert import lsp_range, ranges_overlap, workspace_edit
from tilewise.lsp.handlers import safe
from tilewise.lsp.results import VERIFY_COMMAND, editor_items, verdict_for, verify_arguments
from tilewise.lsp.state import Analysis, OperatorSession, uri_to_path

if TYPE_CHECKING:
    from tilewise.lsp.server import TilewiseServer

log = logging.getLogger("tilewise.lsp")


def _action(
    session: OperatorSession,
    analysis: Analysis,
    finding: Finding,
    fix: Fix,
    diagnostics: list[types.Diagnostic],
    trusted: bool = True,
) -> types.CodeAction | None:
    if fix.safe:
        return types.CodeAction(
            title=fix.title,
            kind=types.CodeActionKind.QuickFix,
            is_preferred=True,
            diagnostics=diagnostics,
            edit=workspace_edit(analysis.op.sources, fix),
        )
    verdict = verdict_for(session, analysis, finding, fix)
    if verdict is None:
        if not trusted:  # verifying runs the workspace's code: refused there, so not offered
            return None
        title = f"Verify on the emulator: {fix.title}"
        return types.CodeAction(
            title=title,
            kind=types.CodeActionKind.QuickFix,
            diagnostics=diagnostics,
            command=types.Command(title=title, command=VERIFY_COMMAND, arguments=verify_arguments(finding, fix)),
        )
    if not verdict.correct:
        return None  # it broke a case: the finding's message says how, and nothing offers to apply it
    gain = f", {verdict.speedup:.2f}x" if verdict.speedup else ""
    if verdict.uncertain:
        gain += ", within the model's error"
    return types.CodeAction(
        title=f"Apply (verified on the emulator{gain}): {fix.title}",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=diagnostics,
        edit=workspace_edit(analysis.op.sources, fix),
    )


def register(server: TilewiseServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])
    )
    @safe([])
    async def code_action(ls: TilewiseServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        analysis = await ls.analysis_for(params.text_document.uri)
        if analysis is None:
            return []
        path = uri_to_path(params.text_document.uri)
        sf = analysis.op.sources.get(path)
        if sf is None:
            return []
        session = ls.session(str(analysis.op.project.root))
        actions = []
        for f in analysis.findings:
            if f.file != path or not f.fixes or not ranges_overlap(lsp_range(sf, f.start, f.end), params.range):
                continue
            diagnostics = [d for d in params.context.diagnostics if d.code == f.rule]
            for fix in f.fixes:
                action = _action(session, analysis, f, fix, diagnostics, ls.state.trusted)
                if action is not None:
                    actions.append(action)
        for item in editor_items(session, analysis, ls.item_providers):
            if item.action is not None and item.file == path and ranges_overlap(item.diagnostic.range, params.range):
                actions.append(item.action)
        for provide in ls.action_providers:  # other features' actions (the motifs'), isolated from these
            try:
                actions.extend(provide(session, analysis, path, params.range))
            except Exception:
                log.exception("a code action provider failed")
        return actions
