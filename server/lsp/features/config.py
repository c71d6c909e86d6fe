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
        old = ls.state.settings
        try:
            ls.state.settings = Settings.model_validate({**ls.state.settings.model_dump(by_alias=True), **section})
        except ValidationError as exc:
            first = exc.errors()[0]
            name = f"tilewise.{first['loc'][0]}" if first["loc"] else "tilewise settings"
            ls.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Error, message=f"{name}: {first['msg']}; the old value is kept"
                )
            )
            return
        if (ls.state.settings.device, ls.state.settings.chip) != (old.device, old.chip):
            ls.state.tuned.clear()  # measured on another device or chip: look up the stored results again
            ls.state.replayed.clear()
        if ls.state.settings.chip != old.chip or not ls.state.settings.case_facts:
            ls.state.facts.clear()  # another chip's UB and core count, or facts the user turned off
            for job in ls.state.facts_jobs.values():
                job.cancel()
        ls.state.analyses.clear()
        for uri in list(ls.workspace.text_documents):
            ls.schedule(uri, delay=0)
