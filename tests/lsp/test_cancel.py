"""Cancelling a tune: the server stops the search and keeps answering, whatever the caches hold and however fast
the machine is.

The tune used to be cancelled after a fixed sleep, so with a warm results cache it had already finished and there
was nothing left to cancel. Here nothing depends on speed or on what earlier runs left behind:

- the server has a results cache of its own, emptied before the tune, and the operator is a fresh copy (its paths
  are part of the results' key), so the tune's first configuration is really measured;
- that measurement calls the operator's golden, which marks that the tune has started and then holds the
  measurement until the test releases it, after the cancel: the tune is cancelled in the middle of its work by
  construction, not by timing;
- the cancel is the `$/cancelRequest` an editor sends (the old test only cancelled its own future, which never
  reached the server), and the test checks the search stopped after the measurement it interrupted.
"""

from __future__ import annotations

import asyncio
import shutil
import uuid
from pathlib import Path

import pytest
import pytest_asyncio
from in_process import in_process_client
from lsp_helpers import EXAMPLES, IN_PROCESS_ENV, WORK, _workspace, open_doc
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled
from pytest_lsp import LanguageClient

CANCEL_CACHE = WORK / "cancel-cache"

# Waits on files are bounded so that a broken server fails the test instead of hanging it; the bound is never what
# makes the test pass.
BOUND_S = 300.0

GATED_GOLDEN = '''\
"""LeakyRelu's golden, gated: it says the tune has started, then holds the measurement until the test releases it."""
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def leaky_relu(x, negative_slope=0.01):
    with open(HERE / "calls", "a") as calls:  # one mark per measurement
        calls.write("x")
    (HERE / "tune-started").touch()
    deadline = time.monotonic() + 600
    while not (HERE / "release").exists():
        if time.monotonic() > deadline:
            raise TimeoutError("the test never released the measurement")
        time.sleep(0.02)
    slope = np.float32(np.asarray(negative_slope, dtype=np.float32).astype(x.dtype))
    neg = (x.astype(np.float32) * slope).astype(x.dtype)
    return np.where(x >= 0, x, neg).astype(x.dtype)
'''


@pytest_asyncio.fixture
async def cancel_client(monkeypatch):
    async with in_process_client({**IN_PROCESS_ENV, "TILEWISE_CACHE": str(CANCEL_CACHE)}, monkeypatch) as lsp_client:
        await lsp_client.initialize_session(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True)),
                root_uri=_workspace().as_uri(),
            )
        )
        yield lsp_client
        await lsp_client.shutdown_session()


async def appears(path: Path) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + BOUND_S
    while not path.exists():
        assert loop.time() < deadline, f"{path.name} never appeared"
        await asyncio.sleep(0.05)


