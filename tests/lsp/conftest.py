"""The language server under test: `client` runs it in the test's own process (in_process.py: the same
`create_server()` and stdio framing over a pipe, without a Python start per test). What needs a process of its own
(a restart, a kill, the command line, another transport) starts `tilewise serve` itself: test_robustness.py."""

from __future__ import annotations

import pytest_asyncio
from in_process import in_process_client
from lsp_helpers import IN_PROCESS_ENV, _workspace
from lsprotocol import types


def initialize_params() -> types.InitializeParams:
    return types.InitializeParams(
        capabilities=types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True)),
        root_uri=_workspace().as_uri(),
    )


@pytest_asyncio.fixture
async def client(monkeypatch):
    async with in_process_client(IN_PROCESS_ENV, monkeypatch) as lsp_client:
        await lsp_client.initialize_session(initialize_params())
        yield lsp_client
        await lsp_client.shutdown_session()
