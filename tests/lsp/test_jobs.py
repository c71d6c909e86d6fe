"""The server's job service (lsp/jobs.py) on its own, without a client or a device: a job's items reach its feature in
order, it can be cancelled three ways and answers once its worker has ended, a failing job is one line and the
service goes on, and a second job of a kind is refused or supersedes the first.

Nothing here waits on time: each worker blocks on an Event the test sets, so the order of events is the test's."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest
from lsprotocol import types

from tilewise.lsp.jobs import CANCEL_COMMAND, Job, JobFailed, JobRefused, JobService

BOUND_S = 30  # a bound for a hung test, never a wait the test relies on


class FakeProgress:
    """pygls's work-done progress as the service calls it, recording each begin, report and end by token."""

    def __init__(self, supported: bool = True) -> None:
        self.supported = supported
        self.events: list[tuple[str, object, str | None]] = []

    async def create_async(self, token) -> None:
        if not self.supported:
            raise RuntimeError("the client has no window.workDoneProgress")

    def begin(self, token, value: types.WorkDoneProgressBegin) -> None:
        self.events.append(("begin", token, value.title))

    def report(self, token, value: types.WorkDoneProgressReport) -> None:
        self.events.append(("report", token, value.message))

    def end(self, token, value: types.WorkDoneProgressEnd) -> None:
        self.events.append(("end", token, value.message))

    def ends(self) -> list[str | None]:
        return [message for kind, _, message in self.events if kind == "end"]


class FakeServer:
    def __init__(self, supported: bool = True) -> None:
        self.work_done_progress = FakeProgress(supported)


async def _in_thread(event: threading.Event) -> None:
    assert await asyncio.to_thread(event.wait, BOUND_S), "the worker never got there"


def _service(supported: bool = True) -> tuple[JobService, FakeProgress]:
    server = FakeServer(supported)
    return JobService(server), server.work_done_progress  # type: ignore[arg-type]


@pytest.mark.asyncio
async def test_a_job_hands_its_items_over_in_order_and_ends_with_the_features_word():
    service, progress = _service()
    seen: list[int] = []

    def work(job: Job) -> int:
        for i in range(5):
            job.report(f"item {i}")
            job.post(i)
        return 42

    result = await service.run(
        "tune", "/op", "Tuning op", work, token="client-1", on_item=seen.append, done=lambda r: f"got {r}"
    )
    assert result == 42 and seen == [0, 1, 2, 3, 4]
    assert progress.events[0] == ("begin", "client-1", "Tuning op")  # on the client's own token
    assert [m for k, _, m in progress.events if k == "report"] == [f"item {i}" for i in range(5)]
    assert progress.events[-1] == ("end", "client-1", "got 42") and not service.running


@pytest.mark.asyncio
async def test_a_client_without_progress_still_gets_the_result():
    service, progress = _service(supported=False)
    assert await service.run("run", "/op", "Running op", lambda job: job.report("x") or "m") == "m"
    assert progress.events == []


async def _cancel_a_held_job(cancel) -> tuple[list[str], FakeProgress, asyncio.Task]:
    """Start a job whose worker holds until released, cancel it with `cancel(service, task)`, and check that the
    request answers only once the worker has ended, with the stop hook run and the clean-up after the worker."""
    service, progress = _service()
    started, release = threading.Event(), threading.Event()
    log: list[str] = []

    def work(job: Job) -> None:
        started.set()
        assert release.wait(BOUND_S)
        log.append(f"worker ended, stop={job.stop.is_set()}")

    task = asyncio.ensure_future(
        service.run(
            "tune",
            "/op",
            "Tuning op",
            work,
            on_stop=lambda: log.append("stopped"),
            cleanup=lambda: log.append("cleaned up"),
        )
    )
    await _in_thread(started)
    cancel(service, task)
    await asyncio.sleep(0)  # (one turn of the loop: the cancel is delivered)
    for _ in range(3):
        await asyncio.sleep(0)
    assert not task.done()  # the worker still holds: the request has not answered
    assert progress.ends() == ["cancelled"] and log == ["stopped"]
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, BOUND_S)
    assert log == ["stopped", "worker ended, stop=True", "cleaned up"] and not service.running
    return log, progress, task


@pytest.mark.asyncio
async def test_a_cancelled_request_stops_the_worker_and_answers_after_it():
    await _cancel_a_held_job(lambda service, task: task.cancel())  # what pygls does on $/cancelRequest


@pytest.mark.asyncio
async def test_the_progress_cancel_button_cancels_the_job_on_that_token():
    def by_token(service: JobService, task) -> None:
        [job] = service.running.values()
        assert service.cancel_token(job.token) is job
        assert service.cancel_token("no such token") is None

    await _cancel_a_held_job(by_token)


@pytest.mark.asyncio
async def test_the_cancel_command_cancels_the_operators_jobs_of_a_kind():
    def by_command(service: JobService, task) -> None:
        assert service.cancel("/other") == [] and service.cancel("/op", "run") == []
        [job] = service.cancel("/op", "tune")
        assert job.title == "Tuning op"

    await _cancel_a_held_job(by_command)


