"""Diagnostics: lint findings and syntax errors of every file in the edited operator, debounced per operator."""

from __future__ import annotations

from lsprotocol import types

from server.lsp.convert import diagnostic
from server.lsp.results import editor_items
from server.lsp.state import path_to_uri


def publish(server, root: str, analysis) -> None:
    by_file: dict[str, list[types.Diagnostic]] = {path: [] for path in analysis.op.sources}
    for f in analysis.findings:
        sf = analysis.op.sources.get(f.file)
        if sf is not None:
            by_file.setdefault(f.file, []).append(diagnostic(sf, f))
    for p in analysis.op.problems:
        sf = analysis.op.sources.get(p.file)
        if sf is not None and p.line:
            by_file[p.file].append(types.Diagnostic(
                range=types.Range(start=types.Position(line=p.line - 1, character=0),
                                  end=types.Position(line=p.line - 1, character=len(sf.line_text(p.line)))),
                message=p.message, severity=types.DiagnosticSeverity.Error, source="tilewise"))
    for item in editor_items(server.state, analysis):
        by_file.setdefault(item.file, []).append(item.diagnostic)
    for path, diagnostics in by_file.items():
        server.text_document_publish_diagnostics_for(path_to_uri(path), diagnostics)


def register(server) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls, params: types.DidOpenTextDocumentParams):
        ls.schedule(params.text_document.uri, delay=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls, params: types.DidChangeTextDocumentParams):
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls, params: types.DidSaveTextDocumentParams):
        ls.schedule(params.text_document.uri, delay=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls, params: types.DidCloseTextDocumentParams):
        ls.schedule(params.text_document.uri, delay=0)
