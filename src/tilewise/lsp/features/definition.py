"""Go to definition: from a tiling field read in the kernel to its TILING_DATA_FIELD_DEF, and from a queue use to
its declaration."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from tilewise.lsp.convert import lsp_range
from tilewise.lsp.handlers import safe
from tilewise.lsp.state import path_to_uri

if TYPE_CHECKING:
    from tilewise.lsp.server import TilewiseServer


def register(server: TilewiseServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    @safe(None)
    async def definition(ls: TilewiseServer, params: types.DefinitionParams) -> types.Location | None:
        at = await ls.analysis_at(params.text_document.uri, params.position)
        if at is None:
            return None
        analysis, path, offset = at
        model, sources = analysis.op.model, analysis.op.sources
        target = None
        for r in model.tiling_reads:
            if r.loc.file == path and r.loc.start <= offset <= r.loc.end:
                target = next((f.loc for f in model.tiling.fields if f.name == r.field), None)
        if target is None:
            word = _word_at(sources[path].data, offset)
            target = next((q.loc for q in model.queues if q.name == word), None)
        if target is None or target.file not in sources:
            return None
        return types.Location(
            uri=path_to_uri(target.file), range=lsp_range(sources[target.file], target.start, target.end)
        )


def _word_at(data: bytes, offset: int) -> str:
    start = offset
    while start > 0 and (chr(data[start - 1]).isalnum() or data[start - 1] == 95):
        start -= 1
    end = offset
    while end < len(data) and (chr(data[end]).isalnum() or data[end] == 95):
        end += 1
    return data[start:end].decode("utf-8", "replace")
