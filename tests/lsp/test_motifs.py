"""Motifs in the editor: the evidence-titled code action on a slow pattern's line, its bank example on hover,
`tilewise/verifySuggestions` streaming a verified rewrite (with "Apply (measured ...)"), its cancel keeping what was
verified, and a faster run after the user's edit teaching the user's bank.

The server has a cache (and so a user bank) of its own, written by each test before it opens a document. The
operator is the small scale operator of tests/opgen.py with a full barrier in its tile loop, one case.
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from pathlib import Path

import pytest
import pytest_asyncio
from in_process import in_process_client
from lsp_helpers import IN_PROCESS_ENV, WORK, _workspace, change, open_doc, wait_until
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled
from pytest_lsp import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from opgen import HOST, KERNEL, SCALE_GOLDEN, scale_manifest, write_operator

from tilewise.search.bank.store import CaseTimes, Features, Profile, Trajectory, save_bank

CACHE = WORK / "motif-cache"
BANK = CACHE / "bank.json"
BOUND_S = 300.0  # waits are bounded so a broken server fails the test instead of hanging it
BARRIER = "            PipeBarrier<PIPE_ALL>();\n"
PIPE_SYNC = "Order the stages with queues or events, not a full pipe barrier"
DIFF = (
    "--- a/op_kernel/k.cpp\n"
    "+++ b/op_kernel/k.cpp\n@@ -3,3 +3,2 @@\n     CopyOut(i);\n-    PipeBarrier<PIPE_ALL>();\n }\n"
)


@pytest_asyncio.fixture
async def motif_client(monkeypatch):
    async with in_process_client({**IN_PROCESS_ENV, "TILEWISE_CACHE": str(CACHE)}, monkeypatch) as lsp_client:
        await lsp_client.initialize_session(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True)),
                root_uri=_workspace().as_uri(),
            )
        )
        yield lsp_client
        await lsp_client.shutdown_session()


def _bank(motif: str = "pipe-sync", speedup: float = 1.4) -> None:
    """A user bank with one trajectory of `motif` (what the code action's title and the hover quote)."""
    BANK.unlink(missing_ok=True)
    t = Trajectory(
        motif=motif,
        operator="AddCustom",
        source="examples/add_custom",
        description="PipeBarrier<PIPE_ALL>(); at the end of the tile loop",
        diff=DIFF,
        slow=Profile(time_us=14.0, bottleneck="mte2"),
        fast=Profile(time_us=10.0, bottleneck="mte2"),
        cases=[CaseTimes(case="fp16_base", fast_us=10.0, slow_us=14.0)],
        speedup=speedup,
        features=Features(bottleneck="mte2"),
    )
    save_bank(BANK, [t], device="emulator", chip="910B2")


def _operator(root: Path, few_cores: bool = False, golden: str = SCALE_GOLDEN) -> Path:
    """The scale operator with a full barrier in its tile loop (and, with `few_cores`, launched on 8 cores)."""
    kernel = KERNEL.replace("            CopyOut(i);\n", "            CopyOut(i);\n" + BARRIER)
    host = HOST.replace("BLOCK_DIM = 48;", "BLOCK_DIM = 8;") if few_cores else HOST
    assert kernel != KERNEL and (host != HOST) == few_cores
    write_operator(root, kernel=kernel, host=host, manifest=scale_manifest(786432))
    (root / "golden.py").write_text(golden)
    return root / "op_kernel" / "scale.cpp"


def _barrier_line(path: Path) -> int:
    return path.read_text().splitlines().index(BARRIER.rstrip("\n"))  # 0-based


async def _actions(client: LanguageClient, uri: str, line: int) -> list:
    span = types.Range(start=types.Position(line=line, character=0), end=types.Position(line=line, character=200))
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=span, context=types.CodeActionContext([])
        )
    )
    return [a for a in found or [] if isinstance(a, types.CodeAction)]


def _verified(diags: list[types.Diagnostic]) -> list[types.Diagnostic]:
    return [d for d in diags if d.source == "tilewise motifs"]


@pytest.mark.asyncio
async def test_the_motif_action_has_its_evidence_and_the_hover_its_example(motif_client: LanguageClient, tmp_path):
    client = motif_client
    _bank()
    path = _operator(tmp_path / "op")
    uri = open_doc(client, path)
    await wait_until(client, uri, lambda ds: any(d.code == "pipe-all-in-loop" for d in ds))
    line = _barrier_line(path)
    actions = await _actions(client, uri, line)
    [motif] = [a for a in actions if a.title.startswith(PIPE_SYNC)]
    assert motif.title == f"{PIPE_SYNC}: median 1.40x on 1 rewound kernel"
    (edit,) = motif.edit.changes[uri]
    assert edit.new_text == "" and edit.range.start.line == line and edit.range.end.line == line + 1
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=line, character=14)
        )
    )
    text = hover.contents.value
    assert "```diff\n" in text and "-    PipeBarrier<PIPE_ALL>();" in text
    assert "in AddCustom (examples/add_custom), 1.40x faster with the motif" in text
    assert not any(a.title.startswith(PIPE_SYNC) for a in await _actions(client, uri, line - 3))  # off the site


