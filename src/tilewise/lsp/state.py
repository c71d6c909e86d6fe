"""What the server knows between requests: the settings, and one `OperatorSession` per operator (its latest analysis,
jobs, last run and tune results, verified fixes, the diagnostics sent). Sessions change on the event loop only;
analyses run on worker threads against an immutable `OperatorSnapshot` (texts, settings, facts) taken before."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tilewise.analysis.chip import Chip, load_chip
from tilewise.analysis.errors import TilewiseError
from tilewise.analysis.findings import Finding
from tilewise.analysis.lint import lint
from tilewise.analysis.observed import moved
from tilewise.analysis.operator import Operator, load_operator
from tilewise.analysis.project import locate
from tilewise.analysis.rules import RuleContext
from tilewise.analysis.source import SourceFile
from tilewise.lsp.bank import BankCache, StoredRun, motif_suggestions
from tilewise.search.cache import BestConfig

if TYPE_CHECKING:
    from tilewise.device.protocol import Measurement
    from tilewise.report.payloads import ConvergencePayload
    from tilewise.search.bank.suggest import Suggestion
    from tilewise.search.verify_fix import FixVerdict

log = logging.getLogger("tilewise.lsp")
_ANALYSIS_LOCK = threading.Lock()
KEPT_SOURCES = 64  # parsed files kept between analyses (with their per-chunk results)


def uri_to_path(uri: str) -> str:
    return unquote(urlparse(uri).path)


def path_to_uri(path: str) -> str:
    return Path(path).resolve().as_uri()


class LlmConfig(BaseModel):
    """Section `tilewise.llm`: the OpenAI-compatible endpoint `tilewise/optimize` asks when the client wants the model.
    The API key is never a setting: the extension hands it to the server process in `TILEWISE_LLM_API_KEY` (or the
    user's own `OPENAI_API_KEY` reaches it), and search/llm/client.py reads it from there."""

    model_config = ConfigDict(populate_by_name=True, frozen=True)

    base_url: str | None = Field(default=None, alias="baseUrl")  # None: the hosted OpenAI API
    model: str | None = None  # None: search/llm/client.py's default

    @field_validator("base_url", "model", mode="before")
    @classmethod
    def _blank_is_default(cls, value: object) -> object:
        """The editor sends "" for a setting left empty: that is the default, not a URL or model named ""."""
        return (value.strip() or None) if isinstance(value, str) else value

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, url: str | None) -> str | None:
        if url is not None and not url.startswith(("http://", "https://")):
            raise ValueError(f"'{url}' is not an http(s) URL; e.g. http://127.0.0.1:8080/v1 for a local server")
        return url


class Settings(BaseModel):
    """What the client may set (section `tilewise`); other keys, such as the client's own, are ignored."""

    model_config = ConfigDict(populate_by_name=True, frozen=True)  # replaced whole, so snapshots may share it

    # the CPU emulator, or an Ascend card through CANN (the server's environment must have set_env.sh sourced)
    device: str = Field(default="emulator", pattern=r"^(emulator|npu(:\d+)?)$")
    chip: str = "910B2"
    budget: int = Field(default=32, ge=1, le=10_000)
    strategy: str = "evo"
    debounce_ms: int = Field(default=200, ge=0, le=10_000)
    # Run the manifest's cases in the background on open and save, so rules prove premises with real sizes
    # (analysis/observed.py). TILEWISE_CASE_FACTS=0 turns the default off (the tests of other features do).
    case_facts: bool = Field(
        default_factory=lambda: os.environ.get("TILEWISE_CASE_FACTS", "1") != "0", alias="caseFacts"
    )
    llm: LlmConfig = Field(default_factory=LlmConfig)

    @field_validator("chip")
    @classmethod
    def _known_chip(cls, chip: str) -> str:
        try:
            load_chip(chip)
        except TilewiseError as exc:
            raise ValueError(f"chip '{chip}': {exc.message}") from None
        return chip

    @field_validator("strategy")
    @classmethod
    def _known_strategy(cls, strategy: str) -> str:
        return known_strategy(strategy)


def known_strategy(strategy: str) -> str:
    """`strategy` if search/strategies has it; a validator's error naming the ones it has otherwise."""
    from tilewise.search.strategies import STRATEGIES

    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy '{strategy}'; use one of {', '.join(STRATEGIES)}")
    return strategy


class Superseded(Exception):
    """An analysis stopped because a newer edit arrived."""


