"""`window/workDoneProgress` for the long jobs (lsp/jobs.py: run, tune, verify, optimize): on the client's own token
when it sent one, else on one the server creates; a client without progress support still gets the job's result."""

from __future__ import annotations

import uuid

from lsprotocol import types
from pygls.lsp.server import LanguageServer


async def start(ls: LanguageServer, title: str, token: str | int | None = None) -> str | int | None:
    """Progress on the client's own `workDoneToken` when it sent one (its UI shows our messages), else on a token
    the server creates; None when the client has no progress support."""
    if token:
        ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, cancellable=True))
        return token
    token = str(uuid.uuid4())
    try:
        await ls.work_done_progress.create_async(token)
        ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, cancellable=True))
        return token
    except Exception:  # noqa: BLE001 - a client without progress support still gets the result
        return None


def report(ls: LanguageServer, token: str | int | None, message: str, percentage: int | None = None) -> None:
    if token:
        ls.work_done_progress.report(token, types.WorkDoneProgressReport(message=message, percentage=percentage))


def end(ls: LanguageServer, token: str | int | None, message: str) -> None:
    if token:
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))
