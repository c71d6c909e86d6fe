"""Document sync: an open, an edit or a save schedules a (debounced) analysis of the operator, whose diagnostics
the server then publishes (TilewiseServer.publish); an open or a save also refreshes the facts its cases show."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from tilewise.lsp.server import TilewiseServer


def register(server: TilewiseServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: TilewiseServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, delay=0)
        ls.refresh_facts(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: TilewiseServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: TilewiseServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, delay=0)
        ls.refresh_facts(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: TilewiseServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, delay=0)
