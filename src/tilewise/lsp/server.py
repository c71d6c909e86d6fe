"""The pygls server: state changes on the event loop, analysis on worker threads, one module per feature.

A feature that fails is logged and answered with an empty result (handlers.safe); it never takes the server down.
The imports run one way: this module imports the features at the top, and a feature imports TilewiseServer only for
type checking (tests/lsp/test_sessions.py checks it).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import threading
from collections.abc import Callable

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from tilewise.device.protocol import Device
from tilewise.device.registry import make_device
from tilewise.lsp.features import (
    charts,
    code_actions,
    code_lens,
    config,
    definition,
    documents,
    hover,
    motifs,
    optimize,
    prebuild,
    requests,
    trust,
    verify,
    watched_files,
)
from tilewise.lsp.handlers import Untrusted
from tilewise.lsp.jobs import JobService
from tilewise.lsp.results import ItemProvider, diagnostics_by_file
from tilewise.lsp.state import (
    Analysis,
    OperatorSession,
    OperatorSnapshot,
    ServerState,
    Settings,
    StoredFacts,
    Superseded,
    path_to_uri,
    uri_to_path,
)
from tilewise.report.payloads import ConvergencePayload

log = logging.getLogger("tilewise.lsp")
FACTS_DELAY_S = 1.0
CONVERGENCE = "tilewise/convergence"  # notification: a ConvergencePayload, after each candidate and at the end

# What a feature adds to another's answers without importing it (LSP allows one handler per method): code actions
# for (session, analysis, path, requested range), and hover Markdown for (session, analysis, path, byte offset).
ActionProvider = Callable[[OperatorSession, Analysis, str, types.Range], list[types.CodeAction]]
HoverProvider = Callable[[OperatorSession, Analysis, str, int], str | None]


class TilewiseServer(LanguageServer):
    """The server and the services its features use: analyses per operator (`analysis_for`, `schedule`), and
    `publish`, the one place diagnostics are sent from, and `jobs`, the background work (run, tune, verify,
    optimize: progress, cancel, one at a time per operator; lsp/jobs.py). Features register handlers and call these;
    none imports another: one that adds to another's answers (code actions, hovers) registers a provider here
    instead."""

    def __init__(self) -> None:
        super().__init__("tilewise", "0.1.0")
        self.state = ServerState()
        self._collections = 0
        self.action_providers: list[ActionProvider] = []
        self.hover_providers: list[HoverProvider] = []
        # Each feature's own diagnostics (and their actions), from what it stored on the session (results.py)
        self.item_providers: list[ItemProvider] = []
        self.jobs = JobService(self)
        self.jobs.register(lambda uri: self.state.root_of(uri_to_path(uri)))

    def session(self, root: str) -> OperatorSession:
        return self.state.session(root)

    # ---- analysis ---------------------------------------------------------------------------------------------
    def open_documents(self, root: str) -> tuple[dict[str, str], dict[str, int]]:
        """Every open document inside the operator at `root`: its text, and the version the client gave it."""
        texts, versions = {}, {}
        for uri, doc in list(self.workspace.text_documents.items()):
            path = uri_to_path(uri)
            if path.startswith(root.rstrip("/") + "/"):
                texts[path] = doc.source
                if doc.version is not None:
                    versions[path] = doc.version
        return texts, versions

    def snapshot(self, root: str) -> OperatorSnapshot:
        """What an analysis of the operator at `root` reads: the open documents now, with their versions."""
        return self.state.snapshot(root, *self.open_documents(root))

    @staticmethod
    def adopt(session: OperatorSession, analysis: Analysis) -> bool:
        """Keep `analysis` as the operator's latest, unless one of a newer snapshot is there already (an analysis
        that took longer must not replace what a later edit's analysis found). Whether it was kept."""
        current = session.analysis
        if current is not None and current.snapshot > analysis.snapshot:
            return False
        session.analysis = analysis
        return True

    def require_trust(self, what: str) -> None:
        """Refuse `what` (a request that builds or runs the operator) in a workspace the client does not trust: the
        request's error says why (features/trust.py)."""
        if not self.state.trusted:
            raise Untrusted(what)

    def device(self, settings: Settings | None = None, timeout_s: float | None = None) -> Device:
        """The device the settings name (`tilewise.device`), on their chip: every run, tune, verification and
        facts job measures on it, so a new device registered in device/registry.py reaches the editor too. In an
        untrusted workspace there is none: every feature that builds or runs asks here, so none can forget."""
        self.require_trust("building or running the operator")
        s = settings or self.state.settings
        return make_device(s.device, chip=s.chip, timeout_s=timeout_s)

    def schedule(self, uri: str, delay: float | None = None) -> None:
        """Debounced, per operator: a newer edit cancels the analysis that has not started yet."""
        root = self.state.root_of(uri_to_path(uri))
        if root is None:
            # no operator: nothing, and no analysis begun before this may publish over it
            self.state.published[uri_to_path(uri)] = (self.state.snapshots, (0, []))
            self.text_document_publish_diagnostics_for(uri, [])
            return
        self.schedule_operator(root, delay)

    def schedule_operator(self, root: str, delay: float | None = None) -> None:
        """`schedule` for the operator at `root` itself: for a change no open document names (a file changed on
        disk, features/watched_files.py)."""
        session = self.state.session(root)
        if session.pending is not None:
            session.pending.cancel()
        wait = self.state.settings.debounce_ms / 1000 if delay is None else delay
        session.pending = asyncio.ensure_future(self._analyse_later(session, wait))

    async def _analyse_later(self, session: OperatorSession, delay: float) -> None:
        root = session.root
        superseded = threading.Event()
        try:
            await asyncio.sleep(delay)
            snap = self.snapshot(root)
            analysis = await asyncio.to_thread(self.state.analyse, snap, superseded)
        except asyncio.CancelledError:
            superseded.set()  # the worker thread stops at its next step; its result would be stale anyway
            return
        except Superseded:
            return
        except Exception as exc:
            log.exception("analysis of %s failed", root)
            self._report_failure(session, f"tilewise could not analyse {root}: {type(exc).__name__}: {exc}")
            return
        session.failure = None
        if not self.adopt(session, analysis):
            return
        await self._replay_stored_tune(root, analysis)
        self.publish(root, analysis)
        self.collect_garbage()

    def refresh_facts(self, uri: str) -> None:
        """On open and save: run the operator's cases in the background for the facts rules prove premises with
        (device/facts.py), then analyse again. One job per operator; a save during a job asks for one more after.
        Never in an untrusted workspace: running the cases builds and runs its code (lint reads the sources only)."""
        if not self.state.trusted:
            return
        root = self.state.root_of(uri_to_path(uri))
        if root is None or not self.state.settings.case_facts:
            return
        session = self.state.session(root)
        if session.facts_job is not None and not session.facts_job.done():
            session.facts_again = True
            return
        session.facts_job = asyncio.ensure_future(self._facts_job(session, uri))

    async def _facts_job(self, session: OperatorSession, uri: str) -> None:
        from tilewise.device.facts import case_facts

        root = session.root
        try:
            # A moment's wait, then the setting again: an editor opens the documents it restores before it sends
            # the settings (a `caseFacts: false` may arrive just after the open), and a burst of opens or saves
            # is one job.
            await asyncio.sleep(FACTS_DELAY_S)
            if not self.state.settings.case_facts:
                return
            analysis = await self.analysis_for(uri)
            if analysis is None:
                return
            op = analysis.op
            cases = list(op.manifest.cases) if op.manifest and op.manifest.cases else []
            if not cases:
                return
            texts = {p: sf.text for p, sf in op.sources.items()}
            if session.facts is not None and session.facts.texts == texts and session.facts.cases == cases:
                return  # these very sources already ran these very cases
            problems: list[str] = []
            device = self.device()  # the worker reads only op, cases and device
            facts = await asyncio.to_thread(case_facts, device, op, cases, problems)
            session.facts = StoredFacts(texts, facts, problems, cases)
            for line in problems:
                log.info("%s: %s", root, line)
            self.schedule(uri, delay=0)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("running the cases of %s for lint facts failed", root)
        finally:
            if session.facts_again:
                session.facts_again = False
                session.facts_job = None
                self.refresh_facts(uri)

    def collect_garbage(self) -> None:
        """Collect the young generations now, just after publishing: an analysis leaves a few thousand objects
        behind, and an automatic collection in the middle of the next one costs it ~10 ms at the 95th percentile
        (benchmarks/lsp_latency.py). Now and then, collect everything."""
        self._collections += 1
        gc.collect(2 if self._collections % 200 == 0 else 1)

    def _report_failure(self, session: OperatorSession, message: str) -> None:
        """Tell the user, once per distinct failure (not on every keystroke); the log has the traceback."""
        if session.failure == message:
            return
        session.failure = message
        self.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Error, message=message + " (the server log has the details)")
        )

    async def _replay_stored_tune(self, root: str, analysis: Analysis) -> None:
        """Once per operator: show what an earlier tune of these very sources found."""
        session = self.state.session(root)
        if session.replayed or session.tuned is not None:
            return
        try:
            best = await asyncio.to_thread(self.state.stored_best, analysis, self.state.settings)
        except asyncio.CancelledError:
            raise  # a newer edit cancelled this analysis: the next one looks again
        except Exception:
            log.exception("could not read stored tune results for %s", root)
            best = None
        session.replayed = True
        if best is not None:
            session.tuned = best

    async def analysis_for(self, uri: str) -> Analysis | None:
        """The analysis of the operator holding `uri`, computed now if none is current."""
        root = self.state.root_of(uri_to_path(uri))
        if root is None:
            return None
        session = self.state.session(root)
        pending = session.pending
        if pending is not None and not pending.done():
            with contextlib.suppress(asyncio.CancelledError):  # superseded by a newer edit: analyse below
                await asyncio.shield(pending)
        if session.analysis is None:
            analysis = await asyncio.to_thread(self.state.analyse, self.snapshot(root))
            self.adopt(session, analysis)  # unless a newer edit's analysis finished meanwhile
        return session.analysis

    async def operator_analysis(self, uri: str) -> Analysis:
        """The analysis of the operator holding `uri`, for a request: an error the client shows when there is none."""
        analysis = await self.analysis_for(uri)
        if analysis is None:
            raise ValueError(f"{uri_to_path(uri)} is not inside an AscendC operator")
        return analysis

    async def analysis_at(self, uri: str, position: types.Position) -> tuple[Analysis, str, int] | None:
        """(analysis, path, byte offset) of an LSP position in one of an operator's sources, else None."""
        analysis = await self.analysis_for(uri)
        path = uri_to_path(uri)
        if analysis is None or path not in analysis.op.sources:
            return None
        return analysis, path, analysis.op.sources[path].offset_of_lsp(position.line, position.character)

    # ---- diagnostics ------------------------------------------------------------------------------------------
    def show_convergence(self, root: str, payload: ConvergencePayload) -> None:
        """Keep a tune's or an optimize's convergence for the view and send it (`tilewise/convergence`): the client
        redraws an open view from each one. On the event loop."""
        self.session(root).convergence = payload
        self.protocol.notify(CONVERGENCE, payload.model_dump(mode="json"))

    def publish(self, root: str, analysis: Analysis | None = None) -> None:
        """Send the diagnostics of the operator at `root`, every source merged (results.diagnostics_by_file), built
        on its latest analysis (else on `analysis`, when settings dropped it meanwhile). Only what changed goes out:
        a file whose text and diagnostics the client already has (the host files, while the kernel is edited) is
        not sent again on every keystroke; a file that had diagnostics and has none now (a fixed tilewise.toml) is
        cleared.

        Each file's diagnostics go out with the version of the document they were computed on, and never over newer
        ones (ServerState.published, across operators: a file may belong to two): a file whose diagnostics came from
        a newer snapshot, or that a newer analysis has read since (the findings' offsets are then of another text),
        is left to that analysis."""
        session = self.state.session(root)
        analysis = session.analysis or analysis
        if analysis is None:
            return
        by_file = diagnostics_by_file(session, analysis, self.item_providers)
        sent, shown = session.published, self.state.published
        for path in set(sent) - set(by_file):
            by_file[path] = []
        for path, diagnostics in by_file.items():
            last = shown.get(path)
            if (last is not None and last[0] > analysis.snapshot) or not analysis.analysed(path):
                continue
            sf = analysis.op.sources.get(path)
            state = (hash(sf.text) if sf is not None else 0, diagnostics)
            shown[path] = (analysis.snapshot, state)
            if diagnostics or sf is not None:
                sent[path] = state
            else:
                sent.pop(path, None)  # a cleared file that is not a source: this operator has nothing there
            if last is not None and last[1] == state:
                continue  # the client has these already
            self.text_document_publish_diagnostics_for(path_to_uri(path), diagnostics, analysis.versions.get(path))

    def clear(self, path: str) -> None:
        """Withdraw the diagnostics of `path` and of every file under it (a file or folder deleted on disk): an empty
        publish for each that has some, and none that an analysis begun before this may publish over (the clearing
        takes a snapshot number of its own, so every such analysis is older; publish() leaves the file alone)."""
        inside = path.rstrip("/") + "/"
        gone = [p for p in self.state.published if p == path or p.startswith(inside)]
        if not gone:
            return
        self.state.snapshots += 1
        for p in gone:
            had = self.state.published[p][1][1]
            self.state.published[p] = (self.state.snapshots, (0, []))
            for session in self.state.operators.values():
                session.published.pop(p, None)  # no operator still has diagnostics there to clear later
            if had:
                self.text_document_publish_diagnostics_for(path_to_uri(p), [])

    def withdraw(self, root: str) -> None:
        """The operator at `root` is gone from disk (deleted, or no kernel left): stop its pending analysis and
        clear every diagnostic it published. The session stays: the operator may come back (a branch checked out
        again), and an event under its root then analyses it anew."""
        session = self.state.operators.get(root)
        if session is not None:
            if session.pending is not None:
                session.pending.cancel()
            session.analysis = None
        self.clear(root)

    def text_document_publish_diagnostics_for(
        self, uri: str, diagnostics: list[types.Diagnostic], version: int | None = None
    ) -> None:
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )


