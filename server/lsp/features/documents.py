"""Diagnostics: lint findings and syntax errors of every file in the edited operator, debounced per operator."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from server.lsp.convert import diagnostic
from server.lsp.results import editor_items, finding_message
from server.lsp.state import path_to_uri


def publish(server, root: str, analysis) -> None:
    by_file: dict[str, list[types.Diagnostic]] = {path: [] for path in analysis.op.sources}
    for f in analysis.findings:
        sf = analysis.op.sources.get(f.file)
        if sf is not None:
            message = finding_message(server.state, analysis, f) if server.state.verified else f.message
            by_file.setdefault(f.file, []).append(diagnostic(sf, f, message))
    for p in analysis.op.problems:
        diagnostic_ = _problem(analysis, p)
        if diagnostic_ is not None:
            by_file.setdefault(p.file, []).append(diagnostic_)
    for item in editor_items(server.state, analysis):
        by_file.setdefault(item.file, []).append(item.diagnostic)
    # A file that had diagnostics last time and has none now (a fixed tilewise.toml) is cleared too.
    sent = server.state.published.setdefault(root, {})
    for path in set(sent) - set(by_file):
        by_file[path] = []
    for path, diagnostics in by_file.items():
        # Only what changed goes out: a file whose text and diagnostics are those the client has already (the
        # host files, while the kernel is edited) is not sent again on every keystroke.
        sf = analysis.op.sources.get(path)
        state = (hash(sf.text) if sf is not None else 0, diagnostics)
        if sent.get(path) == state:
            continue
        if diagnostics or sf is not None:
            sent[path] = state
        else:
            sent.pop(path, None)  # a cleared file that is not a source: nothing to remember
        server.text_document_publish_diagnostics_for(path_to_uri(path), diagnostics)


def _problem(analysis, p) -> types.Diagnostic | None:
    """A problem at its line: in a source, the whole line; in another file of the operator (tilewise.toml, a
    header that is not UTF-8), the start of the line."""
    sf = analysis.op.sources.get(p.file)
    if sf is not None and not p.line:
        return None  # e.g. the operator-level problems shown by `tilewise lint`
    if sf is None and not Path(p.file).is_file():
        return None  # a missing folder: there is no file to attach it to
    line = max(p.line or 1, 1)
    end = len(sf.line_text(line)) if sf is not None and line <= sf.line_count() else 0
    return types.Diagnostic(
        range=types.Range(
            start=types.Position(line=line - 1, character=0), end=types.Position(line=line - 1, character=end)
        ),
        message=p.message,
        severity=types.DiagnosticSeverity.Error,
        source="tilewise",
    )


def register(server) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls, params: types.DidOpenTextDocumentParams):
        ls.schedule(params.text_document.uri, delay=0)
        ls.refresh_facts(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls, params: types.DidChangeTextDocumentParams):
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls, params: types.DidSaveTextDocumentParams):
        ls.schedule(params.text_document.uri, delay=0)
        ls.refresh_facts(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls, params: types.DidCloseTextDocumentParams):
        ls.schedule(params.text_document.uri, delay=0)
