"""The language server under test, started over stdio for each test."""

from __future__ import annotations

import sys

import pytest_lsp
from lsp_helpers import SERVER_ENV, _workspace
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "tilewise", "serve", "--stdio"],  # as editors start it
        server_env=SERVER_ENV,
    )
)
async def client(lsp_client: LanguageClient):
    ws = _workspace()
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True)),
            root_uri=ws.as_uri(),
        )
    )
    yield
    await lsp_client.shutdown_session()
