"""The front door of `analysis`: load an operator from any path inside it and build its model.

`overlay` lets the language server substitute the text of open, unsaved documents for what is on disk.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from tilewise.analysis.errors import TilewiseError
from tilewise.analysis.extract import build_model
from tilewise.analysis.host_copies import launch_roles
from tilewise.analysis.manifest import Manifest, load_manifest
from tilewise.analysis.model import OperatorModel, Problem, TensorParam
from tilewise.analysis.project import OperatorProject, locate
from tilewise.analysis.source import SourceFile, decode_source


@dataclass
class Operator:
    project: OperatorProject
    sources: dict[str, SourceFile]
    model: OperatorModel
    manifest: Manifest | None = None
    problems: list[Problem] = field(default_factory=list)


def load_sources(
    project: OperatorProject, overlay: dict[str, str] | None = None, cache: dict[str, SourceFile] | None = None
) -> tuple[dict[str, SourceFile], list[Problem]]:
    """Every source of the project, parsed; `overlay` texts replace what is on disk. With a `cache` (the language
    server's), parsed files are kept and re-parsed incrementally when their text changes, and a file on disk is
    read again only when its size or modification time changed."""
    sources: dict[str, SourceFile] = {}
    problems: list[Problem] = []
    overlay = overlay or {}
    for path in project.files:
        key = str(path)
        try:
            if key in overlay:
                sources[key] = _cached(cache, key, overlay[key], stamp=None)
            elif cache is None:
                sources[key] = SourceFile.load(key)
            else:
                sources[key] = _from_disk(cache, key)
        except TilewiseError as exc:
            problems.append(Problem(file=exc.file, line=exc.line, message=exc.message))
    return sources, problems


def _cached(cache: dict[str, SourceFile] | None, key: str, text: str, stamp: tuple | None) -> SourceFile:
    found = (cache or {}).get(key)
    if found is None:
        found = SourceFile(key, text)
        if cache is not None:
            cache[key] = found
    elif found.text != text:
        found.update(text)
    found.stamp = stamp
    return found


def _from_disk(cache: dict[str, SourceFile], key: str) -> SourceFile:
    try:
        st = os.stat(key)
    except OSError:
        return SourceFile.load(key)  # raises the error that names the file
    stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
    found = cache.get(key)
    if found is not None and found.stamp == stamp:
        return found
    try:
        data = Path(key).read_bytes()
    except OSError:
        return SourceFile.load(key)
    return _cached(cache, key, decode_source(data, key), stamp)


def load_operator(
    path: str | Path, overlay: dict[str, str] | None = None, cache: dict[str, SourceFile] | None = None
) -> Operator:
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
    if manifest and not model.opdef:
        _tensors_from_manifest(model, manifest, sources)
    model.problems = problems + model.problems
    return Operator(project, sources, model, manifest, model.problems)


def _tensors_from_manifest(
    model: OperatorModel, manifest: Manifest, sources: dict[str, SourceFile] | None = None
) -> None:
    """Without an OpDef (kernel invocation), inputs come from the manifest's cases, and outputs are the kernel
    entry's remaining GM parameters: those the host reads back after the launch when its ACL copies say so, and
    never one it only fills before (analysis/host_copies.py)."""
    names: dict[str, list[str]] = {}
    for case in manifest.cases:
        for name, spec in case.inputs.items():
            dtypes = names.setdefault(name, [])
            if spec.dtype not in dtypes:
                dtypes.append(spec.dtype)
    if model.layout == "atb" and (model.inputs or model.outputs):
        # The entry's tensors as analysis/atb.py split them stand (optional inputs, scratch and sync parameters
        # left out); the manifest gives their dtypes, outputs input 0's.
        for t in model.inputs:
            t.dtypes = names.get(t.name, [])
        for t in model.outputs:
            t.dtypes = list(model.inputs[0].dtypes) if model.inputs else []
        return
    model.inputs = [TensorParam(name=n, dtypes=d) for n, d in names.items()]
    entry = next((e for e in model.kernel.entries if e.name == model.kernel.entry), None)
    if entry is not None:
        skip = set(names) | {"workspace", "tiling", "usrWorkspace", "tilingGm"}
        first = model.inputs[0].dtypes if model.inputs else []
        roles = (
            launch_roles([sources[p].text for p in model.host_files if p in sources], entry.name)
            if sources and model.layout == "invocation"
            else {}
        )
        read_back = "output" in roles.values()
        model.outputs = [
            TensorParam(name=p.name, dtypes=list(first))
            for i, p in enumerate(entry.params)
            if p.name not in skip
            and "tiling" not in p.name.lower()
            and p.is_gm
            and roles.get(i) != "input"
            and (roles.get(i) == "output" or not read_back)
        ]
