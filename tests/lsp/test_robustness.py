"""The language server against what an editor really sends and does: edits during a tune, a hanging kernel, a
10 000-line file, text that is not valid Unicode, bad settings, a reopened editor, and the websocket transport."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from lsp_helpers import (
    ROOT,
    SERVER_ENV,
    _workspace,
    change,
    diagnostics_for,
    hover_at,
    kernel,
    open_doc,
    wait_until,
)
from lsprotocol import types
from pytest_lsp import LanguageClient
from pytest_lsp.client import make_test_lsp_client

from tilewise.lsp.state import path_to_uri


def write_big_operator(root: Path, lines: int) -> Path:
    """benchmarks/synth.py's generator, loaded by path: benchmarks/ on sys.path would shadow the `search` package."""
    spec = importlib.util.spec_from_file_location("tilewise_bench_synth", ROOT / "benchmarks" / "synth.py")
    synth = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(synth)
    return synth.write_big_operator(root, lines=lines)


@pytest.mark.asyncio
async def test_an_edit_during_a_tune_changes_the_diagnostics_but_not_the_tune(client: LanguageClient):
    path = kernel("leaky")
    text = path.read_text()
    uri = open_doc(client, path)
    await diagnostics_for(client, uri)
    task = asyncio.ensure_future(
        client.protocol.send_request_async(
            "tilewise/tune", {"uri": uri, "budget": 6, "strategy": "random", "case": "fp16_base"}
        )
    )
    await asyncio.sleep(0.5)
    # One buffer and a barrier in the tile loop: the kernel would no longer be the one being tuned.
    edited = text.replace("constexpr int32_t BUFFER_NUM = 2;", "constexpr int32_t BUFFER_NUM = 1;")
    change(client, uri, 2, edited)
    diags = await wait_until(client, uri, lambda ds: any(d.code == "single-buffer" for d in ds))
    assert diags and not task.done()  # the editor was answered while the search ran
    result = await task
    # The tune measured its snapshot (two buffers): its baseline ran, and it finished its budget.
    assert result.evaluations == 6 and result.baseline.BUFFER_NUM == 2 and result.baseline_us > 0


@pytest.mark.asyncio
async def test_a_hanging_kernel_times_out_and_the_server_lives(client: LanguageClient):
    path = kernel("leaky")
    text = path.read_text().replace("op.Process();", "for (volatile int spin = 0; spin >= 0; spin = 0) {}")
    uri = open_doc(client, path, text)
    result = await client.protocol.send_request_async("tilewise/run", {"uri": uri, "timeout": 2})
    assert not result.ok and result.error.kind == "timeout"
    assert "did not finish within 2 s" in result.error.message
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert lenses[-1].command.title == "last: failed (timeout)"


@pytest.mark.asyncio
async def test_a_10000_line_kernel(client: LanguageClient, tmp_path: Path):
    root = write_big_operator(tmp_path / "big", lines=10_000)
    path = root / "op_kernel" / "scale.cpp"
    lines = path.read_text().splitlines()
    assert len(lines) >= 9_900
    uri = open_doc(client, path)
    diags = await diagnostics_for(client, uri)
    assert not any(d.code == "syntax-error" for d in diags)
    row = max(i for i, s in enumerate(lines) if "Muls(" in s)  # near the end of the file
    hover = await hover_at(client, uri, row, lines[row].index("Muls") + 1)
    assert "**Muls**" in hover.contents.value


@pytest.mark.asyncio
async def test_text_that_is_not_valid_unicode(client: LanguageClient):
    path = kernel()
    # A lone surrogate: what an editor may hand over after decoding broken bytes (JSON can carry it).
    text = path.read_text().replace("#include", "// caf\ud800 \u00e9\n#include", 1)
    uri = open_doc(client, path, text)
    diags = await diagnostics_for(client, uri)
    barrier = next(d for d in diags if d.code == "pipe-all-in-loop")
    assert "PipeBarrier<PIPE_ALL>" in text.splitlines()[barrier.range.start.line]


@pytest.mark.asyncio
async def test_bad_settings_are_reported_and_good_ones_apply(client: LanguageClient):
    open_doc(client, kernel("leaky"))
    host = path_to_uri(str(_workspace() / "leaky" / "op_host" / "leaky_relu.cpp"))
    await wait_until(client, host, lambda ds: any("on 910B2" in d.message for d in ds))  # BLOCK_DIM = 8 of 48
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"tilewise": {"chip": "910X"}})
    )
    message = await client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)
    assert message.type == types.MessageType.Error and "tilewise.chip" in message.message
    assert "910B1" in message.message  # the fix: the chips there are
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"tilewise": {"chip": "910B4", "budget": 4, "pythonPath": "/ignored/by/the/server"}}
        )
    )
    diags = await wait_until(client, host, lambda ds: any("on 910B4" in d.message for d in ds))
    assert any("of the 40 vector cores" in d.message for d in diags)  # the new chip's core count