@pytest.mark.asyncio
async def test_verify_suggestions_streams_a_measured_apply(motif_client: LanguageClient, tmp_path: Path):
    client = motif_client
    _bank()
    path = _operator(tmp_path / "op")
    uri = open_doc(client, path)
    await wait_until(client, uri, lambda ds: any(d.code == "pipe-all-in-loop" for d in ds))
    client.progress_reports["motifs-1"] = []
    result = await asyncio.wait_for(
        client.protocol.send_request_async(
            "tilewise/verifySuggestions", {"uri": uri, "workDoneToken": "motifs-1", "top": 3}
        ),
        BOUND_S,
    )
    [s] = [s for s in result.suggestions if s.motif == "pipe-sync"]
    assert s.verified.correct and s.verified.speedup > 1.0 and s.edits[0].new_text == ""
    reports = client.progress_reports["motifs-1"]
    assert reports[0].kind == "begin" and reports[-1].kind == "end"
    assert any(getattr(r, "message", "").startswith(f"{PIPE_SYNC}: ") for r in reports if r.kind == "report")
    diags = await wait_until(client, uri, lambda ds: bool(_verified(ds)))
    [d] = _verified(diags)
    assert d.range.start.line == _barrier_line(path) and d.severity == types.DiagnosticSeverity.Information
    gain = f"{s.verified.speedup:.2f}x"
    assert d.message.startswith(f"Verified on the emulator: {PIPE_SYNC}: measured {gain} on this kernel (")
    actions = await _actions(client, uri, d.range.start.line)
    [apply] = [a for a in actions if a.title.startswith("Apply (measured")]
    assert apply.title == f"Apply (measured {gain} on this kernel): {PIPE_SYNC}"
    (edit,) = apply.edit.changes[uri]
    assert edit.new_text == "" and edit.range.start.line == d.range.start.line
    # the measured result replaces the evidence's promise on this line
    assert not any(a.title.startswith(f"{PIPE_SYNC}: median") for a in actions)


GATED_GOLDEN = '''\
"""The scale golden, gated: call N marks `call-N` and waits for `release-N` (or `release-all`)."""
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def golden(x):
    n = len(list(HERE.glob("call-*")))
    (HERE / f"call-{n}").touch()
    deadline = time.monotonic() + 600
    while not (HERE / f"release-{n}").exists() and not (HERE / "release-all").exists():
        if time.monotonic() > deadline:
            raise TimeoutError("the test never released the golden")
        time.sleep(0.02)
    return (x.astype("float32") * 2.0).astype("float16")
'''


async def _appears(path: Path) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + BOUND_S
    while not path.exists():
        assert loop.time() < deadline, f"{path.name} never appeared"
        await asyncio.sleep(0.05)


@pytest.mark.asyncio
async def test_cancelling_verify_suggestions_keeps_what_was_verified(motif_client: LanguageClient, tmp_path: Path):
    """Two motifs fit (pipe-sync first, by its evidence; then all-cores). Each golden call is held until the test
    releases it: the kernel as it is runs once (call 0: the profile, and every verification's "before"), pipe-sync's
    one rewrite is call 1, so call 2 is all-cores' verification, in flight when the cancel arrives."""
    client = motif_client
    _bank(speedup=2.0)
    root = tmp_path / "op"
    path = _operator(root, few_cores=True, golden=GATED_GOLDEN)
    uri = open_doc(client, path)
    await wait_until(client, uri, lambda ds: any(d.code == "pipe-all-in-loop" for d in ds))
    request_id = f"motifs-{uuid.uuid4()}"
    job = asyncio.ensure_future(
        client.protocol.send_request_async("tilewise/verifySuggestions", {"uri": uri}, msg_id=request_id)
    )
    try:
        for n in range(2):
            await _appears(root / f"call-{n}")
            (root / f"release-{n}").touch()
        await _appears(root / "call-2")
        diags = await wait_until(client, uri, lambda ds: bool(_verified(ds)))
        assert PIPE_SYNC in _verified(diags)[0].message
        client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=request_id))
    finally:
        (root / "release-all").touch()
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(job, BOUND_S)
    ends = [r.message for rs in client.progress_reports.values() for r in rs if r.kind == "end"]
    assert ends == ["cancelled"]
    # what was verified before the cancel stays; the motif in flight when it came is not reported
    assert len(_verified(client.diagnostics[uri])) == 1
    host = (root / "op_host" / "scale.cpp").resolve().as_uri()
    assert not _verified(client.diagnostics.get(host, []))
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert [x.command.title for x in lenses][:3] == ["Run on emulator", "Tune tiling", "Verify suggestions"]


@pytest.mark.asyncio
async def test_a_faster_run_after_the_users_edit_joins_their_bank(motif_client: LanguageClient, tmp_path: Path):
    client = motif_client
    BANK.unlink(missing_ok=True)
    path = _operator(tmp_path / "op")
    text = path.read_text()
    uri = open_doc(client, path)
    await wait_until(client, uri, lambda ds: any(d.code == "pipe-all-in-loop" for d in ds))
    slow = await client.protocol.send_request_async("tilewise/run", {"uri": uri})
    assert slow.ok and slow.correct
    assert not BANK.exists()  # one run teaches nothing
    change(client, uri, 2, text.replace(BARRIER, ""))
    await wait_until(client, uri, lambda ds: not any(d.code == "pipe-all-in-loop" for d in ds))
    fast = await client.protocol.send_request_async("tilewise/run", {"uri": uri})
    assert fast.ok and fast.correct and fast.time_us < slow.time_us
    loop = asyncio.get_running_loop()
    deadline = loop.time() + BOUND_S
    while not BANK.exists():  # learned in the background, after the run answered
        assert loop.time() < deadline, "the user's bank was never written"
        await asyncio.sleep(0.1)
    [t] = json.loads(BANK.read_text())["trajectories"]
    assert t["motif"] == "pipe-sync" and t["origin"] == "user" and t["speedup"] > 1.03
    assert "-            PipeBarrier<PIPE_ALL>();" in t["diff"]
