"""Include resolution as the operator's own repository build has it.

The emulator compiles a mirror of the operator's files (build.py). Two kinds of include reach outside them:

- Relative includes of a sibling operator's files, in either of the two layouts CANN repositories use:
  the source tree's (`../../triu/op_kernel/x.h`, relative to the including file) and the kernel build's, where
  every operator's `op_kernel/` folder is copied under the operator's name, so that `../sort/arch35/x.h` from
  `top_k/op_kernel/` means `sort/op_kernel/arch35/x.h` beside it. `mirror_plan` finds those files (and what they
  include beside themselves, transitively) and mirrors them too, under `.ext/<their absolute path>`, rewriting the
  include lines that would not reach them from the mirror. Their text is part of the mirror's content hash, so
  editing one rebuilds.
- Repository include folders that the repository's CMake puts on the path: the manifest's `[build] include_dirs`,
  and by rule the nearest ancestor (at most `MAX_LEVELS` up, not above the folder holding `.git`) that has
  `common/inc`: that folder (the repository root, as CANN's ops repositories add it) and its `common/inc`. These
  are searched after the emulator's headers and the operator's own folders; build.py records the files a compile
  read from them with their content hashes, and an object whose recorded files changed is rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
from pathlib import Path

from tilewise.device.emulator.tools import write_atomic

MAX_LEVELS = 4  # how far above the operator folder the automatic rule looks for a repository's common/inc
MAX_EXTERNAL = 400  # a bound on the closure of external files, against a runaway include graph
EXT_DIR = ".ext"
_QUOTE_INCLUDE = re.compile(r'^([ \t]*#[ \t]*include[ \t]*")([^"\n]+)(")', re.M)


def repo_include_dirs(root: Path, manifest=None) -> list[Path]:
    """The manifest's include folders, then the automatic rule's (see the module doc), without repeats."""
    from tilewise.analysis.manifest import include_dirs

    dirs: list[Path] = list(include_dirs(manifest)) if manifest is not None else []
    for level, folder in enumerate(Path(root).resolve().parents):
        if level >= MAX_LEVELS:
            break
        if (folder / "common" / "inc").is_dir():
            dirs += [folder / "common" / "inc", folder]
            break
        if (folder / ".git").exists():
            break
    return list(dict.fromkeys(dirs))


def mirror_location(path: str, root: Path) -> Path:
    """Where a file sits in the mirror: the operator's own files at their place relative to its folder, any other
    under `.ext/` at its absolute path."""
    p = Path(path)
    try:
        return p.relative_to(root)
    except ValueError:
        return Path(EXT_DIR) / p.relative_to(p.anchor)


def resolve_include(including: Path, name: str, known: set[str]) -> Path | None:
    """The file `#include "name"` in `including` means in a CANN repository, or None when it is left to the include
    path: beside the including file first (`known` files count as present), else for a `../` include, the kernel
    build's layout (see the module doc)."""
    if name.startswith("/"):
        return None
    cand = Path(posixpath.normpath(str(including.parent / name)))
    if str(cand) in known or cand.is_file():
        return cand
    if not name.startswith("../"):
        return None
    kernel_dir = next((a for a in including.parents if a.name == "op_kernel"), None)
    if kernel_dir is None:
        return None
    op_dir = kernel_dir.parent
    virtual = posixpath.normpath(posixpath.join(op_dir.name, str(including.parent.relative_to(kernel_dir)), name))
    if virtual.startswith("..") or "/" not in virtual:
        return None
    op_name, rest = virtual.split("/", 1)
    for base in (op_dir.parent, op_dir.parent.parent):  # a sibling operator, or one in a sibling category
        for other in [base / op_name, *sorted(base.glob(f"*/{op_name}"))]:
            f = other / "op_kernel" / rest
            if str(f) in known or f.is_file():
                return f
    return None


def mirror_plan(root: Path, texts: dict[str, str]) -> dict[str, str]:
    """`texts` (the operator's files, by absolute path) plus every external file they reach by relative includes,
    with each include line that would not find its file from the mirror rewritten to the mirrored copy's place.
    Include lines keep their line, so compile errors still name the right lines."""
    root = Path(root)
    out = dict(texts)
    todo = list(texts)
    known = set(texts)
    while todo:
        path = todo.pop()
        text = out[path]
        here = mirror_location(path, root).parent

        def fix(m: re.Match, path: str = path, here: Path = here) -> str:
            name = m.group(2)
            target = resolve_include(Path(path), name, known)
            if target is None:
                return m.group(0)
            key = str(target)
            if key not in known:
                if len(known) >= len(texts) + MAX_EXTERNAL:
                    return m.group(0)
                try:
                    out[key] = target.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    return m.group(0)
                known.add(key)
                todo.append(key)
            dest = mirror_location(key, root)
            if Path(posixpath.normpath(str(here / name))) == dest:
                return m.group(0)
            return f"{m.group(1)}{os.path.relpath(dest, here or '.')}{m.group(3)}"

        fixed = _QUOTE_INCLUDE.sub(fix, text) if "#" in text else text
        if fixed != text:
            out[path] = fixed
    return out


# ---- files a compile read from the repository's include folders ---------------------------------------------------
_digests: dict[tuple[str, int, int], str] = {}


def file_digest(path: str) -> str | None:
    """A content hash of the file (memoised by modification time and size), or None when it is gone."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    memo = (path, st.st_mtime_ns, st.st_size)
    if memo not in _digests:
        try:
            _digests[memo] = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:20]
        except OSError:
            return None
    return _digests[memo]


def parse_depfile(text: str) -> list[str]:
    """The prerequisites of a make rule as `g++ -MMD` writes it (continuations, escaped spaces)."""
    body = text.replace("\\\n", " ")
    _, _, deps = body.partition(": ")
    return [d.replace("\\ ", " ").replace("$$", "$") for d in re.split(r"(?<!\\)\s+", deps.strip()) if d]


def record_deps(depfile: Path, record: Path, skip: tuple[Path, ...]) -> None:
    """Write `record`: every file the compile read that is outside `skip` (the emulator's headers and the build
    cache, whose content the object's key already covers), with its content hash."""
    try:
        deps = parse_depfile(depfile.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        deps = []
    prefixes = tuple(str(s) + os.sep for s in skip)
    found = {}
    for d in deps:
        p = os.path.realpath(d)
        if not p.startswith(prefixes):
            found[p] = file_digest(p)
    if found:
        write_atomic(record, json.dumps(found, sort_keys=True))
    else:
        record.unlink(missing_ok=True)


def deps_fresh(record: Path) -> bool:
    """True when every file `record` lists still has the content it had when the object was compiled."""
    try:
        found = json.loads(record.read_text())
    except (OSError, ValueError):
        return True  # nothing recorded: the object read only what its key covers
    return all(file_digest(p) == h for p, h in found.items())
