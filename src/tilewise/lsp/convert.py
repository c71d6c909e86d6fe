"""Between tilewise's positions (byte offsets, 1-based lines and character columns) and LSP's (0-based, UTF-16)."""

from __future__ import annotations

from lsprotocol import types

from tilewise.analysis.findings import Finding, Fix
from tilewise.analysis.source import SourceFile
from tilewise.lsp.state import path_to_uri

SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


def lsp_range(sf: SourceFile, start: int, end: int) -> types.Range:
    """The range of bytes [start, end) of `sf`, clamped to its text: a position past its end is its end."""
    size = len(sf.data)
    start = min(max(start, 0), size)
    sl, sc = sf.lsp_position(start)
    el, ec = sf.lsp_position(min(max(end, start), size))
    return types.Range(start=types.Position(line=sl, character=sc), end=types.Position(line=el, character=ec))


def diagnostic(sf: SourceFile, f: Finding, message: str | None = None) -> types.Diagnostic:
    return types.Diagnostic(
        range=lsp_range(sf, f.start, f.end),
        message=message or f.message,
        severity=SEVERITY[f.severity],
        source="tilewise",
        code=f.rule,
    )


def workspace_edit(sources: dict[str, SourceFile], fix: Fix) -> types.WorkspaceEdit:
    changes: dict[str, list[types.TextEdit]] = {}
    for e in fix.edits:
        sf = sources[e.file]
        changes.setdefault(path_to_uri(e.file), []).append(
            types.TextEdit(range=lsp_range(sf, e.start, e.end), new_text=e.new_text)
        )
    return types.WorkspaceEdit(changes=changes)


def ranges_overlap(a: types.Range, b: types.Range) -> bool:
    """Whether two LSP ranges share a position (touching ends count: a cursor at a range's end is in it)."""
    return (a.start.line, a.start.character) <= (b.end.line, b.end.character) and (b.start.line, b.start.character) <= (
        a.end.line,
        a.end.character,
    )
