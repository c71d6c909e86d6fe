"""What the server knows between requests: per-operator analyses of the open documents' snapshot, settings, and
the last run and tune results. Analyses run on worker threads against an immutable snapshot of the texts."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlparse

from pydantic import BaseModel, ConfigDict, Field, field_validator

from analysis.chip import Chip, load_chip
from analysis.errors import TilewiseError
from analysis.findings import Finding
from analysis.lint import lint
from analysis.observed import moved
from analysis.operator import Operator, load_operator
from analysis.project import locate
from analysis.rules import RuleContext
from analysis.source import SourceFile
from search.cache import BestConfig

log = logging.getLogger("tilewise.lsp")
_ANALYSIS_LOCK = threading.Lock()
KEPT_SOURCES = 64  # parsed files kept between analyses (with their per-chunk results)


def uri_to_path(uri: str) -> str:
    return unquote(urlparse(uri).path)


def path_to_uri(path: str) -> str:
    return Path(path).resolve().as_uri()


class Settings(BaseModel):
    """What the client may set (section `tilewise`); other keys, such as the client's own, are ignored."""

    model_config = ConfigDict(populate_by_name=True)

    device: Literal["emulator"] = "emulator"
    chip: str = "910B2"
    budget: int = Field(32, ge=1, le=10_000)
    strategy: str = "evo"
    debounce_ms: int = Field(200, ge=0, le=10_000)
    # Run the manifest's cases in the background on open and save, so rules prove premises with real sizes
    # (analysis/observed.py). TILEWISE_CASE_FACTS=0 turns the default off (the tests of other features do).
    case_facts: bool = Field(
        default_factory=lambda: os.environ.get("TILEWISE_CASE_FACTS", "1") != "0", alias="caseFacts"
    )

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
        from search.strategies import STRATEGIES

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

    @cached_property
    def sources_hash(self) -> str:
        """search.cache.source_hash of the texts analysed: what stored tunes and verified fixes are keyed by."""
        from search.cache import source_hash

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
    verdict: object  # search.verify_fix.FixVerdict


@dataclass
class StoredFacts:
    """What the last runs of an operator's cases showed, and the sources they ran on (analysis/observed.py moves
    the facts to the lines of the sources being edited)."""

    texts: dict[str, str]
    facts: list  # analysis.observed.CaseFacts
    problems: list[str]  # one line per case that gave no facts


@dataclass
class ServerState:
    settings: Settings = field(default_factory=Settings)
    analyses: dict[str, Analysis] = field(default_factory=dict)  # operator root -> latest analysis
    pending: dict[str, asyncio.Task] = field(default_factory=dict)  # operator root -> debounced analysis
    sources: dict[str, SourceFile] = field(default_factory=dict)  # parsed open documents, reused incrementally
    last_run: dict[str, object] = field(default_factory=dict)  # operator root -> Measurement
    run_lines: dict[str, RunLines] = field(default_factory=dict)  # operator root -> its last run, per line
    tuned: dict[str, BestConfig] = field(default_factory=dict)  # operator root -> best tuned configuration
    replayed: set[str] = field(default_factory=set)  # operator roots whose stored tune results were looked up
    # operator root -> path -> (hash of its text, diagnostics) as last sent to the client
    published: dict[str, dict[str, tuple[int, list]]] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)  # operator root -> the last analysis failure shown
    # operator root -> (rule, file, finding start, fix title) -> the fix's verdict on the emulator
    verified: dict[str, dict[tuple[str, str, int, str], VerifiedFix]] = field(default_factory=dict)
    facts: dict[str, StoredFacts] = field(default_factory=dict)  # operator root -> its cases' facts
    facts_jobs: dict[str, asyncio.Task] = field(default_factory=dict)  # operator root -> running facts job
    facts_again: set[str] = field(default_factory=set)  # saved during their job: run the cases once more after
    version: int = 0
    _loaded_chip: tuple[str, Chip] | None = None

    def root_of(self, path: str) -> str | None:
        try:
            return str(locate(path).root)
        except TilewiseError:
            return None

    def analyse(self, root: str, overlay: dict[str, str], superseded: threading.Event | None = None) -> Analysis:
        """Runs on a worker thread: the overlay is a snapshot, so edits that arrive meanwhile do not interfere.
        Serialised, because re-parsing reuses (and updates) the open documents' trees. `superseded` is set when a
        newer edit made this work stale: it then stops at the next step instead of finishing for nothing."""
        with _ANALYSIS_LOCK:
            if superseded is not None and superseded.is_set():
                raise Superseded
            op = load_operator(root, overlay=overlay, cache=self.sources)
            self._keep_recent(op.sources)
            if superseded is not None and superseded.is_set():
                raise Superseded
            stored = self.facts.get(root)
            facts = moved(stored.facts, stored.texts, {p: sf.text for p, sf in op.sources.items()}) if stored else None
            context = RuleContext(op.model, op.sources, self._chip(), facts)
            findings = lint(op, context=context)
            # Hovers read these later on the event loop; computing them here keeps every use of the sources'
            # per-chunk memory (which the next analysis updates) under this lock.
            context.flow, context.tensor_types, context.param_vars  # noqa: B018
            self.version += 1
            return Analysis(op, findings, self.version, context)

    def _chip(self) -> Chip:
        """The chip of the current settings, read once per setting rather than on every keystroke."""
        if self._loaded_chip is None or self._loaded_chip[0] != self.settings.chip:
            self._loaded_chip = (self.settings.chip, load_chip(self.settings.chip))
        return self._loaded_chip[1]

    def _keep_recent(self, used: dict[str, SourceFile]) -> None:
        """The parsed-source cache holds the files of the operators analysed last, not of every one ever opened."""
        for path in used:
            if path in self.sources:
                self.sources[path] = self.sources.pop(path)  # most recently used last
        for path in list(self.sources)[: max(len(self.sources) - KEPT_SOURCES, 0)]:
            if path not in used:
                del self.sources[path]

    def stored_best(self, analysis: Analysis) -> BestConfig | None:
        """A tune's result from an earlier session for exactly these sources (runs on a worker thread)."""
        from search.cache import ResultsCache, default_results_path

        path = default_results_path()
        if not path.exists():
            return None
        cache = ResultsCache(path)
        try:
            return cache.best(analysis.sources_hash, self.settings.device, self.settings.chip)
        finally:
            cache.close()
