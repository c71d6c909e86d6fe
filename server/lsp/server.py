"""The pygls server: state changes on the event loop, analysis on worker threads, one module per feature.

A feature that fails is logged and answered with an empty result; it never takes the server down.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
import threading

from pygls.lsp.server import LanguageServer

from server.lsp.state import ServerState, Superseded, path_to_uri, uri_to_path

log = logging.getLogger("tilewise.lsp")
FACTS_DELAY_S = 1.0


class TilewiseServer(LanguageServer):
    def __init__(self):
        super().__init__("tilewise", "0.1.0")
        self.state = ServerState()
        self._collections = 0

    # ---- analysis ---------------------------------------------------------------------------------------------
    def open_texts(self, root: str) -> dict[str, str]:
        """A snapshot of every open document inside the operator at `root`."""
        out = {}
        for uri, doc in list(self.workspace.text_documents.items()):
            path = uri_to_path(uri)
            if path.startswith(root.rstrip("/") + "/"):
                out[path] = doc.source
        return out

    def schedule(self, uri: str, delay: float | None = None) -> None:
        """Debounced, per operator: a newer edit cancels the analysis that has not started yet."""
        root = self.state.root_of(uri_to_path(uri))
        if root is None:
            self.text_document_publish_diagnostics_for(uri, [])
            return
        old = self.state.pending.pop(root, None)
        if old is not None:
            old.cancel()
        wait = self.state.settings.debounce_ms / 1000 if delay is None else delay
        self.state.pending[root] = asyncio.ensure_future(self._analyse_later(root, wait))

    async def _analyse_later(self, root: str, delay: float) -> None:
        superseded = threading.Event()
        try:
            await asyncio.sleep(delay)
            snapshot = self.open_texts(root)
            analysis = await asyncio.to_thread(self.state.analyse, root, snapshot, superseded)
        except asyncio.CancelledError:
            superseded.set()  # the worker thread stops at its next step; its result would be stale anyway
            return
        except Superseded:
            return
        except Exception as exc:
            log.exception("analysis of %s failed", root)
            self._report_failure(root, f"tilewise could not analyse {root}: {type(exc).__name__}: {exc}")
            return
        self.state.failures.pop(root, None)
        self.state.analyses[root] = analysis
        await self._replay_stored_tune(root, analysis)
        from server.lsp.features.diagnostics import publish

        publish(self, root, analysis)
        self.collect_garbage()

    def refresh_facts(self, uri: str) -> None:
        """On open and save: run the operator's cases in the background for the facts rules prove premises with
        (device/facts.py), then analyse again. One job per operator; a save during a job asks for one more after."""
        root = self.state.root_of(uri_to_path(uri))
        if root is None or not self.state.settings.case_facts:
            return
        job = self.state.facts_jobs.get(root)
        if job is not None and not job.done():
            self.state.facts_again.add(root)
            return
        self.state.facts_jobs[root] = asyncio.ensure_future(self._facts_job(root, uri))

    async def _facts_job(self, root: str, uri: str) -> None:
        from device.emulator import EmulatorDevice
        from device.facts import case_facts
        from server.lsp.state import StoredFacts

        try:
            # A moment's wait, then the setting again: an editor opens the documents it restores before it sends
            # the settings (a `caseFacts: false` may arrive just after the open), and a burst of opens or saves
            # is one job.
            await asyncio.sleep(FACTS_DELAY_S)
            if not self.state.settings.case_facts:
                return
            analysis = await self.analysis_for(uri)
            op = analysis.op if analysis is not None else None
            cases = list(op.manifest.cases) if op is not None and op.manifest and op.manifest.cases else []
            if not cases:
                return
            texts = {p: sf.text for p, sf in op.sources.items()}
            stored = self.state.facts.get(root)
            if stored is not None and stored.texts == texts:
                return  # these very sources already ran
            problems: list[str] = []
            facts = await asyncio.to_thread(
                case_facts, EmulatorDevice(chip=self.state.settings.chip), op, cases, problems
            )
            self.state.facts[root] = StoredFacts(texts, facts, problems)
            for line in problems:
                log.info("%s: %s", root, line)
            self.schedule(uri, delay=0)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("running the cases of %s for lint facts failed", root)
        finally:
            if root in self.state.facts_again:
                self.state.facts_again.discard(root)
                self.state.facts_jobs.pop(root, None)
                self.refresh_facts(uri)

    def collect_garbage(self) -> None:
        """Collect the young generations now, just after publishing: an analysis leaves a few thousand objects
        behind, and an automatic collection in the middle of the next one costs it ~10 ms at the 95th percentile
        (benchmarks/lsp_latency.py). Now and then, collect everything."""
        self._collections += 1
        gc.collect(2 if self._collections % 200 == 0 else 1)

    def _report_failure(self, root: str, message: str) -> None:
        """Tell the user, once per distinct failure (not on every keystroke); the log has the traceback."""
        from lsprotocol import types

        if self.state.failures.get(root) == message:
            return
        self.state.failures[root] = message
        self.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Error, message=message + " (the server log has the details)")
        )

    async def _replay_stored_tune(self, root: str, analysis) -> None:
        """Once per operator: show what an earlier tune of these very sources found."""
        if root in self.state.replayed or root in self.state.tuned:
            return
        try:
            best = await asyncio.to_thread(self.state.stored_best, analysis)
        except asyncio.CancelledError:
            raise  # a newer edit cancelled this analysis: the next one looks again
        except Exception:
            log.exception("could not read stored tune results for %s", root)
            best = None
        self.state.replayed.add(root)
        if best is not None:
            self.state.tuned[root] = best

    async def analysis_for(self, uri: str):
        """The analysis of the operator holding `uri`, computed now if none is current."""
        root = self.state.root_of(uri_to_path(uri))
        if root is None:
            return None
        pending = self.state.pending.get(root)
        if pending is not None and not pending.done():
            with contextlib.suppress(asyncio.CancelledError):  # superseded by a newer edit: analyse below
                await asyncio.shield(pending)
        if root not in self.state.analyses:
            self.state.analyses[root] = await asyncio.to_thread(self.state.analyse, root, self.open_texts(root))
        return self.state.analyses[root]

    async def analysis_at(self, uri: str, position):
        """(analysis, path, byte offset) of an LSP position in one of an operator's sources, else None."""
        analysis = await self.analysis_for(uri)
        path = uri_to_path(uri)
        if analysis is None or path not in analysis.op.sources:
            return None
        return analysis, path, analysis.op.sources[path].offset_of_lsp(position.line, position.character)

    def text_document_publish_diagnostics_for(self, uri: str, diagnostics) -> None:
        from lsprotocol import types

        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics))


def safe(default):
    """Wrap a feature handler so an exception is logged and answered with `default`."""

    def wrap(fn):
        if asyncio.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def run_async(*args, **kwargs):
                try:
                    return await fn(*args, **kwargs)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("%s failed", fn.__name__)
                    return default

            return run_async

        @functools.wraps(fn)
        def run(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except Exception:
                log.exception("%s failed", fn.__name__)
                return default

        return run

    return wrap


def create_server() -> TilewiseServer:
    from server.lsp.features import code_actions, code_lens, config, definition, diagnostics, hover, requests, verify

    server = TilewiseServer()
    for feature in (diagnostics, code_actions, hover, code_lens, definition, requests, config, verify):
        feature.register(server)
    warm_up(server)
    return server


def warm_up(server: TilewiseServer) -> None:
    """cattrs writes its (un)structuring functions for a message type the first time it sees one: 25 ms or more
    for the first code action. Pay that at startup, not on the user's first lightbulb or hover."""
    from lsprotocol import types

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


__all__ = ["TilewiseServer", "create_server", "path_to_uri", "safe"]
