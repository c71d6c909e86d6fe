"""The server's background jobs (run, tune, verify, optimize): one way to start, report, cancel and end them.

A job is the long part of a request: a function on a worker thread, `work(job)`, with work-done progress on the
client's token (or on one the server creates), and items it hands to the feature that started it (`job.post(item)`
calls the feature's `on_item(item)` on the event loop, in order). Its result is the request's answer, and the
feature stores what it learnt on the operator's session and publishes it through TilewiseServer.publish: the service
publishes nothing, so each feature sends only its own diagnostics.

Cancelling reaches a job three ways: `$/cancelRequest` (pygls cancels the request's task), `window/workDoneProgress/
cancel` on its progress token, and the server's `tilewise.cancelJob` command {uri, kind?}. Each sets `job.stop`,
which the worker reads to stop at its next step (`cancelled=job.stop.is_set`, or the feature's `on_stop` tells it);
the progress ends "cancelled" at once, and the request answers cancelled once the worker has ended, so what it holds
(a results cache) is released after it let go (`cleanup`, which runs once the worker ends, whatever happened).

Per operator, a second job of a kind already running is refused (`busy="refuse"`: two tunes, optimisations or motif
verifications of one operator would race on its results and views; the editor's commands refuse one too) or it
supersedes the first (`busy="supersede"`: a run, where the newer one is what the user asked for and the older one's
result would be stale). A job that raises ends its progress "failed", logs its traceback, and answers the request
with one line that says so; the server goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError

from tilewise.lsp import progress
from tilewise.lsp.params import CancelJobArgs, register_command_args

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

log = logging.getLogger("tilewise.lsp")
T = TypeVar("T")
Busy = Literal["refuse", "supersede"]
CANCEL_COMMAND = "tilewise.cancelJob"
_END = object()  # what the worker posts last: every item before it has been handed over


class JobRefused(JsonRpcInternalError):
    """A second job of a kind already running on the operator, where that kind allows one at a time."""


class JobFailed(JsonRpcInternalError):
    """A job whose work raised: one line for the client; the server log has the traceback."""


@dataclass(eq=False)
class Job:
    """One running job, as its worker and its feature see it."""

    kind: str
    root: str
    title: str
    loop: asyncio.AbstractEventLoop
    server: LanguageServer
    key: str = ""
    token: str | int | None = None  # its work-done progress token; None when the client has no progress support
    stop: threading.Event = field(default_factory=threading.Event)  # set on cancel: the worker stops at its next step
    task: asyncio.Task | None = None  # the request's task (cancelling it cancels the request)
    _items: asyncio.Queue = field(default_factory=asyncio.Queue)
    _ended: bool = False

    def report(self, message: str, percentage: int | None = None) -> None:
        """A progress message; from the worker thread or the event loop."""
        self._on_loop(self._report, message, percentage)

    def post(self, item: Any) -> None:
        """Hand `item` to the feature's `on_item`, on the event loop (from the worker thread)."""
        self.loop.call_soon_threadsafe(self._items.put_nowait, item)

    def cancel(self) -> None:
        """Stop the job (on the event loop): the worker at its next step, the request as cancelled."""
        self.stop.set()
        if self.task is not None and not self.task.done():
            self.task.cancel()

    def end(self, message: str) -> None:
        """End the progress with `message` (once; on the event loop)."""
        if not self._ended:
            self._ended = True
            progress.end(self.server, self.token, message)

    def _report(self, message: str, percentage: int | None) -> None:
        if not self._ended:
            progress.report(self.server, self.token, message, percentage)

    def _on_loop(self, fn: Callable[..., None], *args: Any) -> None:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            fn(*args)
        else:
            self.loop.call_soon_threadsafe(fn, *args)


