"""The front door of `analysis`: load an operator from any path inside it and build its model.

`overlay` lets the language server substitute the text of open, unsaved documents for what is on disk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from analysis.errors import TilewiseError
from analysis.extract import build_model
from analysis.manifest import Manifest, load_manifest
from analysis.model import OperatorModel, Problem
from analysis.project import OperatorProject, locate
from analysis.source import SourceFile


@dataclass
class Operator:
    project: OperatorProject
    sources: dict[str, SourceFile]
    model: OperatorModel
    manifest: Manifest | None = None
    problems: list[Problem] = field(default_factory=list)


def load_sources(project: OperatorProject, overlay: dict[str, str] | None = None,
                 cache: dict[str, SourceFile] | None = None) -> tuple[dict[str, SourceFile], list[Problem]]:
    sources: dict[str, SourceFile] = {}
    problems: list[Problem] = []
    overlay = overlay or {}
    for path in project.files:
        key = str(path)
        try:
            if key in overlay:
                cached = (cache or {}).get(key)
                if cached is not None:
                    if cached.text != overlay[key]:
                        cached.update(overlay[key])
                    sources[key] = cached
                else:
                    sources[key] = SourceFile(key, overlay[key])
            else:
                sources[key] = SourceFile.load(key)
        except TilewiseError as exc:
            problems.append(Problem(file=exc.file, line=exc.line, message=exc.message))
    return sources, problems


def load_operator(path: str | Path, overlay: dict[str, str] | None = None,
                  cache: dict[str, SourceFile] | None = None) -> Operator:
    project = locate(path)
    sources, problems = load_sources(project, overlay, cache)
    model = build_model(project, sources)
    manifest = None
    if project.manifest is not None:
        try:
            manifest = load_manifest(project.manifest)
        except TilewiseError as exc:
            problems.append(Problem(file=exc.file, line=exc.line, message=exc.message))
    if manifest and manifest.operator.name:
        model.operator = manifest.operator.name
    model.problems = problems + model.problems
    return Operator(project, sources, model, manifest, model.problems)
