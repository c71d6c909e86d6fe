"""Files changed under the server (`workspace/didChangeWatchedFiles`): a source, header or tilewise.toml of an operator
created, changed on disk, renamed or deleted while not open in the editor.

An operator's analysis reads its closed files from disk, so without this its diagnostics stay as they were until the
next edit of an open document, and a deleted file's linger in the Problems panel. Each event inside a known operator
(one the server has analysed) analyses it again, debounced per operator like an edit (a branch checkout is a burst of
events, often over several notifications); a deleted file's diagnostics are cleared at once (TilewiseServer.clear);
an operator with nothing left on disk has all of its cleared. A changed tilewise.toml drops the facts of the old
cases and runs the new ones (TilewiseServer.refresh_facts), as a save of a source does. Events outside every known
operator, and non-file URIs, are ignored: nothing was published there."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from lsprotocol import types

from tilewise.analysis.project import MANIFEST
from tilewise.lsp.handlers import safe
from tilewise.lsp.state import path_to_uri, uri_to_path

if TYPE_CHECKING:
    from tilewise.lsp.server import TilewiseServer


def event_path(uri: str) -> str | None:
    """The absolute, resolved path of a file URI (the form operator roots and published paths have); None for any
    other URI (untitled:, vscode-remote:) or one that does not parse."""
    try:
        if urlparse(uri).scheme != "file":
            return None
        path = uri_to_path(uri)
    except ValueError:
        return None
    return os.path.realpath(path) if os.path.isabs(path) else None


def affected(roots: list[str], path: str) -> list[str]:
    """The operator roots an event at `path` concerns: those holding it, and those inside it (a folder deleted)."""
    inside = path.rstrip("/") + "/"
    return [r for r in roots if r == path or path.startswith(r.rstrip("/") + "/") or r.startswith(inside)]


def register(server: TilewiseServer) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @safe(None)
    def did_change_watched_files(ls: TilewiseServer, params: types.DidChangeWatchedFilesParams) -> None:
        roots = list(ls.state.operators)
        touched: dict[str, bool] = {}  # root -> whether its tilewise.toml is among the events
        for event in params.changes:
            path = event_path(event.uri)
            if path is None:
                continue
            # Checked now, not by the event's type alone: an editor's atomic save (write aside, rename over) may
            # report a Deleted for a file that is back by the time the batch arrives.
            if event.type == types.FileChangeType.Deleted and not os.path.exists(path):
                ls.clear(path)
            for root in affected(roots, path):
                touched[root] = touched.get(root, False) or os.path.basename(path) == MANIFEST
        for root, manifest in touched.items():
            if ls.state.root_of(root) is None:
                ls.withdraw(root)  # no operator there any more: its analysis would only fail
                continue
            if manifest:
                ls.session(root).facts = None  # the old cases' sizes: the rules must not prove premises with them
                ls.refresh_facts(path_to_uri(root))
            ls.schedule_operator(root)