async def progress_ends(client: LanguageClient) -> list[str]:
    """The end messages of every progress the server reported, once at least one has ended."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + BOUND_S
    while True:
        ends = [
            r.message
            for reports in client.progress_reports.values()
            for r in reports
            if isinstance(r, types.WorkDoneProgressEnd)
        ]
        if ends:
            return ends
        assert loop.time() < deadline, "no progress ever ended"
        await asyncio.sleep(0.05)


@pytest.mark.asyncio
async def test_a_tune_can_be_cancelled_and_the_server_answers_after(cancel_client: LanguageClient, tmp_path: Path):
    client = cancel_client
    root = tmp_path / "leaky"
    shutil.copytree(EXAMPLES / "leaky_relu", root)
    (root / "golden.py").write_text(GATED_GOLDEN)
    for suffix in ("", "-wal", "-shm"):  # nothing measured before (builds may stay): the tune must measure
        (CANCEL_CACHE / f"results.sqlite{suffix}").unlink(missing_ok=True)
    uri = open_doc(client, root / "op_kernel" / "leaky_relu.cpp")
    views: list = []
    client.feature("tilewise/convergence")(lambda *args: views.append(args[-1]))
    request_id = f"tune-{uuid.uuid4()}"
    tune = asyncio.ensure_future(
        client.protocol.send_request_async(
            "tilewise/tune", {"uri": uri, "budget": 60, "strategy": "random", "case": "fp32_ragged"}, msg_id=request_id
        )
    )
    try:
        await appears(root / "tune-started")
        assert not tune.done()  # its first measurement is held by the golden: the tune cannot have finished
        # what an editor sends (cancelling the client's future alone never reaches the server)
        client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=request_id))
        assert await progress_ends(client) == ["cancelled"]
        # the convergence view is told the search stopped (it would otherwise say "running" for ever)
        view = await client.protocol.send_request_async("tilewise/charts", {"uri": uri, "kind": "convergence"})
        assert view.done and view.stopped and views and views[-1].stopped
        # the server answers while the cancelled tune's measurement is still held
        lenses = await client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        assert lenses and lenses[0].command.title == "Run on emulator"
    finally:
        (root / "release").touch()
    # the answer comes once the measurement in flight has ended, and the search stopped there: one golden call
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(tune, BOUND_S)
    assert (root / "calls").read_text() == "x"


async def _held_tune(client: LanguageClient, root: Path, **params) -> tuple[str, asyncio.Future]:
    """A tune of a fresh copy of LeakyRelu at `root` whose first measurement the gated golden holds: its document's
    URI and the pending request, once the measurement has started."""
    shutil.copytree(EXAMPLES / "leaky_relu", root)
    (root / "golden.py").write_text(GATED_GOLDEN)
    uri = open_doc(client, root / "op_kernel" / "leaky_relu.cpp")
    tune = asyncio.ensure_future(
        client.protocol.send_request_async(
            "tilewise/tune", {"uri": uri, "budget": 60, "strategy": "random", "case": "fp32_ragged", **params}
        )
    )
    await appears(root / "tune-started")
    assert not tune.done()
    return uri, tune


@pytest.mark.asyncio
async def test_a_tune_stops_from_its_progress_cancel_and_from_the_cancel_command(cancel_client, tmp_path: Path):
    """The two other ways to stop a job (lsp/jobs.py): the cancel button of the progress the server created
    (`window/workDoneProgress/cancel` on its token), and the server's `tilewise.cancelJob` command. Meanwhile a
    second tune of the same operator is refused, in one line."""
    client = cancel_client
    for suffix in ("", "-wal", "-shm"):
        (CANCEL_CACHE / f"results.sqlite{suffix}").unlink(missing_ok=True)
    first = tmp_path / "first"
    _, tune = await _held_tune(client, first)
    [token] = [t for t, reports in client.progress_reports.items() if reports and reports[0].title.startswith("Tuning")]
    try:
        client.protocol.notify(types.WINDOW_WORK_DONE_PROGRESS_CANCEL, types.WorkDoneProgressCancelParams(token=token))
        assert await progress_ends(client) == ["cancelled"]
    finally:
        (first / "release").touch()
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(tune, BOUND_S)
    assert (first / "calls").read_text() == "x"  # stopped after the measurement it interrupted

    second = tmp_path / "second"
    client.progress_reports["tune-2"] = []
    uri, tune = await _held_tune(client, second, workDoneToken="tune-2")
    try:
        with pytest.raises(JsonRpcException) as refused:
            await client.protocol.send_request_async("tilewise/tune", {"uri": uri, "budget": 4})
        assert "is already running" in refused.value.message and "\n" not in refused.value.message
        answer = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="tilewise.cancelJob", arguments=[{"uri": uri, "kind": "tune"}])
        )
        assert [t.startswith("Tuning") for t in answer["cancelled"]] == [True]
    finally:
        (second / "release").touch()
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(tune, BOUND_S)
    assert client.progress_reports["tune-2"][-1].message == "cancelled"
    assert (second / "calls").read_text() == "x"
