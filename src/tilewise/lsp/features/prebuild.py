"""The emulator's per-installation build, started in the background when the editor connects.

A fresh installation's first "Run on emulator" would otherwise compile the emulator's runtime, runner, kernel
API header and host prelude before the operator's own code (device/emulator/prebuilt.py): tens of seconds the user
waits for. Once the client has said whether the workspace is trusted (features/trust.py, at initialize), a trusted
workspace on the emulator device starts that build on a daemon thread at `initialized`. It compiles only tilewise's
own headers, never the workspace's code, but an untrusted workspace builds nothing at all, as everywhere else. When
the artefacts are already there this only looks at four files; a run that starts while the build is going waits
for it instead of building the same thing twice (prebuilt.py's per-artefact lock).
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from tilewise.lsp.server import TilewiseServer

log = logging.getLogger("tilewise.lsp")


def start_prebuild(ls: TilewiseServer) -> threading.Thread | None:
    """Start the background build, or None when the workspace is untrusted or the device is not the emulator."""
    if not ls.state.trusted or ls.state.settings.device != "emulator":
        return None
    thread = threading.Thread(target=_prebuild, name="tilewise-prebuild", daemon=True)
    thread.start()
    return thread


def _prebuild() -> None:
    from tilewise.device.emulator.build import prebuild  # here: the server starts without the build's imports

    try:
        if not prebuild():
            log.info("the emulator's shared build could not be made here: each build compiles it itself")
    except Exception:  # a background nicety: never the server's failure
        log.warning("the emulator's background build failed", exc_info=True)


def register(server: TilewiseServer) -> None:
    @server.feature(types.INITIALIZED)
    def initialized(ls: TilewiseServer, params: types.InitializedParams) -> None:
        start_prebuild(ls)
