"""The language server in the test's own process: `create_server()` on a thread, joined to a pytest-lsp client by
two OS pipes, so a test pays for a server object and an `initialize`, not for a Python start and tilewise's
imports (about a second and a half a test on these machines, more under xdist's load).

What a subprocess gave that this keeps: the same `create_server()` and `start_io` the `serve` command runs, the same
bytes on the wire (LSP framing over a pipe), a fresh server object per test. What it does not give, and why the
tests that need it still start `tilewise serve`: a process to kill or to watch exit (test_robustness,
test_cancel's Ctrl-C), the server's stderr, its start-up from the command line, and a transport other than stdio.

The environment the server reads is the test's own (`os.environ`, with `_own_results_cache`'s TILEWISE_CACHE): the
fixture sets what `SERVER_ENV` gives a subprocess with monkeypatch, so it is undone after the test.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import AsyncIterator, Mapping

from pygls.io_ import run_async
from pytest_lsp import LanguageClient, make_test_lsp_client

from tilewise.lsp.server import create_server

JOIN_S = 30.0  # a server thread still running this long after `exit` fails the test (it would leak into the next)
logger = logging.getLogger("tilewise.tests.in_process")


class InProcessServer:
    """A server on a thread of this process and a client talking to it; `start()` then `stop()`."""

    def __init__(self) -> None:
        self.client: LanguageClient = make_test_lsp_client()
        self._thread: threading.Thread | None = None
        self._files: list = []

    async def start(self) -> LanguageClient:
        to_server_r, to_server_w = os.pipe()
        to_client_r, to_client_w = os.pipe()
        server_in, server_out = os.fdopen(to_server_r, "rb"), os.fdopen(to_client_w, "wb")
        client_in, client_out = os.fdopen(to_client_r, "rb"), os.fdopen(to_server_w, "wb")
        self._files = [server_in, server_out, client_in, client_out]
        server = create_server()
        # the server runs its own event loop on its thread, as `tilewise serve` runs it on the main one
        self._thread = threading.Thread(
            target=server.start_io, args=(server_in, server_out), name="tilewise-lsp", daemon=True
        )
        self._thread.start()
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), client_in)
        transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, client_out)
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        self.client.protocol.set_writer(writer)
        self.client._async_tasks.append(
            asyncio.create_task(
                run_async(
                    stop_event=self.client._stop_event,
                    reader=reader,
                    protocol=self.client.protocol,
                    logger=logger,
                    error_handler=self.client.report_server_error,
                )
            )
        )
        return self.client

    async def stop(self) -> None:
        """After the client's `shutdown` and `exit` (or a test that failed before them): end the server's input so
        its loop ends, join its thread, then end the client's input so its reader ends too. Each side closes only
        once the thread that reads it is done with it."""
        server_in, server_out, client_in, client_out = self._files
        self.client._stop_event.set()
        with contextlib.suppress(OSError):
            self.client.protocol.writer.close()  # the client's write end: EOF on the server's stdin
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, JOIN_S)
            alive = self._thread.is_alive()
        else:
            alive = False
        for f in (server_out, server_in):  # EOF on the client's side
            with contextlib.suppress(OSError):
                f.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*self.client._async_tasks, return_exceptions=True), JOIN_S)
        assert not alive, "the in-process server did not stop after exit"


@contextlib.asynccontextmanager
async def in_process_client(
    env: Mapping[str, str], monkeypatch, unset: tuple[str, ...] = ()
) -> AsyncIterator[LanguageClient]:
    """A started client and server with `env` set and `unset` removed for the server (both undone by monkeypatch
    after the test)."""
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    for key in unset:
        monkeypatch.delenv(key, raising=False)
    harness = InProcessServer()
    client = await harness.start()
    try:
        yield client
    finally:
        await harness.stop()