@pytest.mark.asyncio
async def test_tune_results_come_back_when_the_editor_reopens(client: LanguageClient):
    host = _workspace() / "leaky" / "op_host" / "leaky_relu.cpp"
    kuri = open_doc(client, kernel("leaky"))
    result = await client.protocol.send_request_async(
        "tilewise/tune", {"uri": kuri, "budget": 6, "strategy": "evo", "case": "fp16_base"}
    )
    assert result.best_us < result.baseline_us

    # A new server process, as when VS Code is restarted: nothing in memory, only the results cache (the first
    # server's, which ran in this process: the test's own TILEWISE_CACHE).
    again = make_test_lsp_client()
    env = {**SERVER_ENV, "TILEWISE_CACHE": os.environ["TILEWISE_CACHE"]}
    await again.start_io(sys.executable, "-m", "tilewise", "serve", env=env)
    try:
        await again.initialize_session(
            types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=_workspace().as_uri())
        )
        uri = open_doc(again, host)
        open_doc(again, kernel("leaky"))
        tuned = await wait_until(again, uri, lambda ds: any(d.code == "tuned-tiling" for d in ds))
        tuned = [d for d in tuned if d.code == "tuned-tiling"]
        assert f"({result.best_us:.1f} µs vs {result.baseline_us:.1f} µs)" in tuned[0].message
        actions = await again.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=tuned[0].range,
                context=types.CodeActionContext(diagnostics=tuned),
            )
        )
        (apply,) = [a for a in actions if a.title.startswith("Apply tuned tiling:")]
        # Applying the edit puts the tuned values in place, and the suggestion clears.
        text = _apply(host.read_text(), apply.edit.changes.get(uri, []))
        host_knobs = [(n, v) for n, v in result.best._asdict().items() if re.search(rf"\b{n} = \d+;", text)]
        assert host_knobs and all(re.search(rf"\b{n} = {v};", text) for n, v in host_knobs)
        change(again, uri, 2, text)
        await wait_until(again, uri, lambda ds: not any(d.code == "tuned-tiling" for d in ds))
    finally:
        await again.shutdown_session()


def _apply(text: str, edits: list[types.TextEdit]) -> str:
    lines = text.splitlines(keepends=True)
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        row, start, end = e.range.start.line, e.range.start.character, e.range.end.character
        assert e.range.end.line == row
        lines[row] = lines[row][:start] + e.new_text + lines[row][end:]
    return "".join(lines)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.asyncio
async def test_websocket_transport():
    import websockets

    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tilewise", "serve", "--ws", str(port)],
        env=SERVER_ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        for _ in range(100):
            try:
                ws = await websockets.connect(f"ws://127.0.0.1:{port}")
                break
            except OSError:
                await asyncio.sleep(0.1)
        else:
            raise AssertionError(f"the server never listened: {proc.stderr.read1().decode()}")
        async with ws:
            uri = kernel().resolve().as_uri()
            await ws.send(
                json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": 1,
                        "method": "initialize",
                        "params": {"capabilities": {}, "rootUri": _workspace().as_uri()},
                    }
                )
            )
            reply = json.loads(await asyncio.wait_for(ws.recv(), 30))
            assert reply["id"] == 1 and reply["result"]["capabilities"]["hoverProvider"]
            await ws.send(json.dumps({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
            await ws.send(
                json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "method": "textDocument/didOpen",
                        "params": {
                            "textDocument": {
                                "uri": uri,
                                "languageId": "cpp",
                                "version": 1,
                                "text": kernel().read_text(),
                            }
                        },
                    }
                )
            )
            codes = set()
            while "pipe-all-in-loop" not in codes:
                note = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if note.get("method") == "textDocument/publishDiagnostics" and note["params"]["uri"] == uri:
                    codes = {d.get("code") for d in note["params"]["diagnostics"]}
            await ws.send(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.asyncio
async def test_a_malformed_manifest_is_a_diagnostic_on_its_line(client: LanguageClient):
    manifest = _workspace() / "leaky" / "tilewise.toml"
    good = manifest.read_text()
    bad = good.replace("shape = [64, 2048]", 'shape = [64, "wide"]', 1)
    row = bad.splitlines().index('shape = [64, "wide"]')
    manifest.write_text(bad)
    try:
        open_doc(client, kernel("leaky"))
        muri = manifest.resolve().as_uri()
        diags = await wait_until(client, muri, lambda ds: bool(ds))
        assert diags[0].range.start.line == row and "shape" in diags[0].message
        assert diags[0].severity == types.DiagnosticSeverity.Error
        manifest.write_text(good)  # fixed and saved: the diagnostic clears
        client.text_document_did_save(
            types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=kernel("leaky").resolve().as_uri())
            )
        )
        await wait_until(client, muri, lambda ds: not ds)
    finally:
        manifest.write_text(good)