def create_server() -> TilewiseServer:
    server = TilewiseServer()
    for feature in (
        trust,  # the client's word on trust, at initialize
        prebuild,  # the emulator's per-installation build, in the background (trusted only)
        documents,
        watched_files,  # files created, changed, renamed or deleted on disk
        code_actions,
        hover,
        code_lens,
        definition,
        requests,
        optimize,
        config,
        verify,
        motifs,
        charts,
    ):
        feature.register(server)
    warm_up(server)
    return server


def warm_up(server: TilewiseServer) -> None:
    """cattrs writes its (un)structuring functions for a message type the first time it sees one: 25 ms or more
    for the first code action. Pay that at startup, not on the user's first lightbulb or hover."""
    convert = server.protocol._converter
    position = types.Position(line=0, character=0)
    span = types.Range(start=position, end=position)
    found = types.Diagnostic(
        range=span, message="", severity=types.DiagnosticSeverity.Warning, source="tilewise", code="rule"
    )
    edit = types.WorkspaceEdit(changes={"file:///x": [types.TextEdit(range=span, new_text="")]})
    document = types.TextDocumentIdentifier(uri="file:///x")
    samples = [
        types.CodeActionResponse(
            id=0,
            result=[types.CodeAction(title="", kind=types.CodeActionKind.QuickFix, diagnostics=[found], edit=edit)],
        ),
        types.CodeActionRequest(
            id=0,
            params=types.CodeActionParams(
                text_document=document, range=span, context=types.CodeActionContext(diagnostics=[found])
            ),
        ),
        types.HoverResponse(
            id=0, result=types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=""), range=span)
        ),
        types.HoverRequest(id=0, params=types.HoverParams(text_document=document, position=position)),
        types.PublishDiagnosticsNotification(
            params=types.PublishDiagnosticsParams(uri="file:///x", diagnostics=[found])
        ),
        types.DidChangeTextDocumentNotification(
            params=types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri="file:///x", version=1),
                content_changes=[types.TextDocumentContentChangePartial(range=span, text="")],
            )
        ),
    ]
    for sample in samples:
        try:
            convert.structure(convert.unstructure(sample), type(sample))
        except Exception:
            log.debug("warm-up of %s failed", type(sample).__name__, exc_info=True)


__all__ = ["OperatorSession", "TilewiseServer", "create_server", "path_to_uri"]