@dataclass
class Analysis:
    op: Operator
    findings: list[Finding]
    version: int
    context: RuleContext  # the rules' view (chip, data flow, tensor types), kept for hovers
    suggestions: list[Suggestion] = field(default_factory=list)  # the motifs that fit (server/lsp/bank.py)
    # The snapshot it analysed: its order among the server's snapshots (a later one is newer), and the version of
    # each open document then, which its diagnostics are published for (LSP publishDiagnostics' `version`).
    snapshot: int = 0
    versions: Mapping[str, int] = field(default_factory=dict)
    # Each source's text as analysed: a later analysis updates the parsed sources in place, so the findings' byte
    # offsets give positions only while a source still has this text (TilewiseServer.publish checks).
    texts: dict[str, str] = field(default_factory=dict)

    def analysed(self, path: str) -> bool:
        """Whether the source at `path` still has the text this analysis read (its findings' positions hold)."""
        sf = self.op.sources.get(path)
        text = self.texts.get(path)
        return sf is None or text is None or sf.text is text or sf.text == text

    @cached_property
    def sources_hash(self) -> str:
        """search.cache.source_hash of the texts analysed: what stored tunes and verified fixes are keyed by."""
        from tilewise.search.cache import source_hash

        return source_hash({p: sf.text for p, sf in self.op.sources.items()})


@dataclass
class RunLines:
    """An operator's last run, per source line, for hovers: which case, the figures per (file, line), and a hash of
    each source's text as it ran, so a hover can say when the file has changed since (its lines may have moved)."""

    case: str | None
    lines: dict[tuple[str, int], list]  # (file, line) -> device.sites.LineFigures
    text_hashes: dict[str, int]
    stopped: bool = False  # the run ended with an error: the figures count the calls made until then

    def changed(self, path: str, text: str) -> bool:
        return self.text_hashes.get(path) != hash(text)


@dataclass
class VerifiedFix:
    """A fix tried on the emulator (search/verify_fix.py), for the sources it ran on: stale once they change."""

    sources: str  # search.cache.source_hash of the operator's texts
    verdict: FixVerdict


@dataclass
class VerifiedMotif:
    """A motif's rewrite verified on the emulator (`tilewise/verifySuggestions`), for the sources it ran on: stale
    once they change, like VerifiedFix. `suggestion.verified` holds what was measured."""

    sources: str  # search.cache.source_hash of the operator's texts
    suggestion: Suggestion


@dataclass(frozen=True)
class StoredFacts:
    """What the last runs of an operator's cases showed, and the sources they ran on (analysis/observed.py moves
    the facts to the lines of the sources being edited)."""

    texts: dict[str, str]
    facts: list  # analysis.observed.CaseFacts
    problems: list[str]  # one line per case that gave no facts
    # the manifest's cases they ran: a tilewise.toml changed on disk (features/watched_files.py) runs them again
    cases: list = field(default_factory=list)


@dataclass(slots=True)
class OperatorSession:
    """Everything the server holds about one operator (by its root): one record, read and changed on the event loop
    only. Background work takes an `OperatorSnapshot` instead and never reads this after it started."""

    root: str
    analysis: Analysis | None = None  # the latest analysis of the open documents
    pending: asyncio.Task | None = None  # the debounced analysis not yet finished
    last_run: Measurement | None = None  # the last `tilewise/run`
    run_lines: RunLines | None = None  # the last run, per line, for hovers
    tuned: BestConfig | None = None  # the best tuned configuration (this session's tune, or a stored one)
    replayed: bool = False  # the stored tune results were looked up
    # path -> (hash of its text, diagnostics) as last sent to the client
    published: dict[str, tuple[int, list]] = field(default_factory=dict)
    failure: str | None = None  # the last analysis failure shown to the user
    # (rule, file, finding start, fix title) -> the fix's verdict on the emulator
    verified: dict[tuple[str, str, int, str], VerifiedFix] = field(default_factory=dict)
    facts: StoredFacts | None = None  # what the last runs of its cases showed
    facts_job: asyncio.Task | None = None  # the running job that runs its cases for facts
    facts_again: bool = False  # saved during the facts job: run the cases once more after it
    motifs: dict[str, VerifiedMotif] = field(default_factory=dict)  # motif id -> its verified rewrite
    runs: dict[str, StoredRun] = field(default_factory=dict)  # case -> its last run, to learn from the next
    convergence: ConvergencePayload | None = None  # the last tune's, for the convergence view (live while it runs)


@dataclass(frozen=True, slots=True)
class OperatorSnapshot:
    """What an analysis on a worker thread reads, taken on the event loop: the open documents' texts, the settings
    and the cases' facts as they were. Edits and setting changes that arrive meanwhile do not reach a running job;
    the next one sees them."""

    root: str
    texts: Mapping[str, str]
    settings: Settings
    facts: StoredFacts | None
    bottleneck: str | None = None  # the pipe that bound the last run, which ranks the motifs
    versions: Mapping[str, int] = field(default_factory=dict)  # path -> the open document's version
    number: int = 0  # the order of snapshots taken (ServerState.snapshot): a larger number is newer


