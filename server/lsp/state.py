"""What the server knows between requests: per-operator analyses of the open documents' snapshot, settings, and
the last run and tune results. Analyses run on worker threads against an immutable snapshot of the texts."""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from pydantic import BaseModel

from analysis.chip import load_chip
from analysis.errors import TilewiseError
from analysis.findings import Finding
from analysis.lint import lint
from analysis.operator import Operator, load_operator
from analysis.project import locate
from analysis.source import SourceFile

log = logging.getLogger("tilewise.lsp")
_ANALYSIS_LOCK = threading.Lock()


def uri_to_path(uri: str) -> str:
    return unquote(urlparse(uri).path)


def path_to_uri(path: str) -> str:
    return Path(path).resolve().as_uri()


class Settings(BaseModel):
    device: str = "emulator"
    chip: str = "910B2"
    budget: int = 32
    strategy: str = "evo"
    debounce_ms: int = 200


@dataclass
class Analysis:
    op: Operator
    findings: list[Finding]
    version: int


@dataclass
class ServerState:
    settings: Settings = field(default_factory=Settings)
    analyses: dict[str, Analysis] = field(default_factory=dict)  # operator root -> latest analysis
    pending: dict[str, asyncio.Task] = field(default_factory=dict)  # operator root -> debounced analysis
    sources: dict[str, SourceFile] = field(default_factory=dict)  # parsed open documents, reused incrementally
    last_run: dict[str, object] = field(default_factory=dict)  # operator root -> Measurement
    tuned: dict[str, object] = field(default_factory=dict)  # operator root -> TuneResult
    version: int = 0

    def root_of(self, path: str) -> str | None:
        try:
            return str(locate(path).root)
        except TilewiseError:
            return None

    def analyse(self, root: str, overlay: dict[str, str]) -> Analysis:
        """Runs on a worker thread: the overlay is a snapshot, so edits that arrive meanwhile do not interfere.
        Serialised, because re-parsing reuses (and updates) the open documents' trees."""
        with _ANALYSIS_LOCK:
            op = load_operator(root, overlay=overlay, cache=self.sources)
            findings = lint(op, load_chip(self.settings.chip))
            self.version += 1
            return Analysis(op, findings, self.version)
