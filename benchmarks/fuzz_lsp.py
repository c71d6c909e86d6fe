"""Editing never takes the server down: a seeded fuzzer drives `tilewise serve` over stdio, as an editor would.

It copies the examples (and, with `--corpus DIR`, operators of a public corpus) to a temporary workspace, opens their
sources and makes `--edits` edits, each a `didChange` (whole document or ranged) with a mutation from
benchmarks/fuzz_edits.py, or now and then an event under the server: a file renamed or deleted on disk (then
`didChangeWatchedFiles`, or `didClose`/`didOpen` for an open one, as an editor does), a tilewise.toml broken
mid-edit (`didSave`), a source that is not UTF-8 on disk, a save, a file restored, and once a 200,000-line file.
Between edits it asks what an editor asks (hover, code action, code lens, definition) and waits a bounded time.

What it counts:
- crashes: the server process exiting before `shutdown`, plus every traceback the server logs. A traceback counts
  even when the handler caught it (handlers.safe answers a failing feature with an empty result; a failing analysis
  becomes a message): either way the feature or the analysis failed on the input, so the fuzzer calls it a crash and
  prints where it came from.
- unanswered requests: no answer within `--request-timeout` seconds (an error answer is counted apart).
- diagnostics on a line that does not exist: a published diagnostic whose line is past the end of the document at
  the version the publish names (LSP publishDiagnostics' `version`), or, for a file the server analysed from disk
  (no version), past its end on disk and past any line count it may have had since the server last answered a
  request on that operator.
- stale publishes: diagnostics for a version older than one already published for that document.
- RSS of the server at the start and end, and didChange -> publishDiagnostics latency (median) on an untouched
  copy of one example before and after the storm (each time once every document has been answered a request, so
  no analysis the storm queued is still running).

    python benchmarks/fuzz_lsp.py [--edits 10000] [--seed 0] [--time-limit 1800] [--corpus /work/corpus] [--dump DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

# the repository first: benchmarks/search.py must not shadow the `search` package
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lsprotocol import types

from benchmarks.fuzz_client import (
    ODD_SEPARATORS,
    SOURCE_SUFFIXES,
    FuzzClient,
    Report,
    cpu_seconds,
    disk_lines,
    make_workspace,
    rss_mb,
    write_dump,
)
from benchmarks.fuzz_disk import disk_event
from benchmarks.fuzz_edits import MUTATIONS, apply, big_file, lsp_lines, lsp_position, pick, truncate

ROOT = Path(__file__).resolve().parent.parent

STUCK = 3
TRUNCATE_STRIDE = 7919  # a prime
KEPT_VERSIONS = 200  # versions of a document whose texts the fuzzer keeps (a publish names one of the last)
PROGRESS_EVERY = 1000  # edits between progress lines on stderr


@dataclass
class Doc:
    uri: str
    path: Path
    op: Path  # the copied operator's folder
    original: str
    text: str
    version: int = 1
    token: int = 0  # the next token to truncate at: over a run, truncation walks every token of the file
    busy: bool = False  # a disk event on it waits to be undone


class Fuzzer:
    def __init__(
        self,
        workspace: Path,
        seed: int = 0,
        request_timeout: float = 60.0,
        big_lines: int = 200_000,
        latency_samples: int = 31,
    ):
        self.ws = workspace
        self.rng = random.Random(seed)
        self.request_timeout = request_timeout
        self.big_lines = big_lines
        self.latency_samples = latency_samples
        self.report = Report()
        self.docs: list[Doc] = []
        self.history: dict[str, list[tuple[int, int]]] = {}  # uri -> (sequence number, line count) it may have had
        self.versions: dict[str, dict[int, tuple[int, str]]] = {}  # uri -> version -> (line count, text), while open
        self.out_of_range_texts: list[tuple[str, dict[Path, str], list[str]]] = []  # for --dump: the text published on
        self.published_version: dict[str, int] = {}  # uri -> the newest version diagnostics were published for
        self.seq = 0
        self.waiters: dict[str, asyncio.Future[None]] = {}
        self.undo: list[tuple[int, Callable[[], None]]] = []  # (edit number, disk event to undo then)
        self.last_action = "start"
        self.unanswered_snapshot: dict[Path, str] | None = None  # the documents' texts at the first unanswered
        self.actions: list[str] = []  # the last edits made
        self.silent = 0  # requests unanswered in a row: at STUCK, the server is stuck and the storm stops
        self.client = FuzzClient(self._on_publish, self.report.count_error_message)
        self._stderr_task: asyncio.Task[None] | None = None
        self.tracebacks: list[list[str]] = []  # [exception, innermost repository frame, when]
        self.snapshots: list[dict[Path, str]] = []  # the open documents' texts at the first tracebacks
        self.traceback_texts: list[list[str]] = []  # and those tracebacks in full
        self.busy_paths: set[Path] = set()  # files a disk event changed, until it is undone
        self.shown: dict[str, Sequence[types.Diagnostic]] = {}  # uri -> the diagnostics last published

    # ---- the server ------------------------------------------------------------------------------------------
    async def start(self) -> None:
        cache = self.ws / ".cache"
        cache.mkdir(exist_ok=True)
        env = {
            **os.environ,
            "TILEWISE_CASE_FACTS": "0",  # no background emulator runs during the fuzz
            "TILEWISE_CACHE": str(cache),
            "PYTHONPATH": str(ROOT),
        }
        await self.client.start_io(sys.executable, "-m", "tilewise", "serve", env=env, cwd=str(self.ws))
        self._stderr_task = asyncio.ensure_future(self._read_stderr())
        await asyncio.wait_for(
            self.client.initialize_async(
                types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=self.ws.as_uri())
            ),
            self.request_timeout,
        )
        self.client.initialized(types.InitializedParams())
        self.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"tilewise": {"debounce_ms": 0}})
        )

    @property
    def pid(self) -> int:
        server = self.client._server
        assert server is not None, "the server was not started"
        return server.pid

    def alive(self) -> bool:
        return self.client._server is not None and self.client._server.returncode is None

    async def _read_stderr(self) -> None:
        """Every traceback the server prints is a crash (see the module's docstring): note the edit it followed,
        the innermost frame in the repository and the exception, and keep the open documents' texts then."""
        server = self.client._server
        if server is None or server.stderr is None:
            return
        previous = ""
        in_traceback = False
        while True:
            try:
                raw = await server.stderr.readline()
            except ValueError:  # a line longer than the reader's limit: asyncio drops it
                continue
            if not raw:
                break
            line = raw.decode("utf-8", "replace").rstrip("\n")
            was_in = in_traceback
            if line.startswith("Traceback (most recent call last)"):
                in_traceback = True
                if not previous.startswith(("During handling", "The above exception")):
                    self.tracebacks.append(["?", "?", f"after edit {self.report.edits} ({self.last_action})"])
                    if len(self.snapshots) < 10:
                        self.snapshots.append({d.path: d.text for d in self.docs})
                        self.traceback_texts.append([])
            elif in_traceback and self.tracebacks:
                if line.strip().startswith('File "') and str(ROOT) in line and "site-packages" not in line:
                    self.tracebacks[-1][1] = line.strip().replace(str(ROOT) + "/", "")
                elif line and not line[0].isspace() and not line.startswith(("During handling", "The above")):
                    self.tracebacks[-1][0] = line[:200]
                    in_traceback = False
            if self.tracebacks and len(self.traceback_texts) == len(self.tracebacks) and (in_traceback or was_in):
                self.traceback_texts[-1].append(line)
            if line.strip():
                previous = line

    async def stop(self) -> None:
        if self.alive():
            try:
                await asyncio.wait_for(self.client.shutdown_async(None), self.request_timeout)
                self.client.exit(None)
            except Exception as exc:  # noqa: BLE001 - a server that cannot shut down is reported, not raised
                print(f"shutdown failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        server = self.client._server
        if server is not None:
            try:
                await asyncio.wait_for(server.wait(), 30)
            except TimeoutError:
                server.kill()
        if self._stderr_task is not None:  # the process has gone: its stderr ends
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stderr_task, 10)
        await self.client.stop()
        self.report.tracebacks = [" | ".join(t) for t in self.tracebacks]

    # ---- what the editor has, and what the server says ----------------------------------------------------------
    def record(self, uri: str, lines: int) -> None:
        self.seq += 1
        self.history.setdefault(uri, []).append((self.seq, lines))

    def synced(self, op: Path, seq: int) -> None:
        """The server answered a request on operator `op` sent at `seq`: it analysed what it had then or later."""
        prefix = op.as_uri() + "/"
        for uri, entries in self.history.items():
            if uri.startswith(prefix):
                keep = max((i for i, (s, _) in enumerate(entries) if s <= seq), default=0)
                del entries[:keep]

    def _on_publish(self, params: types.PublishDiagnosticsParams) -> None:
        self.report.publishes += 1
        self.shown[params.uri] = params.diagnostics
        waiter = self.waiters.pop(params.uri, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
        at = params.version
        if at is not None:
            newest = self.published_version.get(params.uri, -1)
            if at < newest:
                self.report.stale.append(f"{params.uri} version {at} after {newest}, after edit {self.report.edits}")
            self.published_version[params.uri] = max(at, newest)
        if not params.diagnostics:
            return
        path = Path(unquote(urlparse(params.uri).path))
        known = self.versions.get(params.uri, {})
        if at is not None and at in known:
            allowed, text = known[at]
        else:  # not open on the server when analysed: what it read from disk, or a text it had since the last sync
            text = None
            entries = self.history.get(params.uri)
            allowed = max([n for _, n in entries or []] + [disk_lines(path)])
        for d in params.diagnostics:
            end_ok = d.range.end.line < allowed or (d.range.end.line == allowed and d.range.end.character == 0)
            if d.range.start.line >= allowed or not end_ok:
                where = f"{path.relative_to(self.ws) if path.is_relative_to(self.ws) else path}"
                self.report.out_of_range.append(
                    f"{where}:{d.range.start.line + 1} ({allowed} lines{'' if at is None else f' at v{at}'}) "
                    f"{d.code}: {d.message[:80]!r} "
                    f"after edit {self.report.edits} ({self.last_action})"
                )
                if text is not None and len(self.out_of_range_texts) < 10:
                    name = f"out_of_range{len(self.out_of_range_texts)}"
                    self.out_of_range_texts.append((name, {path: text}, [self.report.out_of_range[-1], str(d)]))

    # ---- documents -------------------------------------------------------------------------------------------
    def open(self, doc: Doc) -> None:
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=doc.uri, language_id="cpp", version=doc.version, text=doc.text)
            )
        )
        self.versions[doc.uri] = {doc.version: (lsp_lines(doc.text), doc.text)}  # a new document: versions anew
        self.published_version.pop(doc.uri, None)
        self.record(doc.uri, lsp_lines(doc.text))

    def close(self, doc: Doc) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=doc.uri))
        )
        self.versions.pop(doc.uri, None)
        self.published_version.pop(doc.uri, None)
        self.record(doc.uri, disk_lines(doc.path))

    def change(self, doc: Doc, start: int, end: int, new: str) -> None:
        """One edit, as a ranged change or the whole document (always whole when the text has line separators
        that pygls and LSP count differently)."""
        old = doc.text
        doc.text = old[:start] + new + old[end:]
        doc.version += 1
        ranged = self.rng.random() < 0.5 and not ODD_SEPARATORS.search(old + new)
        change: types.TextDocumentContentChangeEvent
        if ranged:
            (l0, c0), (l1, c1) = lsp_position(old, start), lsp_position(old, end)
            span = types.Range(start=types.Position(line=l0, character=c0), end=types.Position(line=l1, character=c1))
            change = types.TextDocumentContentChangePartial(range=span, text=new)
        else:
            change = types.TextDocumentContentChangeWholeDocument(text=doc.text)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=doc.uri, version=doc.version),
                content_changes=[change],
            )
        )
        known = self.versions.setdefault(doc.uri, {})
        known[doc.version] = (lsp_lines(doc.text), doc.text)
        if len(known) > KEPT_VERSIONS:
            del known[min(known)]
        self.record(doc.uri, lsp_lines(doc.text))

    def watched(self, *events: tuple[Path, types.FileChangeType]) -> None:
        self.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=p.as_uri(), type=t) for p, t in events])
        )
        for p, _ in events:
            if not any(d.path == p for d in self.docs):
                self.record(p.as_uri(), disk_lines(p))

    def add_operator(self, op: Path) -> None:
        """Open the operator's kernel sources, and each other source with even odds (the rest stay on disk, for
        the disk events)."""
        for p in sorted(op.rglob("*")):
            if p.suffix not in SOURCE_SUFFIXES or not p.is_file():
                continue
            if "op_kernel" not in p.parts and p.parent != op and self.rng.random() < 0.5:
                continue
            text = p.read_bytes().decode("utf-8", "replace")
            doc = Doc(p.as_uri(), p, op, text, text)
            self.docs.append(doc)
            self.open(doc)

    # ---- requests ----------------------------------------------------------------------------------------------
    async def ask(self, doc: Doc, method: str | None = None, timeout: float | None = None) -> None:
        """One request an editor makes, with a bounded wait; an answer syncs the fuzzer's view of the operator."""
        method = method or self.rng.choice(["hover", "codeAction", "codeLens", "definition"])
        lines = lsp_lines(doc.text)
        line = self.rng.randrange(lines + 2) if self.rng.random() < 0.05 else self.rng.randrange(lines)
        at = types.Position(line=line, character=self.rng.randrange(80))
        ident = types.TextDocumentIdentifier(uri=doc.uri)
        request: Awaitable[object]
        if method == "hover":
            request = self.client.text_document_hover_async(types.HoverParams(text_document=ident, position=at))
        elif method == "codeAction":
            # what the editor shows there (perhaps of an older version, as an editor may have it): the quick fixes
            shown = list(self.shown.get(doc.uri, []))
            span = types.Range(start=at, end=types.Position(line=line + 1 + self.rng.randrange(2), character=0))
            r, k = self.rng.random(), self.rng.randrange(1 << 30)  # drawn either way: the edits stay seeded
            if shown and r < 0.5:
                span = shown[k % len(shown)].range
            here = [d for d in shown if span.start.line <= d.range.start.line <= span.end.line]
            request = self.client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=ident, range=span, context=types.CodeActionContext(diagnostics=here)
                )
            )
        elif method == "codeLens":
            request = self.client.text_document_code_lens_async(types.CodeLensParams(text_document=ident))
        else:
            request = self.client.text_document_definition_async(
                types.DefinitionParams(text_document=ident, position=at)
            )
        sent = self.seq
        self.report.requests += 1
        try:
            await asyncio.wait_for(request, timeout or self.request_timeout)
        except TimeoutError:
            self.report.unanswered += 1
            self.silent += 1
            if self.unanswered_snapshot is None:
                self.unanswered_snapshot = {d.path: d.text for d in self.docs}
                print("the edits before:", *self.actions[-12:], sep="\n  ", file=sys.stderr)
            print(
                f"unanswered {method} on {doc.path.name} after edit {self.report.edits} ({self.last_action})",
                file=sys.stderr,
            )
            return
        except Exception as exc:  # noqa: BLE001 - an error answer (or a dead server) is counted, not raised
            if not self.alive():
                return
            self.report.error_answers += 1
            print(f"error answer to {method}: {type(exc).__name__}: {exc}"[:300], file=sys.stderr)
            return
        self.silent = 0
        self.synced(doc.op, sent)

    # ---- the storm ---------------------------------------------------------------------------------------------
    def mutate(self, doc: Doc) -> str:
        kind = pick(self.rng)
        if kind == "truncate":
            # a stride prime to the token count: successive truncations spread over the whole file and, over a long
            # run, reach every token (tests/lsp/test_fuzz.py truncates one kernel at each of its tokens)
            start, end, new = truncate(doc.original, self.rng, doc.token * TRUNCATE_STRIDE)
            doc.token += 1
            self.change(doc, 0, len(doc.text), apply(doc.original, (start, end, new)))
        else:
            self.change(doc, *MUTATIONS[kind](doc.text, self.rng))
        return kind

    def later(self, undo: Callable[[], None]) -> None:
        self.undo.append((self.report.edits + self.rng.randint(1, 30), undo))

    def disk_event(self, doc: Doc) -> str:
        return disk_event(self, doc)  # benchmarks/fuzz_disk.py

    def save(self, doc: Doc) -> str:
        if not doc.path.exists():
            return "save-skipped"
        doc.path.write_bytes(doc.text.encode("utf-8", "replace"))
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=doc.uri))
        )
        return "save"

    async def big(self, doc: Doc) -> None:
        """A 200,000-line file in the editor: it must be answered, and the server must carry on after."""
        self.change(doc, 0, len(doc.text), big_file(doc.original, self.big_lines))
        self.last_action = f"big file {doc.path.name}"
        await self.ask(doc, "hover", timeout=max(self.request_timeout, 600))
        self.change(doc, 0, len(doc.text), doc.original)
        await self.ask(doc, "codeLens", timeout=max(self.request_timeout, 600))

    def run_undo(self, everything: bool = False) -> None:
        due = [u for u in self.undo if everything or u[0] <= self.report.edits]
        self.undo = [u for u in self.undo if u not in due]
        for _, undo in due:
            undo()

    async def storm(self, edits: int, time_limit: float) -> None:
        t0 = time.monotonic()
        big_at = edits // 2 if edits >= 50 and self.big_lines else -1
        while self.report.edits < edits and time.monotonic() - t0 < time_limit and self.alive():
            if self.silent >= STUCK:
                print(f"the server answered none of {STUCK} requests in a row: stopping", file=sys.stderr)
                break
            doc = self.rng.choice(self.docs)
            r = self.rng.random()
            if self.report.edits == big_at:
                await self.big(doc)
                kind = "big-file"
            elif r < 0.03:
                kind = self.disk_event(doc)
            elif r < 0.05:
                kind = self.save(doc)
            elif r < 0.09:
                self.change(doc, 0, len(doc.text), doc.original)
                kind = "restore"
            else:
                kind = self.mutate(doc)
            self.report.kinds[kind] += 1
            self.last_action = f"{kind} {doc.path.relative_to(self.ws)} v{doc.version}"
            self.actions = [*self.actions[-20:], self.last_action]
            self.report.edits += 1
            if self.report.edits % PROGRESS_EVERY == 0:
                print(
                    f"{self.report.edits} edits, {time.monotonic() - t0:.0f} s, tracebacks {len(self.tracebacks)}, "
                    f"unanswered {self.report.unanswered}, missing lines {len(self.report.out_of_range)}",
                    file=sys.stderr,
                    flush=True,
                )
            self.run_undo()
            if self.rng.random() < 0.25:
                await self.ask(doc)
            else:
                await asyncio.sleep(0)
        self.run_undo(everything=True)
        self.report.seconds = time.monotonic() - t0

    # ---- latency ---------------------------------------------------------------------------------------------
    async def latency(self, doc: Doc) -> tuple[float, float]:
        """Median didChange -> publishDiagnostics on `doc` (a space typed at the end of the file, then taken back), and
        the server's CPU time per edit meanwhile (what other processes on the machine slow down far less)."""
        samples = []
        cpu0 = cpu_seconds(self.pid)
        for _ in range(self.latency_samples):
            text = doc.original + " " if doc.text == doc.original else doc.original  # always a new text
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self.waiters[doc.uri] = waiter
            t0 = time.perf_counter()
            self.change(doc, 0, len(doc.text), text)
            try:
                await asyncio.wait_for(waiter, self.request_timeout)
            except TimeoutError:
                self.report.unanswered += 1
                continue
            samples.append((time.perf_counter() - t0) * 1e3)
        cpu = (cpu_seconds(self.pid) - cpu0) * 1e3 / max(self.latency_samples, 1)
        await self.ask(doc, "hover")
        return (statistics.median(samples) if samples else float("nan")), cpu


