"""Hover: an AscendC call (what it does, its pipe, its cost on the chip, its size or the formula that decides it at
run time, and the last run's measured figures for its line), a knob (value and search domain), a queue (depth and
UB use), a tiling field (type and the value the host sets).

An adapter: the facts and their Markdown come from `analysis.explain` and `analysis.explain_markdown` (and the
server state's last run); this module only finds what the cursor is on and wraps the text in an LSP Hover, after
which come the texts other features provide (TilewiseServer.hover_providers: a motif's example)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types

from tilewise.analysis.explain_markdown import (
    call_markdown,
    format_measured,
    knob_markdown,
    queue_markdown,
    tiling_read_markdown,
)
from tilewise.lsp.handlers import safe

if TYPE_CHECKING:
    from tilewise.lsp.server import TilewiseServer

log = logging.getLogger("tilewise.lsp")

__all__ = ["describe", "register"]


def _at(loc, path: str, offset: int) -> bool:
    return loc is not None and loc.file == path and loc.start <= offset <= loc.end


def describe(analysis, path: str, offset: int, run=None) -> str | None:
    """The hover text at `offset` of `path`; `run` is the operator's last run per line (server state), if any."""
    model, ctx = analysis.op.model, analysis.context
    manifest = analysis.op.manifest
    first_case = manifest.cases[0].name if manifest and manifest.cases else None
    for c in model.api_calls:
        name_end = c.loc.start + len((c.receiver + ".") if c.receiver else "") + len(c.name) + 40
        if _at(c.loc, path, offset) and offset <= name_end:
            lines = call_markdown(ctx, c, first_case)
            if run is not None:
                lines.append(format_measured(run, c.loc.file, c.loc.line, c.name, analysis.op.sources[path].text))
            return "\n\n".join(x for x in lines if x)
    for k in model.knobs:
        if _at(k.literal, path, offset) or (k.file == path and _line_of(analysis, path, offset) == k.line):
            return knob_markdown(k)
    for q in model.queues:
        if _at(q.loc, path, offset):
            return queue_markdown(ctx, q, first_case)
    for r in model.tiling_reads:
        if _at(r.loc, path, offset):
            return tiling_read_markdown(ctx, r)
    return None


def _line_of(analysis, path: str, offset: int) -> int:
    return analysis.op.sources[path].line_col(offset)[0]


def register(server: TilewiseServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @safe(None)
    async def hover(ls: TilewiseServer, params: types.HoverParams) -> types.Hover | None:
        at = await ls.analysis_at(params.text_document.uri, params.position)
        if at is None:
            return None
        session = ls.session(str(at[0].op.project.root))
        parts = [describe(*at, run=session.run_lines)]
        for provide in ls.hover_providers:  # other features' text (the motifs' examples), isolated from this
            try:
                parts.append(provide(session, *at))
            except Exception:
                log.exception("a hover provider failed")
        text = "\n\n---\n\n".join(p for p in parts if p)
        if not text:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))