@pytest.mark.asyncio
async def test_a_failing_job_is_one_line_the_traceback_is_logged_and_the_service_goes_on(caplog):
    service, progress = _service()
    cleaned: list[bool] = []

    def work(job: Job) -> None:
        raise RuntimeError("the golden crashed\nsecond line of detail")

    with caplog.at_level(logging.ERROR, logger="tilewise.lsp"), pytest.raises(JobFailed) as caught:
        await service.run("run", "/op", "Running op", work, cleanup=lambda: cleaned.append(True))
    message = caught.value.message
    assert message == "Running op failed: RuntimeError: the golden crashed (the server log has the traceback)"
    assert progress.ends() == ["failed"] and cleaned == [True] and not service.running
    [record] = [r for r in caplog.records if r.getMessage() == "Running op failed"]
    assert record.exc_info is not None and record.exc_info[0] is RuntimeError  # the traceback, in the log
    assert await service.run("run", "/op", "Running op", lambda job: "again") == "again"


@pytest.mark.asyncio
async def test_a_failing_feature_hook_stops_the_worker_too():
    service, progress = _service()
    worker_stopped = threading.Event()

    def work(job: Job) -> None:
        job.post("boom")
        assert job.stop.wait(BOUND_S)
        worker_stopped.set()

    def on_item(item) -> None:
        raise KeyError(item)

    with pytest.raises(JobFailed, match="KeyError: 'boom'"):
        await service.run("tune", "/op", "Tuning op", work, on_item=on_item)
    assert worker_stopped.is_set() and progress.ends() == ["failed"]


@pytest.mark.asyncio
async def test_a_second_job_of_a_kind_is_refused_while_the_first_runs():
    service, _ = _service()
    started, release = threading.Event(), threading.Event()

    def held(job: Job) -> str:
        started.set()
        assert release.wait(BOUND_S)
        return "first"

    first = asyncio.ensure_future(service.run("tune", "/op", "Tuning op", held))
    await _in_thread(started)
    cleaned: list[bool] = []
    with pytest.raises(JobRefused, match="Tuning op is already running; wait for it to end, or cancel it first"):
        await service.run("tune", "/op", "Tuning op", lambda job: "second", cleanup=lambda: cleaned.append(True))
    assert cleaned == [True]  # what the refused job would have held is released
    # another kind, or another operator, goes ahead
    assert await service.run("optimize", "/op", "Optimizing op", lambda job: "other kind") == "other kind"
    assert await service.run("tune", "/other", "Tuning other", lambda job: "other op") == "other op"
    release.set()
    assert await asyncio.wait_for(first, BOUND_S) == "first"
    assert await service.run("tune", "/op", "Tuning op", lambda job: "after") == "after"


@pytest.mark.asyncio
async def test_a_second_run_supersedes_the_first():
    service, progress = _service()
    started, release = threading.Event(), threading.Event()

    def held(job: Job) -> str:
        started.set()
        assert release.wait(BOUND_S)
        return "stale"

    first = asyncio.ensure_future(service.run("run", "/op", "Running op", held, busy="supersede"))
    await _in_thread(started)
    second = asyncio.ensure_future(service.run("run", "/op", "Running op", lambda job: "fresh", busy="supersede"))
    assert await asyncio.wait_for(second, BOUND_S) == "fresh"
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(first, BOUND_S)
    assert sorted(progress.ends()) == ["cancelled", "done"] and not service.running


def test_the_cancel_command_and_the_progress_cancel_are_registered():
    from tilewise.lsp.server import create_server

    server = create_server()
    assert CANCEL_COMMAND in server.protocol.fm.commands
    assert types.WINDOW_WORK_DONE_PROGRESS_CANCEL in server.protocol.fm.features


def test_each_feature_adds_its_own_diagnostics_and_a_failing_one_takes_none_of_the_others(caplog):
    """TilewiseServer.item_providers: every feature registers its own; the run's, the tune's and the motifs' are
    there, and a provider that raises is logged while the lint findings and the other providers' items go out."""
    from types import SimpleNamespace

    from paths import EXAMPLES

    from tilewise.analysis.operator import load_operator
    from tilewise.lsp.results import EditorItem, diagnostics_by_file, motif_items, run_items, tune_items
    from tilewise.lsp.server import create_server
    from tilewise.lsp.state import OperatorSession

    assert create_server().item_providers == [tune_items, run_items, motif_items]
    op = load_operator(EXAMPLES / "add_custom_slow_pipe_all")
    kernel = next(p for p in op.sources if p.endswith(".cpp") and "op_kernel" in p)
    analysis = SimpleNamespace(op=op, findings=[])
    span = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=1))
    mine = EditorItem(kernel, types.Diagnostic(range=span, message="the working feature's", source="t"))

    def broken(session, analysis):
        raise RuntimeError("a feature's bug")

    session = OperatorSession(str(op.project.root))
    with caplog.at_level(logging.ERROR, logger="tilewise.lsp"):
        by_file = diagnostics_by_file(session, analysis, [broken, lambda s, a: [mine]])
    assert [d.message for d in by_file[kernel]] == ["the working feature's"]
    assert set(by_file) >= set(op.sources)  # every source is still there, with what it has
    [record] = [r for r in caplog.records if "broken" in r.getMessage()]
    assert record.exc_info is not None and record.exc_info[0] is RuntimeError