class JobService:
    """The running jobs of a server, by (kind, operator root, key); see the module's docstring."""

    def __init__(self, server: LanguageServer) -> None:
        self.server = server
        self.running: dict[tuple[str, str, str], Job] = {}

    async def run(
        self,
        kind: str,
        root: str,
        title: str,
        work: Callable[[Job], T],
        *,
        token: str | int | None = None,
        busy: Busy = "refuse",
        key: str = "",
        on_start: Callable[[Job], None] = lambda job: None,
        on_item: Callable[[Any], None] = lambda item: None,
        on_stop: Callable[[], None] = lambda: None,
        cleanup: Callable[[], None] = lambda: None,
        done: Callable[[T], str] = lambda _: "done",
    ) -> T:
        """Run `work(job)` on a worker thread as the job `kind` on the operator at `root`, with progress titled
        `title` (on the client's `token` when it sent one). On the event loop: `on_start(job)` once the progress has
        begun, `on_item` for each item the worker posts, `on_stop` when the job is cancelled, and `done(result)`,
        the feature's last word, which returns the progress's end message; `cleanup` runs once the worker has ended
        (or at once when it never started). The result, or CancelledError, JobRefused or JobFailed."""
        slot = (kind, root, key)
        self._claim(slot, title, busy, cleanup)
        job = Job(kind, root, title, asyncio.get_running_loop(), self.server, key=key, task=asyncio.current_task())
        self.running[slot] = job
        worker: asyncio.Future | None = None
        try:
            job.token = await progress.start(self.server, title, token)
            on_start(job)
            worker = asyncio.ensure_future(asyncio.to_thread(self._work, job, work))
            worker.add_done_callback(lambda _: _safely(cleanup, title))
            while (item := await job._items.get()) is not _END:
                on_item(item)
            result = await worker
        except asyncio.CancelledError:
            job.end("cancelled")
            await self._wind_down(job, worker, on_stop)  # the request answers once the worker has let go
            raise
        except Exception as exc:
            job.end("failed")
            if worker is not None and not worker.done():  # a feature's hook failed: stop the worker too
                await self._wind_down(job, worker, on_stop)
            log.error("%s failed", title, exc_info=exc)
            raise JobFailed(message=f"{title} failed: {one_line(exc)} (the server log has the traceback)") from exc
        finally:
            if self.running.get(slot) is job:
                del self.running[slot]
            if worker is None:  # the worker never started: nothing else will clean up
                _safely(cleanup, title)
        job.end(done(result))  # (after the slot is free: a client that starts the next job on the end may)
        return result

    def _claim(self, slot: tuple[str, str, str], title: str, busy: Busy, cleanup: Callable[[], None]) -> None:
        """Make room for a job in `slot`: refuse it while one runs there (JobRefused, after `cleanup`), or cancel
        the one running (`busy="supersede"`)."""
        held = self.running.get(slot)
        if held is None:
            return
        if busy == "refuse":
            _safely(cleanup, title)
            state = "is stopping after the work in flight" if held.stop.is_set() else "is already running"
            raise JobRefused(message=f"{held.title} {state}; wait for it to end, or cancel it first")
        log.info("%s supersedes the one running", title)
        held.cancel()

    @staticmethod
    async def _wind_down(job: Job, worker: asyncio.Future | None, on_stop: Callable[[], None]) -> None:
        """Stop the worker (the stop flag, and the feature's `on_stop`) and wait until it has ended; a second
        cancel while waiting ends the wait (the clean-up still runs when the worker ends)."""
        job.stop.set()
        _safely(on_stop, job.title)
        if worker is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(worker)

    @staticmethod
    def _work(job: Job, work: Callable[[Job], T]) -> T:
        try:
            return work(job)
        finally:
            job.post(_END)

    def cancel(self, root: str, kind: str | None = None) -> list[Job]:
        """Cancel the jobs running on the operator at `root` (of `kind` only, when given); those it cancelled."""
        found = [j for (k, r, _), j in self.running.items() if r == root and kind in (None, k)]
        for job in found:
            job.cancel()
        return found

    def cancel_token(self, token: str | int) -> Job | None:
        """Cancel the job whose progress is on `token` (window/workDoneProgress/cancel); None when none is."""
        job = next((j for j in self.running.values() if j.token == token), None)
        if job is not None:
            job.cancel()
        return job

    def register(self, root_of: Callable[[str], str | None]) -> None:
        """The two ways to cancel a job besides `$/cancelRequest`: the progress's cancel button, and the server's
        command `tilewise.cancelJob` {uri, kind?} (answered {"cancelled": [titles]}); `root_of` maps a document's
        URI to its operator's root."""
        server: Any = self.server
        register_command_args(server, CancelJobArgs, CANCEL_COMMAND)

        @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
        def progress_cancelled(params: types.WorkDoneProgressCancelParams) -> None:
            job = self.cancel_token(params.token)
            if job is not None:
                log.info("cancelled from its progress: %s", job.title)

        @server.command(CANCEL_COMMAND)
        def cancel_job(params: CancelJobArgs) -> dict[str, Any]:
            root = root_of(params.uri)
            jobs = self.cancel(root, params.kind) if root is not None else []
            return {"cancelled": [j.title for j in jobs]}


def one_line(exc: BaseException) -> str:
    """`Kind: first line of the message`, for an error the client shows."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


def _safely(fn: Callable[[], None], title: str) -> None:
    """A hook of a job, whose failure is logged and goes no further (the job's own outcome stands)."""
    try:
        fn()
    except Exception:
        log.exception("%s: a clean-up step failed", title)
