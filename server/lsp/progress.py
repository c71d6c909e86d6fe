"""`window/workDoneProgress` for the long jobs (run, tune, verify a fix): on the client's own token when it sent
one, else on one the server creates; a client without progress support still gets the job's result."""

from __future__ import annotations

import uuid

from lsprotocol import types


def get(params, key, default=None):
    """A request parameter, whether pygls handed the params over as a dict or as an object."""
    if params is None:
        return default
    if isinstance(params, dict):
        return params.get(key, default)
    return getattr(params, key, default)


async def start(ls, title: str, params=None):
    """Progress on the client's own `workDoneToken` when it sent one (its UI shows our messages), else on a token
    the server creates."""
    token = get(params, "workDoneToken") or get(params, "work_done_token")
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


def report(ls, token, message: str, percentage: int | None = None) -> None:
    if token:
        ls.work_done_progress.report(token, types.WorkDoneProgressReport(message=message, percentage=percentage))


def end(ls, token, message: str) -> None:
    if token:
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))
