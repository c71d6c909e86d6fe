"""Find the operator a file belongs to, in either layout.

- operator project (msopgen): a folder with `op_host/` and/or `op_kernel/`;
- kernel invocation: one `.cpp`/`.asc` holding the kernel and a host `main` that launches it with `<<<>>>`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from analysis.errors import ProjectError

SOURCE_SUFFIXES = {".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".hxx", ".asc", ".inc"}
MANIFEST = "tilewise.toml"
_LAUNCH_RE = re.compile(rb"<<<[^;]*>>>")
_MAX_SOURCE_BYTES = 4 * 1024 * 1024


@dataclass
class OperatorProject:
    root: Path
    layout: str  # "project" | "invocation"
    host_files: list[Path] = field(default_factory=list)
    kernel_files: list[Path] = field(default_factory=list)
    manifest: Path | None = None

    @property
    def files(self) -> list[Path]:
        seen: dict[Path, None] = {}
        for p in [*self.host_files, *self.kernel_files]:
            seen.setdefault(p, None)
        return list(seen)

    @property
    def name(self) -> str:
        return self.root.name


def _sources_under(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(
        p for p in folder.rglob("*")
        if p.is_file() and p.suffix.lower() in SOURCE_SUFFIXES and p.stat().st_size <= _MAX_SOURCE_BYTES
    )


def _launches(path: Path) -> bool:
    try:
        return bool(_LAUNCH_RE.search(path.read_bytes()))
    except OSError:
        return False


def locate(path: str | Path) -> OperatorProject:
    """The operator that `path` (a file or folder anywhere inside it) belongs to."""
    p = Path(path).resolve()
    if not p.exists():
        raise ProjectError(str(path), 0, "does not exist; give a file or folder inside an AscendC operator")
    start = p if p.is_dir() else p.parent
    for folder in [start, *start.parents][:6]:
        if folder.name in ("op_host", "op_kernel"):
            continue
        if (folder / "op_host").is_dir() or (folder / "op_kernel").is_dir():
            return _project_layout(folder)
    # kernel invocation: the file itself, or the one launching file in the folder
    candidates = [p] if p.is_file() else sorted(
        q for q in start.iterdir() if q.is_file() and q.suffix.lower() in (".cpp", ".cc", ".asc")
    )
    launching = [q for q in candidates if _launches(q)]
    if launching:
        root = launching[0].parent
        files = [launching[0], *[q for q in _sources_under(root) if q.suffix.lower() in (".h", ".hpp")]]
        manifest = root / MANIFEST
        return OperatorProject(root, "invocation", host_files=[launching[0]], kernel_files=files,
                               manifest=manifest if manifest.exists() else None)
    raise ProjectError(
        str(path), 0,
        "is not inside an AscendC operator: no op_host/ or op_kernel/ folder above it and no <<<>>> kernel launch; "
        "point at the operator's folder",
    )


def _project_layout(root: Path) -> OperatorProject:
    manifest = root / MANIFEST
    return OperatorProject(
        root,
        "project",
        host_files=_sources_under(root / "op_host"),
        kernel_files=_sources_under(root / "op_kernel"),
        manifest=manifest if manifest.exists() else None,
    )


def discover(path: str | Path) -> list[OperatorProject]:
    """The operators at or under `path`: the one it is inside, or every operator in the folders below it."""
    try:
        return [locate(path)]
    except ProjectError:
        p = Path(path)
        if not p.is_dir():
            raise
    found: list[OperatorProject] = []
    roots: set[Path] = set()
    for marker in sorted(p.rglob("*")):
        if not marker.is_dir() or marker.name not in ("op_host", "op_kernel") or any(
                r in marker.parents for r in roots):
            continue
        roots.add(marker.parent)
        found.append(_project_layout(marker.parent.resolve()))
    for manifest in sorted(p.rglob(MANIFEST)):
        if any(r == manifest.parent or r in manifest.parents for r in roots):
            continue
        try:
            op = locate(manifest.parent)
        except ProjectError:
            continue
        roots.add(manifest.parent)
        found.append(op)
    if not found:
        raise ProjectError(str(path), 0, "contains no AscendC operator (no op_host/ or op_kernel/ folder, no "
                                         "<<<>>> launch); point at an operator's folder")
    return sorted(found, key=lambda o: str(o.root))
