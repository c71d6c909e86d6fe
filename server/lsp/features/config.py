"""Settings from the client (`workspace/didChangeConfiguration`, section `tilewise`): device, chip, budget,
strategy. Invalid values are reported to the user and leave the old settings in place."""

from __future__ import annotations

from lsprotocol import types
from pydantic import ValidationError

from server.lsp.state import Settings


def register(server) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls, params: types.DidChangeConfigurationParams):
        raw = params.settings or {}
        section = raw.get("tilewise", raw) if isinstance(raw, dict) else {}
        try:
            ls.state.settings = Settings.model_validate({**ls.state.settings.model_dump(), **section})
        except ValidationError as exc:
            ls.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Error, message=f"tilewise settings: {exc.errors()[0]['msg']}"))
            return
        ls.state.analyses.clear()
        for uri in list(ls.workspace.text_documents):
            ls.schedule(uri, delay=0)
