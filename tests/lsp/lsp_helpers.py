"""Shared pieces of the language-server tests: a private copy of two examples and small client helpers."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
WORK = Path(os.environ.get("TMPDIR", "/tmp")) / f"tilewise-lsp-{os.getpid()}"


def _workspace() -> Path:
    if not WORK.exists():
        shutil.copytree(EXAMPLES / "add_custom_slow_pipe_all", WORK / "slow")
        shutil.copytree(EXAMPLES / "leaky_relu", WORK / "leaky")
    return WORK


SERVER_ENV = {
    **os.environ,
    "TILEWISE_CACHE": str(WORK / "cache"),
    "TILEWISE_OPT": "-O0",
    "TILEWISE_CASE_FACTS": "0",
    "TILEWISE_SHIPPED_BANK": "",  # only the evidence a test writes to its own user bank
    "PYTHONPATH": str(ROOT),
}
# What an in-process server (in_process.py) is given on top of the test's environment: SERVER_ENV less what the
# test process already has (its interpreter's path; TILEWISE_OPT, conftest) and its own results cache per test.
IN_PROCESS_ENV = {"TILEWISE_OPT": "-O0", "TILEWISE_CASE_FACTS": "0", "TILEWISE_SHIPPED_BANK": ""}


def open_doc(client: LanguageClient, path: Path, text: str | None = None) -> str:
    uri = path.resolve().as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="cpp", version=1, text=text if text is not None else path.read_text()
            )
        )
    )
    return uri


async def diagnostics_for(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    for _ in range(20):
        if uri in client.diagnostics:
            return client.diagnostics[uri]
        try:  # bounded: a server that publishes nothing more fails the test instead of hanging it
            await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 60)
        except TimeoutError:
            break
    raise AssertionError(f"no diagnostics for {uri}")


def kernel(name="slow") -> Path:
    return _workspace() / name / "op_kernel" / ("add_custom.cpp" if name == "slow" else "leaky_relu.cpp")


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.diagnostics.pop(uri, None)  # so the next wait sees this edit's diagnostics
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def wait_until(client: LanguageClient, uri: str, predicate, tries: int = 30) -> list[types.Diagnostic]:
    for _ in range(tries):
        diags = client.diagnostics.get(uri)
        if diags is not None and predicate(diags):
            return diags
        try:
            await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 60)
        except TimeoutError:
            break
    raise AssertionError(f"diagnostics for {uri} never matched: {client.diagnostics.get(uri)}")


def hover_at(client: LanguageClient, uri: str, line: int, character: int):
    return client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=line, character=character)
        )
    )
