"""Settings from the client (`workspace/didChangeConfiguration`, section `tilewise`): device, chip, budget,
strategy, the model endpoint (`llm`). Invalid values are reported to the user and leave the old settings in place."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types
from pydantic import ValidationError

from tilewise.lsp.state import Settings

if TYPE_CHECKING:
    from tilewise.lsp.server import TilewiseServer


def register(server: TilewiseServer) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: TilewiseServer, params: types.DidChangeConfigurationParams) -> None:
        raw = params.settings or {}
        section = raw.get("tilewise", raw) if isinstance(raw, dict) else {}
        try:
            new = Settings.model_validate({**ls.state.settings.model_dump(by_alias=True), **section})
        except ValidationError as exc:
            first = exc.errors()[0]
            # the whole path: `tilewise.llm.baseUrl`, not `tilewise.llm`
            name = "tilewise." + ".".join(str(x) for x in first["loc"]) if first["loc"] else "tilewise settings"
            ls.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Error, message=f"{name}: {first['msg']}; the old value is kept"
                )
            )
            return
        ls.state.change_settings(new)  # drops what the new settings make stale, in every operator's session
        for uri in list(ls.workspace.text_documents):
            ls.schedule(uri, delay=0)
