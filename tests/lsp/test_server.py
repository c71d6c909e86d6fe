"""The language server over stdio (pytest-lsp): diagnostics, quick fixes, hover, definition, code lens, custom run
requests with a crashing kernel, and malformed or foreign documents that never take the server down."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_helpers import _workspace, change, diagnostics_for, hover_at, kernel, open_doc, wait_until
from lsprotocol import types
from pytest_lsp import LanguageClient


@pytest.mark.asyncio
async def test_diagnostics_and_the_quick_fix(client: LanguageClient):
    uri = open_doc(client, kernel())
    diags = await diagnostics_for(client, uri)
    (barrier,) = [d for d in diags if d.code == "pipe-all-in-loop"]
    assert barrier.severity == types.DiagnosticSeverity.Warning
    line = kernel().read_text().splitlines()[barrier.range.start.line]
    assert "PipeBarrier<PIPE_ALL>" in line
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=barrier.range,
            context=types.CodeActionContext(diagnostics=[barrier]),
        )
    )
    (fix,) = [a for a in actions if a.title.startswith("Remove the full pipe barrier")]  # the rule's own fix
    (edit,) = fix.edit.changes[uri]
    assert edit.new_text == "" and edit.range.start.line == barrier.range.start.line


@pytest.mark.asyncio
async def test_diagnostics_follow_edits(client: LanguageClient):
    uri = open_doc(client, kernel())
    await diagnostics_for(client, uri)
    fixed = kernel().read_text().replace("            PipeBarrier<PIPE_ALL>();\n", "")
    change(client, uri, 2, fixed)
    await wait_until(client, uri, lambda ds: not any(d.code == "pipe-all-in-loop" for d in ds))


@pytest.mark.asyncio
async def test_only_files_whose_diagnostics_or_text_changed_are_published_again(client: LanguageClient):
    uri = open_doc(client, kernel("leaky"))
    host = (_workspace() / "leaky" / "op_host" / "leaky_relu.cpp").as_uri()
    await wait_until(client, host, lambda ds: any(d.code == "low-block-dim" for d in ds))
    await diagnostics_for(client, uri)
    client.diagnostics.pop(host)
    text = kernel("leaky").read_text()
    change(client, uri, 2, text + "\n// a comment at the end: nothing the host's findings quote moves\n")
    await diagnostics_for(client, uri)  # the edited file's always come again (an edit above them moves them)
    await hover_at(client, uri, 0, 0)  # a round trip: anything published before its answer has arrived
    assert host not in client.diagnostics


@pytest.mark.asyncio
async def test_hover_on_an_api_call_and_a_knob(client: LanguageClient):
    path = kernel()
    uri = open_doc(client, path)
    lines = path.read_text().splitlines()
    row = next(i for i, text in enumerate(lines) if "Add(zLocal" in text)
    hover = await hover_at(client, uri, row, lines[row].index("Add") + 1)
    assert "**Add** (vector pipe)" in hover.contents.value and "cycles per 256-byte repeat" in hover.contents.value
    # the count is `len`, a tile the host computes from the input shape: the formula, never a made-up figure
    assert "computes `len` elements of 2 bytes" in hover.contents.value and "repeats" not in hover.contents.value
    assert "the input shape" in hover.contents.value and "TILE_LENGTH = 4096" in hover.contents.value
    host = _workspace() / "slow" / "op_host" / "add_custom.cpp"
    huri = open_doc(client, host)
    hlines = host.read_text().splitlines()
    row = next(i for i, text in enumerate(hlines) if text.startswith("constexpr uint32_t TILE_LENGTH"))
    hover = await hover_at(client, huri, row, hlines[row].index("4096"))
    assert "knob TILE_LENGTH** = 4096" in hover.contents.value and "search domain [64" in hover.contents.value


@pytest.mark.asyncio
async def test_definition_of_a_tiling_field(client: LanguageClient):
    path = kernel()
    uri = open_doc(client, path)
    lines = path.read_text().splitlines()
    row = next(i for i, text in enumerate(lines) if "tilingData.tileLength" in text)
    loc = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(
                line=row, character=lines[row].index("tileLength", lines[row].index("tilingData."))
            ),
        )
    )
    assert loc.uri.endswith("op_host/add_custom_tiling.h")
    hover = await hover_at(client, uri, row, lines[row].index("tileLength", lines[row].index("tilingData.")))
    assert "**tiling field uint32_t tileLength**" in hover.contents.value
    assert "TILE_LENGTH = 4096, search domain [64" in hover.contents.value
    header = (_workspace() / "slow" / "op_host" / "add_custom_tiling.h").read_text().splitlines()
    assert "tileLength" in header[loc.range.start.line]


@pytest.mark.asyncio
async def test_code_lens_and_run_request(client: LanguageClient):
    uri = open_doc(client, kernel("leaky"))
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert [lens.command.title for lens in lenses] == [
        "Run on emulator",
        "Tune tiling",
        "Verify suggestions",
        "Optimize operator",
    ]
    client.progress_reports["run-1"] = []  # the client's own token: the server reports on it, creating none
    result = await client.protocol.send_request_async("tilewise/run", {"uri": uri, "workDoneToken": "run-1"})
    assert result.ok and result.correct and result.time_us > 0
    kinds = [getattr(p, "kind", None) for p in client.progress_reports["run-1"]]
    assert kinds[0] == "begin" and kinds[-1] == "end" and len(client.progress_reports) == 1
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert lenses[-1].command.title.startswith("last: ") and "bottleneck" in lenses[-1].command.title
    # the views of this run: every editor run records a trace for the timeline
    timeline = await client.protocol.send_request_async("tilewise/charts", {"uri": uri, "kind": "timeline"})
    assert timeline.kind == "timeline" and len(timeline.cores) == result.block_dim == timeline.core_count
    assert {s.file for s in timeline.sites} == {str(kernel("leaky"))} and all(c.events for c in timeline.cores)
    roofline = await client.protocol.send_request_async("tilewise/charts", {"uri": uri, "kind": "roofline"})
    assert roofline.time_us == result.time_us and 0 < roofline.floor_us < roofline.time_us
    assert roofline.bottleneck == result.bottleneck and roofline.verdict
    none = await client.protocol.send_request_async("tilewise/charts", {"uri": uri, "kind": "convergence"})
    assert none is None  # no tune yet


@pytest.mark.asyncio
async def test_a_crashing_kernel_is_an_error_diagnostic_and_the_server_lives(client: LanguageClient):
    path = kernel("leaky")
    text = path.read_text().replace("op.Process();", "op.Process(); *(volatile int*)nullptr = 1;")
    uri = open_doc(client, path, text)
    # the request runs the open document's text, not the file on disk
    result = await client.protocol.send_request_async("tilewise/run", {"uri": uri})
    assert not result.ok and result.error.kind == "crash"
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=0)
        )
    )
    assert hover is None  # still answering


@pytest.mark.asyncio
async def test_malformed_and_foreign_documents(client: LanguageClient, tmp_path: Path):
    half = kernel().read_text()[:1500] + "\n    DataCopy(xLocal, xGm[\n"
    uri = open_doc(client, kernel(), half)
    diags = await diagnostics_for(client, uri)
    assert any(d.code == "syntax-error" for d in diags)
    stray = tmp_path / "notes.cpp"
    stray.write_text("int main() { return 0; }\n")
    suri = open_doc(client, stray)
    assert list(await diagnostics_for(client, suri)) == []
    binary = _workspace() / "slow" / "op_kernel" / "blob.h"
    binary.write_bytes(b"\x00\x01\xff binary")
    open_doc(client, kernel())
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=1, character=0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert actions is None or list(actions) == []  # nothing to fix in the header region, and no crash
    binary.unlink()


@pytest.mark.asyncio
async def test_tune_streams_improvements_as_diagnostics_with_an_apply_action(client: LanguageClient):
    host = _workspace() / "leaky" / "op_host" / "leaky_relu.cpp"
    uri = open_doc(client, host)
    kuri = open_doc(client, kernel("leaky"))
    live: list = []
    client.feature("tilewise/convergence")(lambda *args: live.append(args[-1]))  # the convergence view's feed
    result = await client.protocol.send_request_async(
        "tilewise/tune", {"uri": kuri, "budget": 10, "strategy": "evo", "case": "fp16_base"}
    )
    assert result.evaluations == 10 and result.best_us < result.baseline_us
    view = await client.protocol.send_request_async("tilewise/charts", {"uri": kuri, "kind": "convergence"})
    assert view.done and view.best_us == result.best_us and view.strategy == "evo"
    assert sum(p.status != "screened" for p in view.points) == 10 and view.shipped_us == result.baseline_us
    assert live and not live[0].done and live[-1].done and len(live[-1].points) == len(view.points)
    edit = await client.protocol.send_request_async(
        "tilewise/applyConfig", {"uri": kuri, "config": result.best._asdict()}
    )
    # the picked configuration, as an edit of the knob literals (the client hands the uri-keyed map as a tuple)
    texts = [e.newText for edits in edit.changes for e in edits]
    assert texts and any(str(v) in t for t in texts for v in result.best._asdict().values())
    tuned = [d for d in client.diagnostics.get(uri, []) if d.code == "tuned-tiling"]
    assert tuned, client.diagnostics.get(uri)
    assert "x faster (" in tuned[0].message and tuned[0].severity == types.DiagnosticSeverity.Information
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=tuned[0].range,
            context=types.CodeActionContext(diagnostics=tuned),
        )
    )
    assert any(a.title.startswith("Apply tuned tiling:") and a.edit.changes[uri] for a in actions)
    assert client.progress_reports  # window/workDoneProgress was reported


@pytest.mark.asyncio
async def test_editing_the_tiling_header_rechecks_the_kernel(client: LanguageClient):
    kuri = open_doc(client, kernel())
    header = _workspace() / "slow" / "op_host" / "add_custom_tiling.h"
    text = header.read_text()
    huri = open_doc(client, header)
    await diagnostics_for(client, kuri)
    client.diagnostics.pop(kuri, None)
    change(client, huri, 2, text.replace("TILING_DATA_FIELD_DEF(uint32_t, tileLength);\n", ""))
    # the kernel, not the edited header, now reads a field that does not exist
    diags = await wait_until(client, kuri, lambda ds: any(d.code == "tiling-field-mismatch" for d in ds))
    (missing,) = [d for d in diags if d.code == "tiling-field-mismatch"]
    assert missing.severity == types.DiagnosticSeverity.Error and "tileLength" in missing.message


@pytest.mark.asyncio
async def test_definition_of_a_queue_use(client: LanguageClient):
    path = kernel()
    uri = open_doc(client, path)
    lines = path.read_text().splitlines()
    row = next(i for i, text in enumerate(lines) if "inQueueX.AllocTensor" in text)
    loc = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=row, character=lines[row].index("inQueueX") + 2),
        )
    )
    declared = lines[loc.range.start.line]
    assert "TQue<" in declared and "inQueueX" in declared
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=loc.range.start)
    )
    assert "(VECIN, depth 2)" in hover.contents.value
    # the tile is computed by the host from the input shape: the formula, not a size taken from TILE_LENGTH
    assert "UB: BUFFER_NUM x tileLength * sizeof(T), where" in hover.contents.value
    assert "bytes of UB" not in hover.contents.value and "run case fp16_base" in hover.contents.value


@pytest.mark.asyncio
async def test_a_sanitizer_error_is_an_error_diagnostic_at_the_users_line(client: LanguageClient):
    path = kernel("leaky")
    bad = "DataCopy(xLocal, xGm[offset + 100000], len);"
    text = path.read_text().replace("DataCopy(xLocal, xGm[offset], len);", bad)
    uri = open_doc(client, path, text)
    result = await client.protocol.send_request_async("tilewise/run", {"uri": uri})
    assert not result.ok and result.error.kind == "gm_out_of_bounds"
    for _ in range(20):
        # blocks that ran before the failing one may add guard-region warnings at the same line: only the error
        # is asserted on, as which blocks got that far depends on the threads' order
        errors = [
            d
            for d in client.diagnostics.get(uri, [])
            if d.source == "tilewise emulator" and d.severity == types.DiagnosticSeverity.Error
        ]
        if errors:
            break
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    (error,) = errors
    assert bad in text.splitlines()[error.range.start.line]
