"""Code actions: a quick fix for every finding with a deterministic rewrite, and "Apply tuned tiling"."""

from __future__ import annotations

from lsprotocol import types

from server.lsp.convert import lsp_range, workspace_edit
from server.lsp.results import editor_items
from server.lsp.server import safe
from server.lsp.state import uri_to_path


def _overlaps(a: types.Range, b: types.Range) -> bool:
    return (a.start.line, a.start.character) <= (b.end.line, b.end.character) and \
        (b.start.line, b.start.character) <= (a.end.line, a.end.character)


def register(server) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    @safe([])
    async def code_action(ls, params: types.CodeActionParams):
        analysis = await ls.analysis_for(params.text_document.uri)
        if analysis is None:
            return []
        path = uri_to_path(params.text_document.uri)
        sf = analysis.op.sources.get(path)
        if sf is None:
            return []
        actions = []
        for f in analysis.findings:
            if f.file != path or not f.fixes or not _overlaps(lsp_range(sf, f.start, f.end), params.range):
                continue
            for fix in f.fixes:
                actions.append(types.CodeAction(
                    title=fix.title, kind=types.CodeActionKind.QuickFix, is_preferred=True,
                    diagnostics=[d for d in params.context.diagnostics if d.code == f.rule],
                    edit=workspace_edit(analysis.op.sources, fix)))
        for item in editor_items(ls.state, analysis):
            if item.action is not None and item.file == path and _overlaps(item.diagnostic.range, params.range):
                actions.append(item.action)
        return actions