async def fuzz(
    edits: int,
    seed: int = 0,
    time_limit: float = 3600.0,
    corpus: Path | None = None,
    corpus_ops: int = 20,
    big_lines: int = 200_000,
    request_timeout: float = 60.0,
    latency_samples: int = 31,
    workspace: Path | None = None,
    dump: Path | None = None,
) -> Report:
    """The whole run: workspace, server, latency before, the storm, latency after; the report."""
    ws = (workspace or Path(tempfile.mkdtemp(prefix="tilewise-fuzz-"))).resolve()  # as the server names files
    ops, probe_op = make_workspace(ws, corpus, corpus_ops, seed)
    fuzzer = Fuzzer(ws, seed, request_timeout, big_lines, latency_samples)
    try:
        await fuzzer.start()
        probe_path = probe_op / "op_kernel" / "leaky_relu.cpp"
        probe_text = probe_path.read_text()
        probe = Doc(probe_path.as_uri(), probe_path, probe_op, probe_text, probe_text)
        fuzzer.open(probe)
        await fuzzer.ask(probe, "codeLens")
        for op in ops:
            fuzzer.add_operator(op)
        for doc in fuzzer.docs:  # every operator analysed once before the clock starts
            await fuzzer.ask(doc, "codeLens")
        fuzzer.report.latency_before_ms, fuzzer.report.cpu_before_ms = await fuzzer.latency(probe)
        fuzzer.report.rss_start_mb = rss_mb(fuzzer.pid)
        print(f"server pid {fuzzer.pid}, RSS at start {fuzzer.report.rss_start_mb:.1f} MB", flush=True)
        await fuzzer.storm(edits, time_limit)
        if fuzzer.alive() and fuzzer.silent < STUCK:
            for doc in fuzzer.docs:  # the analyses the storm left queued finish first, as before it
                await fuzzer.ask(doc, "codeLens")
            fuzzer.report.latency_after_ms, fuzzer.report.cpu_after_ms = await fuzzer.latency(probe)
            fuzzer.report.rss_end_mb = rss_mb(fuzzer.pid)
    finally:
        server = fuzzer.client._server
        if server is not None and server.returncode is not None:
            fuzzer.report.exited = server.returncode
        await fuzzer.stop()
    if dump is not None:
        texts = zip(fuzzer.snapshots, fuzzer.traceback_texts, strict=False)
        named = [(f"traceback{i}", snapshot, text) for i, (snapshot, text) in enumerate(texts)]
        if fuzzer.unanswered_snapshot is not None:
            named.append(("unanswered", fuzzer.unanswered_snapshot, []))
        named += fuzzer.out_of_range_texts
        write_dump(dump, ws, named)
    if workspace is None:
        shutil.rmtree(ws, ignore_errors=True)
    return fuzzer.report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--edits", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--time-limit", type=float, default=3600.0, help="seconds for the storm; it stops early after")
    ap.add_argument("--corpus", type=Path, help="also fuzz operators of this corpus (e.g. /work/corpus)")
    ap.add_argument("--corpus-ops", type=int, default=20, help="how many corpus operators (drawn by the seed)")
    ap.add_argument("--big-lines", type=int, default=200_000, help="lines of the big file (0: none)")
    ap.add_argument("--request-timeout", type=float, default=60.0)
    ap.add_argument("--dump", type=Path, help="write each traceback and the documents' texts then under DIR")
    args = ap.parse_args()
    report = asyncio.run(
        fuzz(
            args.edits,
            args.seed,
            args.time_limit,
            args.corpus,
            args.corpus_ops,
            args.big_lines,
            args.request_timeout,
            dump=args.dump,
        )
    )
    print(report.summary())
    return 1 if report.crashes or report.unanswered or report.out_of_range or report.stale else 0


if __name__ == "__main__":
    sys.exit(main())
