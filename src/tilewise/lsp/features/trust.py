"""Workspace trust: opening a repository must not run its code.

Building an operator compiles the workspace's kernel and host sources, and a run executes them and its numpy golden
(a Python file from the workspace). A client that knows the workspace is untrusted says so at initialize with
`initializationOptions: {"trusted": false}` (the VS Code extension sends `vscode.workspace.isTrusted`). The server
then keeps analysing and linting from the sources as text, and refuses everything that builds or runs: `tilewise/run`,
`tilewise/tune`, `tilewise/optimize`, `tilewise/verifySuggestions` and the "Verify on the emulator" command answer an
error that says why (handlers.Untrusted), and the background case facts job never starts.

A client that says nothing is trusted: most LSP clients have no notion of workspace trust, and they start the server
on the user's own command. Trust is never a setting (a workspace's settings file could grant it to itself); a client
that is granted trust later restarts the server with `trusted: true` (the VS Code extension does).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from tilewise.lsp.server import TilewiseServer

log = logging.getLogger("tilewise.lsp")


def trusted_from(options: object) -> bool:
    """The client's word on trust in its initialization options: untrusted when it sends `trusted` as anything but
    `true` (a string "false" is not trust), trusted when it sends nothing."""
    if not isinstance(options, dict) or "trusted" not in options:
        return True
    return options["trusted"] is True


def register(server: TilewiseServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: TilewiseServer, params: types.InitializeParams) -> None:
        ls.state.trusted = trusted_from(params.initialization_options)
        if not ls.state.trusted:
            log.info("untrusted workspace: analysis and lint only; nothing is built or run")
