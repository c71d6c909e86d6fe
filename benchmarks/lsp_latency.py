"""Language-server latency on a 3000-line kernel, over stdio as an editor sees it.

Prints didChange-to-publishDiagnostics latency for typing (characters and Enter, sent as incremental changes the way
VS Code sends them; the debounce delay set to 0 and so excluded) as p50 and p95, code
action and hover latency, and the server's resident memory. The baseline, measured in the same run, is a
`shutdown`-free round trip that does no work (a hover outside any token), so ratios show the analysis's own cost.
Target: p95 under 50 ms for diagnostics and code actions.

    python benchmarks/lsp_latency.py [--edits 60] [--lines 3000] [--invocation]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lsprotocol import types
from pytest_lsp.client import make_test_lsp_client

from benchmarks.synth import write_big_invocation_operator, write_big_operator


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


async def main(edits: int, lines: int, invocation: bool) -> None:
    if invocation:  # host and kernel in one file: the host passes see every edit too
        root = write_big_invocation_operator(Path(tempfile.mkdtemp()) / "kernel_invocation_add", lines=lines)
        kernel = root / "add_kernel.cpp"
    else:
        root = write_big_operator(Path(tempfile.mkdtemp()) / "big", lines=lines)
        kernel = root / "op_kernel" / "scale.cpp"
    text = kernel.read_text()
    client = make_test_lsp_client()
    await client.start_io(sys.executable, "-m", "tilewise", "serve")
    await client.initialize_session(
        types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=root.as_uri())
    )
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"tilewise": {"debounce_ms": 0}})
    )
    uri = kernel.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="cpp", version=1, text=text)
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    diag_ms = []
    line = next(i for i, s in enumerate(text.splitlines()) if "uint32_t loops = blockLength" in s)
    column = text.splitlines()[line].index("loops") + len("loops")
    for n in range(edits):
        # Typing, sent as VS Code sends it: ranged (incremental) changes, not the whole file. Every sixth key is
        # Enter (with the indentation VS Code adds), which moves every line below.
        key = "\n        " if n % 6 == 5 else "x"
        at = types.Position(line=line, character=column)
        client.diagnostics.pop(uri, None)  # wait for this edit's diagnostics, not an earlier publish
        t0 = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=n + 2),
                content_changes=[types.TextDocumentContentChangePartial(range=types.Range(start=at, end=at), text=key)],
            )
        )
        while True:
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
            if uri in client.diagnostics:
                break
        diag_ms.append((time.perf_counter() - t0) * 1e3)
        line, column = (line + 1, 8) if key != "x" else (line, column + 1)

    async def timed(coro_fn, n=20):
        await coro_fn()  # untimed: this Python client's cattrs builds its converters on the first response
        out = []
        for _ in range(n):
            t0 = time.perf_counter()
            await coro_fn()
            out.append((time.perf_counter() - t0) * 1e3)
        return out

    doc = types.TextDocumentIdentifier(uri=uri)
    # Quick fixes where there is something to fix: the last full barrier in a tile loop, with its diagnostic.
    moved = edits // 6  # lines the Enter keys added, all above the barrier and the hovered call
    barrier = max(i for i, s in enumerate(text.splitlines()) if "PIPE_ALL" in s) + moved
    published = [d for d in client.diagnostics.get(uri, []) if d.range.start.line == barrier]
    rng = types.Range(
        start=types.Position(line=barrier, character=0), end=types.Position(line=barrier + 1, character=0)
    )
    action_ms = await timed(
        lambda: client.text_document_code_action_async(
            types.CodeActionParams(text_document=doc, range=rng, context=types.CodeActionContext(diagnostics=published))
        )
    )
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(text_document=doc, range=rng, context=types.CodeActionContext(diagnostics=published))
    )
    row = next(i for i, s in enumerate(text.splitlines()) if "Muls(" in s) + moved
    hover_ms = await timed(
        lambda: client.text_document_hover_async(
            types.HoverParams(text_document=doc, position=types.Position(line=row, character=9))
        )
    )
    base_ms = await timed(
        lambda: client.text_document_hover_async(
            types.HoverParams(text_document=doc, position=types.Position(line=0, character=0))
        )
    )
    server = client._server
    assert server is not None, "the client started no server process"
    pid = server.pid
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    rss_kb = next(int(s.split()[1]) for s in status if s.startswith("VmRSS"))
    await client.shutdown_session()

    base = statistics.median(base_ms)
    print(
        f"kernel: {len(text.splitlines())} lines, {len(client.diagnostics.get(uri, []))} diagnostics; "
        f"{edits} edits; {len(actions or [])} code actions on line {barrier + 1}; baseline round trip {base:.2f} ms"
    )
    for name, xs, target in (
        ("didChange -> publishDiagnostics", diag_ms, 50),
        ("code action", action_ms, 50),
        ("hover", hover_ms, None),
    ):
        p95 = pct(xs, 95)
        verdict = "" if target is None else f"  target p95 < {target} ms: {'met' if p95 < target else 'NOT met'}"
        print(f"{name:32} p50 {pct(xs, 50):8.2f} ms  p95 {p95:8.2f} ms  ({p95 / base:6.1f}x baseline){verdict}")
    print(f"server RSS: {rss_kb / 1024:.1f} MiB")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--edits", type=int, default=60)
    ap.add_argument("--lines", type=int, default=3000, help="kernel size (the target is stated for 3000 lines)")
    ap.add_argument(
        "--invocation",
        action="store_true",
        help="a kernel-invocation operator (host main() in the kernel's file) instead of a project",
    )
    args = ap.parse_args()
    asyncio.run(main(args.edits, args.lines, args.invocation))
