"""Files changed under the server (`workspace/didChangeWatchedFiles`, features/watched_files.py): a closed header
changed, deleted and created again on disk, a closed host file deleted, a broken and mended tilewise.toml, a whole
operator deleted in a burst of 300 events (most for paths outside every operator, or not files at all), and a
tilewise.toml whose case is renamed on disk while caseFacts is on (the new case runs for facts).

Each test works on its own copy of an example: it deletes and rewrites files the other tests read."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest
from lsp_helpers import EXAMPLES, WORK, _workspace, diagnostics_for, hover_at, open_doc
from lsprotocol import types
from pytest_lsp import LanguageClient

from tilewise.lsp.state import path_to_uri

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from opgen import HOST, KERNEL, SCALE_GOLDEN, scale_manifest, write_operator


def private_copy(example: str, name: str) -> Path:
    _workspace()  # the shared copies first: they are made only while WORK does not exist
    root = WORK / f"watched-{name}"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(EXAMPLES / example, root)
    return root


def watched(client: LanguageClient, *events: tuple[str, types.FileChangeType]) -> None:
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=uri, type=kind) for uri, kind in events])
    )


async def published(client: LanguageClient, uri: str, predicate, timeout: float = 20) -> list[types.Diagnostic]:
    """The diagnostics of the next publish for `uri` that satisfies `predicate` (pop `uri` from client.diagnostics
    before the change, so an earlier publish does not count); fails within `timeout` s if none comes."""

    async def wait() -> list[types.Diagnostic]:
        while True:
            diags = client.diagnostics.get(uri)
            if diags is not None and predicate(diags):
                return list(diags)
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    try:
        return await asyncio.wait_for(wait(), timeout)
    except TimeoutError:
        raise AssertionError(f"no publish for {uri} matched: {client.diagnostics.get(uri)}") from None


def unread_fields(diags) -> set[str]:
    return {d.message.split("'")[1] for d in diags if d.code == "tiling-field-mismatch"}


@pytest.mark.asyncio
async def test_a_closed_header_changed_deleted_and_created_on_disk(client: LanguageClient):
    root = private_copy("add_custom_slow_pipe_all", "header")
    header = root / "op_host" / "add_custom_tiling.h"
    huri, text = path_to_uri(str(header)), header.read_text()
    uri = open_doc(client, root / "op_kernel" / "add_custom.cpp")
    await diagnostics_for(client, uri)
    assert unread_fields(await published(client, huri, lambda ds: bool(ds))) == {"totalLength"}

    # changed on disk: a field nobody reads appears in the header the editor never opened
    client.diagnostics.pop(huri)
    spare = "TILING_DATA_FIELD_DEF(uint32_t, tileLength);\nTILING_DATA_FIELD_DEF(uint32_t, spareLength);\n"
    header.write_text(text.replace("TILING_DATA_FIELD_DEF(uint32_t, tileLength);\n", spare))
    watched(client, (huri, types.FileChangeType.Changed))
    await published(client, huri, lambda ds: unread_fields(ds) == {"totalLength", "spareLength"})

    # deleted: its diagnostics leave the Problems panel
    client.diagnostics.pop(huri)
    header.unlink()
    watched(client, (huri, types.FileChangeType.Deleted))
    assert await published(client, huri, lambda ds: True) == []

    # created again (a rename back): analysed again, its finding is back
    header.write_text(text)
    watched(client, (huri, types.FileChangeType.Created))
    await published(client, huri, lambda ds: unread_fields(ds) == {"totalLength"})


@pytest.mark.asyncio
async def test_a_file_opened_closed_then_deleted_is_cleared(client: LanguageClient):
    root = private_copy("leaky_relu", "closed")
    host = root / "op_host" / "leaky_relu.cpp"
    huri = open_doc(client, host)
    await published(client, huri, lambda ds: any(d.code == "low-block-dim" for d in ds), timeout=60)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri=huri)))
    await hover_at(client, huri, 0, 0)  # a round trip: the close has been handled
    client.diagnostics.pop(huri, None)
    host.unlink()
    watched(client, (huri, types.FileChangeType.Deleted))
    assert await published(client, huri, lambda ds: True) == []


@pytest.mark.asyncio
async def test_a_broken_then_mended_manifest_on_disk(client: LanguageClient):
    root = private_copy("add_custom_slow_pipe_all", "manifest")
    manifest = root / "tilewise.toml"
    muri, text = path_to_uri(str(manifest)), manifest.read_text()
    uri = open_doc(client, root / "op_kernel" / "add_custom.cpp")
    await diagnostics_for(client, uri)
    manifest.write_text(text + "\n[[case\n")
    watched(client, (muri, types.FileChangeType.Changed))
    (problem,) = await published(client, muri, lambda ds: bool(ds))
    assert problem.severity == types.DiagnosticSeverity.Error, problem
    client.diagnostics.pop(muri)
    manifest.write_text(text)
    watched(client, (muri, types.FileChangeType.Changed))
    assert await published(client, muri, lambda ds: True) == []


@pytest.mark.asyncio
async def test_a_burst_of_events_and_a_deleted_operator(client: LanguageClient):
    root = private_copy("add_custom_slow_pipe_all", "burst")
    kernel_path = root / "op_kernel" / "add_custom.cpp"
    uri, huri = open_doc(client, kernel_path), path_to_uri(str(root / "op_host" / "add_custom_tiling.h"))
    assert any(d.code == "pipe-all-in-loop" for d in await diagnostics_for(client, uri))
    await published(client, huri, lambda ds: bool(ds))
    for gone in (uri, huri):
        client.diagnostics.pop(gone)
    shutil.rmtree(root)  # the whole operator: a branch checked out without it
    outside = WORK / "not-an-operator"
    kinds = list(types.FileChangeType)
    events = [(f"{(outside / f'f{i}.cpp').as_uri()}", kinds[i % 3]) for i in range(289)]
    events += [("untitled:Untitled-1", types.FileChangeType.Changed), ("http://example.com/a.h", kinds[0])]
    events += [("file://[bad", kinds[2]), ("file:relative.cpp", kinds[1]), ("", kinds[2])]
    events += [(path_to_uri(str(root)), types.FileChangeType.Deleted)]
    events += [(path_to_uri(str(WORK / "slow" / "op_kernel" / "missing.h")), types.FileChangeType.Deleted)] * 4
    assert len(events) == 299
    watched(client, *events, (uri, types.FileChangeType.Deleted))
    # every file of the operator is cleared, the open kernel too (it no longer exists on disk)
    assert await published(client, huri, lambda ds: True) == []
    assert await published(client, uri, lambda ds: True) == []
    other = open_doc(client, _workspace() / "leaky" / "op_kernel" / "leaky_relu.cpp")
    await hover_at(client, other, 0, 0)  # answered: the server is alive
    await diagnostics_for(client, other)
    assert not [m for m in client.messages if m.type == types.MessageType.Error], client.messages


@pytest.mark.asyncio
async def test_a_manifest_changed_on_disk_runs_its_new_cases_for_facts(client: LanguageClient, tmp_path: Path):
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"tilewise": {"caseFacts": True}})
    )
    # test_verify_and_facts.py's operator: single-buffered, the tile sized at run time, proved by the case's facts
    root = tmp_path / "op"
    host = HOST.replace("tiling.set_tileLength(TILE_LENGTH);", "tiling.set_tileLength(total / blockDim / 4);")
    kernel = KERNEL.replace("constexpr int32_t BUFFER_NUM = 2;", "constexpr int32_t BUFFER_NUM = 1;")
    manifest = scale_manifest(786432)
    write_operator(root, kernel=kernel, host=host, manifest=manifest)
    (root / "golden.py").write_text(SCALE_GOLDEN)
    uri = open_doc(client, next(root.glob("op_kernel/*.cpp")))

    def proved_on(case: str):
        return lambda ds: any(d.code == "single-buffer" and f"on case {case}:" in d.message for d in ds)

    await published(client, uri, proved_on("small"), timeout=180)
    (root / "tilewise.toml").write_text(manifest.replace('name = "small"', 'name = "renamed"'))
    watched(client, (path_to_uri(str(root / "tilewise.toml")), types.FileChangeType.Changed))
    await published(client, uri, proved_on("renamed"), timeout=180)
