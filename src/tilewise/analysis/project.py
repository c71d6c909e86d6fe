"""Find the operator a file belongs to, in either layout.

- operator project (msopgen): a folder with `op_host/` and/or `op_kernel/`;
- kernel invocation: one `.cpp`/`.asc` holding the kernel and a host `main` that launches it with `<<<>>>`;
- mki (Ascend Transformer Boost): `op_kernel/` or `kernel/`, `tiling/` and a `<name>_kernel.cpp` registering the
  kernel with the framework (analysis/atb.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from tilewise.analysis.atb import atb_files, is_atb_operator
from tilewise.analysis.errors import ProjectError

SOURCE_SUFFIXES = {".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".hxx", ".asc", ".inc"}
MANIFEST = "tilewise.toml"
_LAUNCH_RE = re.compile(rb"<<<[^;]*>>>")
# The AI Core kinds a kernel entry's qualifier names: `__aicore__`, or in newer CANN (the asc-devkit examples, .asc
# files) `__vector__`, `__cube__` and `__mix__(cube, vector)`.
AICORE_KINDS = ("__aicore__", "__vector__", "__cube__", "__mix__")
_KIND = rb"(?:" + rb"|".join(k.encode() for k in AICORE_KINDS) + rb")"
_KERNEL_RE = re.compile(rb"__global__[^;{]*" + _KIND + rb"|" + _KIND + rb"[^;{]*__global__")
_MAX_SOURCE_BYTES = 4 * 1024 * 1024


@dataclass
class OperatorProject:
    root: Path
    layout: Literal["project", "invocation", "atb"]
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
        p
        for p in folder.rglob("*")
        if p.is_file() and p.suffix.lower() in SOURCE_SUFFIXES and p.stat().st_size <= _MAX_SOURCE_BYTES
    )


def _loose_sources(root: Path) -> list[Path]:
    """Sources of a kernel-invocation operator: the folder's own files and those of its plain subfolders
    (`src/`, `kernels/`), but not of subfolders that are operators themselves."""
    out = [q for q in sorted(root.iterdir()) if q.is_file() and q.suffix.lower() in SOURCE_SUFFIXES]
    for sub in sorted(d for d in root.iterdir() if d.is_dir() and not d.name.startswith(".")):
        if any((sub / marker).exists() for marker in ("op_host", "op_kernel", MANIFEST)):
            continue
        out.extend(q for q in _sources_under(sub) if len(q.relative_to(root).parts) <= 3)
    return out[:200]


def _has(path: Path, regex: re.Pattern) -> bool:
    try:
        return bool(regex.search(path.read_bytes()))
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
        if is_atb_operator(folder):
            return _atb_layout(folder)
        if (folder / "op_host").is_dir() or (folder / "op_kernel").is_dir():
            return _project_layout(folder)
    # kernel invocation: sources with a __global__ kernel, launched with <<<>>> or from a separate host file
    root = start
    sources = _loose_sources(root)
    if p.is_file() and p not in sources:
        sources.append(p)
    kernels = [q for q in sources if _has(q, _KERNEL_RE)]
    if kernels:
        hosts = [q for q in sources if q not in kernels or _has(q, _LAUNCH_RE)]
        headers = [q for q in sources if q.suffix.lower() in (".h", ".hpp", ".hh") and q not in kernels]
        manifest = root / MANIFEST
        return OperatorProject(
            root,
            "invocation",
            host_files=hosts,
            kernel_files=[*kernels, *headers],
            manifest=manifest if manifest.exists() else None,
        )
    raise ProjectError(
        str(path),
        0,
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


def _atb_layout(root: Path) -> OperatorProject:
    host, kernel, manifest = atb_files(root, _sources_under)
    return OperatorProject(root, "atb", host_files=host, kernel_files=kernel, manifest=manifest)


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
        if (
            not marker.is_dir()
            or marker.name not in ("op_host", "op_kernel")
            or any(r in marker.parents for r in roots)
        ):
            continue
        roots.add(marker.parent)
        found.append(
            _atb_layout(marker.parent.resolve())
            if is_atb_operator(marker.parent)
            else _project_layout(marker.parent.resolve())
        )
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
        raise ProjectError(
            str(path),
            0,
            "contains no AscendC operator (no op_host/ or op_kernel/ folder, no "
            "<<<>>> launch); point at an operator's folder",
        )
    return sorted(found, key=lambda o: str(o.root))