@dataclass
class ServerState:
    settings: Settings = field(default_factory=Settings)
    operators: dict[str, OperatorSession] = field(default_factory=dict)  # operator root -> its session
    sources: dict[str, SourceFile] = field(default_factory=dict)  # parsed open documents, reused incrementally
    version: int = 0
    snapshots: int = 0  # snapshots taken: each analysis knows how new its texts are
    # path -> (snapshot, (hash of its text, diagnostics)) as the client last got them, from any operator
    published: dict[str, tuple[int, tuple[int, list]]] = field(default_factory=dict)
    banks: BankCache = field(default_factory=BankCache)  # the experience banks, read again when the user's changes
    # Whether the client trusts the workspace (features/trust.py, from initialize; True when the client says
    # nothing: most editors have no such notion). Untrusted: nothing is built or run, analysis and lint go on.
    trusted: bool = True
    _loaded_chip: tuple[str, Chip] | None = None

    def session(self, root: str) -> OperatorSession:
        """The session of the operator at `root`, started on first use."""
        found = self.operators.get(root)
        if found is None:
            found = self.operators[root] = OperatorSession(root)
        return found

    def snapshot(self, root: str, texts: dict[str, str], versions: Mapping[str, int] | None = None) -> OperatorSnapshot:
        """An immutable view of the operator at `root` for a worker thread, with the open documents' `texts` (and
        their `versions`), numbered after every snapshot taken before it."""
        session = self.operators.get(root)
        last = session.last_run if session else None
        self.snapshots += 1
        return OperatorSnapshot(
            root,
            MappingProxyType(dict(texts)),
            self.settings,
            session.facts if session else None,
            last.bottleneck if last is not None else None,
            MappingProxyType(dict(versions or {})),
            self.snapshots,
        )

    def change_settings(self, new: Settings) -> None:
        """New settings: what they make stale in every session is dropped (each is analysed again after)."""
        old, self.settings = self.settings, new
        for session in self.operators.values():
            if (new.device, new.chip) != (old.device, old.chip):
                session.tuned = None  # measured on another device or chip: look up the stored results again
                session.replayed = False
            if new.chip != old.chip or not new.case_facts:
                session.facts = None  # another chip's UB and core count, or facts the user turned off
                if session.facts_job is not None:
                    session.facts_job.cancel()
            session.analysis = None

    def root_of(self, path: str) -> str | None:
        try:
            return str(locate(path).root)
        except TilewiseError:
            return None

    def analyse(self, snap: OperatorSnapshot, superseded: threading.Event | None = None) -> Analysis:
        """Runs on a worker thread and reads only `snap`, so edits that arrive meanwhile do not interfere.
        Serialised, because re-parsing reuses (and updates) the open documents' trees. `superseded` is set when a
        newer edit made this work stale: it then stops at the next step instead of finishing for nothing."""
        with _ANALYSIS_LOCK:
            if superseded is not None and superseded.is_set():
                raise Superseded
            op = load_operator(snap.root, overlay=dict(snap.texts), cache=self.sources)
            self._keep_recent(op.sources)
            if superseded is not None and superseded.is_set():
                raise Superseded
            stored = snap.facts
            facts = moved(stored.facts, stored.texts, {p: sf.text for p, sf in op.sources.items()}) if stored else None
            chip = self._chip(snap.settings.chip)
            context = RuleContext(op.model, op.sources, chip, facts)
            findings = lint(op, context=context)
            # Hovers read these later on the event loop; computing them here keeps every use of the sources'
            # per-chunk memory (which the next analysis updates) under this lock.
            context.flow, context.tensor_types, context.param_vars  # noqa: B018
            if superseded is not None and superseded.is_set():
                raise Superseded
            suggestions = motif_suggestions(op, findings, context, self.banks, snap.bottleneck)
            self.version += 1
            texts = {p: sf.text for p, sf in op.sources.items()}
            return Analysis(op, findings, self.version, context, suggestions, snap.number, snap.versions, texts)

    def _chip(self, name: str) -> Chip:
        """The chip of the settings, read once per setting rather than on every keystroke (under the lock)."""
        if self._loaded_chip is None or self._loaded_chip[0] != name:
            self._loaded_chip = (name, load_chip(name))
        return self._loaded_chip[1]

    def _keep_recent(self, used: dict[str, SourceFile]) -> None:
        """The parsed-source cache holds the files of the operators analysed last, not of every one ever opened."""
        for path in used:
            if path in self.sources:
                self.sources[path] = self.sources.pop(path)  # most recently used last
        for path in list(self.sources)[: max(len(self.sources) - KEPT_SOURCES, 0)]:
            if path not in used:
                del self.sources[path]

    def stored_best(self, analysis: Analysis, settings: Settings) -> BestConfig | None:
        """A tune's result from an earlier session for exactly these sources, on the device and chip of `settings`
        (runs on a worker thread)."""
        from tilewise.search.cache import ResultsCache, default_results_path

        path = default_results_path()
        if not path.exists():
            return None
        cache = ResultsCache(path)
        try:
            return cache.best(analysis.sources_hash, settings.device, settings.chip)
        finally:
            cache.close()
