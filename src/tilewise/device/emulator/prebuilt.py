"""What every operator's build shares, built once per installation: the runtime's out-of-line functions, the
precompiled kernel API header, the runner's object and the precompiled host prelude.

Why: a fresh build cache (a new `TILEWISE_CACHE`, a test's temporary folder, a user's first run) used to compile
the emulator's own headers and runner again before the user's code: most of a small operator's first build. Neither
depends on the operator, so they live here, outside every build cache:

- `<root>/runtime-<key>/runtime.o`: the runtime functions tw/runtime/out_of_line.h names, compiled once with the
  kernel flags; a kernel compiled with TW_RUNTIME_EXTERN only declares them and links this object;
- `<root>/pch-<key>/kernel_operator.h.gch` (with a stub `kernel_operator.h` beside it that forwards to the real
  one): GCC takes the `.gch` when that folder comes first on the include path and the flags match;
- `<root>/runner-<key>/runner.o`: tw/runtime/runner_main.cpp compiled with the runner's flags;
- `<root>/hostpch-<key>/prelude.h.gch` (with a stub `prelude.h` that forwards to tw_host/prelude.h, and
  `shadows.txt`): the host API an op_host source gets from register/op_def_registry.h, with the knobs, compiled
  with the host flags. A host source that qualifies (host_prelude.py) is compiled with `-include <that stub>`, and
  GCC takes the `.gch` beside it. Its `shadows.txt` lists the names the prelude's system headers were found by,
  and those they probe with `__has_include`: a compile whose own `-I` folders hold a file of such a name parses the
  prelude instead (those folders come before the system's, so the plain parse would read that file, and the `.gch`
  did not).

`<root>` is `$TILEWISE_PREBUILT` when set (`off`: nothing is shared), else `prebuilt/` in `$TILEWISE_BUILD_CACHE`
when that names a build cache for many results caches, else `prebuilt/` in the user's cache folder
(`$XDG_CACHE_HOME/tilewise` or `~/.cache/tilewise`): never inside the package (a wheel may be installed read-only)
and not inside `TILEWISE_CACHE`, so every cache of this installation and user finds them. `<key>` hashes everything
that changes the artefact: the emulator's headers (their names and contents), the compiler's resolved path and its
`--version`, the flags (TILEWISE_OPT among them) and the include folder.

Builders of one artefact take turns through a lock file in `<root>/.locks/` (the second finds the first one's work
done). Each artefact is built in a temporary folder (`.tmp-*`, never looked at) that is renamed to its final name
in one step: a killed build leaves only a temporary folder (and drops its lock), and where two processes do build
the same artefact at once (no lock could be had) the first rename wins and the other uses the winner's. An artefact
that cannot be built or written (no space, a read-only cache folder) is simply absent: the build then compiles as it
did before, in its own cache.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path

from tilewise.device.emulator.includes import parse_depfile
from tilewise.device.emulator.tools import run_tool

PCH_HEADER = "kernel_operator.h"
HOST_PRELUDE = "tw_host/prelude.h"  # under the include folder (host_prelude.py says which sources take it)
HOST_PCH_STUB = "prelude.h"
HOST_PCH_SHADOWS = "shadows.txt"
RUNNER_OBJECT = "runner.o"
RUNTIME_OBJECT = "runtime.o"
# The runtime object is kernel_operator.h's out-of-line functions (tw/runtime/out_of_line.h); a kernel compiled with
# RUNTIME_EXTERN calls them there.
RUNTIME_SOURCE = f'#include "{PCH_HEADER}"\n'
RUNTIME_DEFINE = "-DTW_RUNTIME_DEFINE"
RUNTIME_EXTERN = "-DTW_RUNTIME_EXTERN"
_FORMAT = "1"  # bump when the layout of an artefact folder changes
STALE_TMP_S = 6 * 3600.0  # a temporary folder this old belongs to a build that was killed
_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def prebuilt_dir() -> Path | None:
    """The per-installation artefacts' folder (see the module doc), or None under `TILEWISE_PREBUILT=off`: then
    nothing is shared, and every build compiles the runtime, the runner and the headers itself."""
    env = os.environ.get("TILEWISE_PREBUILT")
    if env == "off":
        return None
    if env:
        return Path(env)
    builds = os.environ.get("TILEWISE_BUILD_CACHE")  # a build cache named for many caches (a test session's)
    if builds:
        return Path(builds) / "prebuilt"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tilewise" / "prebuilt"


def headers_digest(folder: Path) -> str:
    """A digest of every file under `folder`, names and contents: any edit to a header is another key."""
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(folder)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


@lru_cache(maxsize=8)
def compiler_identity(cxx: str) -> str:
    """The compiler's resolved path and its `--version` text: a different or upgraded compiler is another key. An
    unusable compiler gives its name only (its build will fail and nothing is kept)."""
    path = shutil.which(cxx) or cxx
    resolved = os.path.realpath(path)
    try:
        version = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        version = ""
    return f"{resolved}\n{version}"


def artefact_key(kind: str, cxx: str, headers_digest: str, flags: list[str], source: str) -> str:
    h = hashlib.sha256()
    for part in (_FORMAT, kind, compiler_identity(cxx), headers_digest, *flags, source):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:24]


@contextlib.contextmanager
def _process_lock(path: Path):
    """Hold an exclusive advisory lock on `path` (made if missing) for the block; the OS drops it when the holder
    dies, so a killed build never blocks the next one. Without fcntl, or when the file cannot be opened, nothing
    is held and the block runs anyway."""
    try:
        import fcntl

        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+b")  # noqa: SIM115 (closed in the finally below, after the block)
    except (ImportError, OSError):
        yield
        return
    try:
        with contextlib.suppress(OSError):
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        yield
    finally:
        handle.close()  # closing drops the lock


class Prebuilt:
    """The artefacts of one compiler, header set and flag set. The methods that return an artefact build it when
    it is missing, and say None / [] when it cannot be built; `ready` only looks."""

    def __init__(
        self,
        include_dir: Path,
        headers_digest: str,
        cxx: str,
        kernel_flags: list[str],
        runner_flags: list[str],
        runner_source: str,
        timeout_s: float,
        root: Path | None = None,
        host_flags: list[str] | None = None,
    ):
        """`host_flags` (the host compile's flags and its first include folders, ours) makes the host prelude one of
        the artefacts; without them (a stand-in include folder with no host headers) there is none."""
        self.include_dir = include_dir
        self.headers_digest = headers_digest
        self.cxx = cxx
        self.kernel_flags = list(kernel_flags)
        self.runner_flags = list(runner_flags)
        self.runner_source = runner_source
        self.timeout_s = timeout_s
        # the folder, or nowhere (TILEWISE_PREBUILT=off): then every artefact is absent and none is built
        self.enabled = root is not None or prebuilt_dir() is not None
        self.root = root or prebuilt_dir() or Path(os.devnull)
        self.runtime_folder = self._folder("runtime", [*kernel_flags, RUNTIME_DEFINE], RUNTIME_SOURCE)
        self.runner_folder = self._folder("runner", runner_flags, runner_source)
        self.host_flags = None if host_flags is None else list(host_flags)
        self.host_pch_folder = self._folder("hostpch", self.host_flags or [], HOST_PRELUDE)
        self._shadows: dict[Path, dict[str, list[str]]] = {}

    def _folder(self, kind: str, flags: list[str], source: str) -> Path:
        key = artefact_key(kind, self.cxx, self.headers_digest, [*flags, f"-I{self.include_dir}"], source)
        return self.root / f"{kind}-{key}"

    # ---- the kernel side: the runtime object, and the API's precompiled header ----------------------------------
    def kernel_defines(self) -> list[str]:
        """The macro a kernel compiles with to call the runtime object (tw/runtime/out_of_line.h), after building
        that object if it is missing; [] when it cannot be built (the kernel then compiles the runtime itself)."""
        return [RUNTIME_EXTERN] if self.runtime_object() is not None else []

    def runtime_object(self) -> Path | None:
        obj = self.runtime_folder / RUNTIME_OBJECT
        if obj.is_file() or self._object(
            self.runtime_folder, [*self.kernel_flags, RUNTIME_DEFINE], RUNTIME_SOURCE, RUNTIME_OBJECT
        ):
            return obj
        return None

    def pch_folder(self, kernel_flags: list[str]) -> Path:
        return self._folder("pch", kernel_flags, "")

    def pch_flags(self, kernel_flags: list[str]) -> list[str]:
        """The include flag that makes a kernel compiled with `kernel_flags` take the precompiled header, built now
        if it is missing; [] when it cannot be built (the kernel then parses the headers itself)."""
        folder = self.pch_folder(kernel_flags)
        if not (folder / f"{PCH_HEADER}.gch").is_file() and not self._build_pch(folder, kernel_flags):
            return []
        return [f"-I{folder}"]

    def _build_pch(self, folder: Path, kernel_flags: list[str]) -> bool:
        def build(tmp: Path) -> bool:
            # The stub forwards every later include of the same name to the real header; GCC reads the .gch instead
            # of the stub when it can use it, and the stub (so the plain headers) when it cannot.
            stub = tmp / PCH_HEADER
            stub.write_text(f'#pragma once\n#include "{self.include_dir / PCH_HEADER}"\n', encoding="utf-8")
            out = tmp / f"{PCH_HEADER}.gch"
            argv = [self.cxx, *kernel_flags, f"-I{self.include_dir}", "-x", "c++-header", str(stub)]
            return self._tool([*argv, "-o", str(out)])

        return self._publish(folder, build)

    def reject_pch(self, kernel_flags: list[str]) -> None:
        """Forget a precompiled header the compiler refused (a truncated or foreign file): the next build makes it
        again. Renamed away first, so that no compile starting now picks up a half-deleted folder."""
        self._discard(self.pch_folder(kernel_flags))

    # ---- the host side: the prelude's precompiled header -------------------------------------------------------
    def host_pch_include(self) -> str:
        """The flag that pre-includes the host prelude through its precompiled header (whether or not it is there)."""
        return f"-include{self.host_pch_folder / HOST_PCH_STUB}"

    def host_pch_built(self) -> bool:
        """Whether the precompiled prelude is there (nothing is built)."""
        return (self.host_pch_folder / f"{HOST_PCH_STUB}.gch").is_file()

    def host_pch_flags(self, search_dirs: list[Path]) -> list[str]:
        """The flag that makes a host compile take the precompiled prelude, built now if it is missing; [] when it
        cannot be built, when there is no host prelude, or when one of `search_dirs` (the compile's `-I` folders
        after ours) holds a file of a name a system header of the prelude was found by (see the module doc): then
        the compile pre-includes the prelude itself, parsed."""
        if self.host_flags is None or not (self.host_pch_built() or self._build_host_pch()):
            return []
        shadows = self._host_shadows()
        if shadows is None or _shadowed(search_dirs, shadows):
            return []
        return [self.host_pch_include()]

    def _build_host_pch(self) -> bool:
        host_flags = self.host_flags or []

        def build(tmp: Path) -> bool:
            # As for the kernel's: GCC reads the .gch instead of the stub when it can use it, else the stub, which
            # forwards to the real prelude. `-v` names the system's include folders and `-MD` what the prelude
            # read, from which its shadows are drawn.
            stub = tmp / HOST_PCH_STUB
            stub.write_text(f'#pragma once\n#include "{self.include_dir / HOST_PRELUDE}"\n', encoding="utf-8")
            deps = tmp / "prelude.d"
            argv = [self.cxx, *host_flags, "-v", "-MD", "-MF", str(deps), "-x", "c++-header", str(stub)]
            proc = run_tool([*argv, "-o", str(tmp / f"{HOST_PCH_STUB}.gch")], self.timeout_s)
            if proc is None or proc.returncode != 0:
                return False
            try:
                read = parse_depfile(deps.read_text(encoding="utf-8", errors="replace"))
                deps.unlink()
            except OSError:
                return False
            shadows = shadow_names(read, _search_roots(proc.stderr), self.include_dir, stub)
            (tmp / HOST_PCH_SHADOWS).write_text("".join(f"{n}\n" for n in shadows), encoding="utf-8")
            return True

        return self._publish(self.host_pch_folder, build)

    def _host_shadows(self) -> dict[str, list[str]] | None:
        """The published prelude's shadows by their first part (read once per folder), or None when they cannot be
        read."""
        folder = self.host_pch_folder
        if folder not in self._shadows:
            try:
                names = (folder / HOST_PCH_SHADOWS).read_text(encoding="utf-8").split()
            except OSError:
                return None  # rejected or removed meanwhile: the compile parses the prelude itself
            by_first: dict[str, list[str]] = {}
            for n in names:
                by_first.setdefault(n.split("/", 1)[0], []).append(n)
            self._shadows[folder] = by_first
        return self._shadows[folder]

    def reject_host_pch(self) -> None:
        """Forget a precompiled prelude the compiler refused, as `reject_pch` does the kernel's."""
        self._shadows.pop(self.host_pch_folder, None)
        self._discard(self.host_pch_folder)

    # ---- the runner ---------------------------------------------------------------------------------------------
    def runner_object(self) -> Path | None:
        """The runner's object, compiled now if it is missing; None when it cannot be built here."""
        obj = self.runner_folder / RUNNER_OBJECT
        if obj.is_file() or self._object(self.runner_folder, self.runner_flags, self.runner_source, RUNNER_OBJECT):
            return obj
        return None

    # ---- all of them --------------------------------------------------------------------------------------------
    def ready(self) -> bool:
        """Whether every artefact a project operator's build takes is there (nothing is built)."""
        kernel = [*self.kernel_flags, RUNTIME_EXTERN]
        return all(
            f.is_file()
            for f in (
                self.runtime_folder / RUNTIME_OBJECT,
                self.runner_folder / RUNNER_OBJECT,
                self.pch_folder(kernel) / f"{PCH_HEADER}.gch",
            )
        ) and (self.host_flags is None or self.host_pch_built())

    def build_all(self) -> bool:
        """Build whichever artefact is missing, the runner and the host prelude beside the kernel's two; True when
        all are there afterwards."""
        with ThreadPoolExecutor(max_workers=2) as pool:
            runner = pool.submit(self.runner_object)
            host = pool.submit(lambda: self.host_flags is None or self.host_pch_flags([]) != [])
            defines = self.kernel_defines()
            pch = self.pch_flags([*self.kernel_flags, *defines])
            return bool(defines) and bool(pch) and runner.result() is not None and host.result()

    def _object(self, folder: Path, flags: list[str], source: str, name: str) -> bool:
        def build(tmp: Path) -> bool:
            src = tmp / "unit.cpp"
            src.write_text(source, encoding="utf-8")
            argv = [self.cxx, *flags, f"-I{self.include_dir}", "-c", str(src)]
            return self._tool([*argv, "-o", str(tmp / name)])

        return self._publish(folder, build)

    def _tool(self, argv: list[str]) -> bool:
        proc = run_tool(argv, self.timeout_s)
        return proc is not None and proc.returncode == 0

    def _publish(self, final: Path, build) -> bool:
        """Run `build(tmp)` in a fresh temporary folder and rename it to `final`. True when `final` exists
        afterwards, whoever made it. Threads of one process (the editor's background build and its first run)
        wait for each other's build of the same artefact instead of making it twice, and so do processes (a test
        session's workers, a CLI run beside the editor), through a lock file beside the artefact: a CPU-bound
        compile of 10 s or more is not worth making twice at once on a 2-core machine. The rename stays the
        guarantee: where the lock cannot be had (no fcntl, a read-only or odd file system) the processes race to
        it as before."""
        if not self.enabled:
            return False
        with _LOCKS_GUARD:
            lock = _LOCKS.setdefault(str(final), threading.Lock())
        with lock:
            if final.is_dir():
                return True
            with _process_lock(self.root / ".locks" / final.name):
                return final.is_dir() or self._build_into(final, build)

    def _build_into(self, final: Path, build) -> bool:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            self._sweep()
            tmp = Path(tempfile.mkdtemp(dir=self.root, prefix=f".tmp-{final.name}-"))
        except OSError:
            return False
        try:
            if build(tmp):
                with contextlib.suppress(OSError):  # another process's rename came first: theirs is as good
                    tmp.rename(final)  # atomic
        finally:
            shutil.rmtree(tmp, ignore_errors=True)  # gone after a successful rename; a failure's leftovers
        return final.is_dir()

    def _sweep(self) -> None:
        """Remove what killed builds left (temporary folders older than any build takes)."""
        cutoff = time.time() - STALE_TMP_S
        for old in self.root.glob(".tmp-*"):
            with contextlib.suppress(OSError):
                if old.stat().st_mtime < cutoff:
                    shutil.rmtree(old, ignore_errors=True)

    def _discard(self, folder: Path) -> None:
        try:
            trash = Path(tempfile.mkdtemp(dir=self.root, prefix=f".tmp-rejected-{folder.name}-"))
            folder.rename(trash / folder.name)
        except OSError:
            return  # already gone (another process rejected it too)
        shutil.rmtree(trash, ignore_errors=True)


def _search_roots(verbose: str) -> list[str]:
    """The system's include folders GCC's `-v` lists (`#include <...> search starts here:` to the list's end)."""
    roots: list[str] = []
    listing = False
    for line in verbose.splitlines():
        if line.startswith("#include <...> search starts here"):
            listing = True
        elif line.startswith("End of search list"):
            break
        elif listing and line.startswith(" "):
            roots.append(os.path.normpath(line.strip()))
    return roots


_HAS_INCLUDE = re.compile(r"__has_include(?:_next)?\s*\(\s*[<\"]([^>\"]+)[>\"]")


def shadow_names(deps: list[str], roots: list[str], include_dir: Path, stub: Path) -> list[str]:
    """The names under which the prelude's system headers (`deps` outside `include_dir`) can be found: their paths
    relative to each system folder that holds them, or, when `roots` is empty (a compiler whose `-v` says other
    things), every tail of their paths; and the names they probe with `__has_include` (one the system lacks would
    be found in a user's folder). Ours are left out: our folders come first in every host compile."""
    ours = os.path.realpath(include_dir) + os.sep
    names: set[str] = set()
    for dep in deps:
        path = os.path.normpath(dep)
        if os.path.realpath(path).startswith(ours) or os.path.realpath(path) == os.path.realpath(stub):
            continue
        under = [path[len(r) + 1 :] for r in roots if path.startswith(r + os.sep)]
        if not roots:
            parts = Path(path).parts
            under = [str(Path(*parts[i:])) for i in range(1, len(parts))]
        names.update(under)
        with contextlib.suppress(OSError):
            names.update(_HAS_INCLUDE.findall(Path(path).read_text(encoding="utf-8", errors="replace")))
    return sorted(names)


def _shadowed(search_dirs: list[Path], by_first: dict[str, list[str]]) -> bool:
    """Whether a file of one of the names in `by_first` (keyed by their first part) is in one of `search_dirs`: a
    listing of each folder first, as most names' first part is in none."""
    for folder in search_dirs:
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        for first in by_first.keys() & entries:
            if any(os.path.exists(os.path.join(folder, n)) for n in by_first[first]):
                return True
    return False
