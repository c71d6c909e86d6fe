"""Compile an operator for the emulator, once per content hash.

Four kinds of object, each cached under the hash of exactly what it depends on:
- the kernel (op_kernel sources, the tiling header, dtype bindings, the emulator headers);
- each host source (op_host sources and headers): a change to tiling values recompiles only these; one that
  includes the host API pre-includes it as a prelude that is precompiled once per installation (host_prelude.py);
- the runner main (the emulator headers only);
- a tiny generated shim that calls the kernel entry with the right number of GM pointers.
Sources are mirrored into the cache with `#line` markers so compile errors name the user's file and line.
Objects are written under a temporary name and renamed, so a killed build never leaves a corrupt cache entry.
Every compile and link runs bounded like user code (tools.run_tool): one that never finishes is killed, with every
process it started, at the builder's timeout (TILEWISE_BUILD_TIMEOUT), and fails the build with one line.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tilewise.analysis.model import KernelEntry, Knob
from tilewise.analysis.operator import Operator
from tilewise.analysis.source import SourceFile
from tilewise.device.cache_dir import default_cache_dir
from tilewise.device.emulator.foreign_arch import name_foreign_arch
from tilewise.device.emulator.host_prelude import KNOBS, PRELUDE, fallback, takes_prelude
from tilewise.device.emulator.includes import deps_fresh, mirror_location, mirror_plan, record_deps, repo_include_dirs
from tilewise.device.emulator.kernel_entry import entry_call, entry_template_params
from tilewise.device.emulator.launch_header import header_name, launch_definition, launch_header, launchable
from tilewise.device.emulator.prebuilt import HOST_PCH_STUB, RUNTIME_EXTERN, Prebuilt, headers_digest
from tilewise.device.emulator.tools import build_timeout, killed_tool, link_error, run_tool, tool_timeout, write_atomic
from tilewise.device.emulator.ubuf_arrays import rewrite_ubuf_arrays, rewrite_ubuf_casts
from tilewise.device.protocol import RunError

INCLUDE_DIR = Path(__file__).resolve().parent / "include"
CXX = os.environ.get("TILEWISE_CXX", "g++")
# TILEWISE_OPT trades emulation speed for compile speed: the tests build many small kernels at -O0.
# Kernels see the macros the device compiler defines for a 910B (Atlas A2) vector core: `#if __CCE_AICORE__ == 220`
# (or `__NPU_ARCH__ == 2201`) picks the A2 code paths (DataCopyPad, ...) in real operators, as it does on the chips
# tilewise models.
KERNEL_FLAGS = [
    "-std=c++17",
    os.environ.get("TILEWISE_OPT", "-O2"),
    "-pthread",
    "-w",
    "-fno-strict-aliasing",
    "-D__CCE_AICORE__=220",
    "-D__DAV_C220_VEC__",
    "-D__NPU_ARCH__=2201",
]
HOST_FLAGS = ["-std=c++17", "-O0", "-pthread", "-w"]
# Our include folders, first on every host compile's path (and the only ones the host prelude is precompiled with).
HOST_BASE_INCLUDES = [f"-I{INCLUDE_DIR}", f"-I{INCLUDE_DIR / 'op_common'}"]
# A host source's forced include: the bare knobs, or the prelude parsed (host_prelude.py's rule says which).
_KNOBS_INCLUDE = f"-include{INCLUDE_DIR / KNOBS}"
_PRELUDE_INCLUDE = f"-include{INCLUDE_DIR / PRELUDE}"
RUNNER_FLAGS = ["-std=c++17", "-O1", "-pthread", "-w"]  # I/O and thread setup only: not worth -O2's compile time
RUNNER_SOURCE = f'#include "{INCLUDE_DIR / "tw" / "runtime" / "runner_main.cpp"}"\n'
# What a compiler says when it cannot read a precompiled header it found (a truncated or foreign .gch).
_PCH_REFUSED = re.compile(r"precompiled header|\.gch\b")
_ERROR_RE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<col>\d+):)? (?:fatal )?error: (?P<msg>.*)$", re.M)


def build_cache_dir(cache_dir: Path | None = None) -> Path:
    """Where the emulator's builds go: `$TILEWISE_BUILD_CACHE` when set, else `emulator/` in the cache folder
    (`cache_dir`, or `default_cache_dir()`). Every object is named by the hash of what it was compiled from and
    written under a temporary name then renamed, so one build cache may serve many results caches and many
    processes at once: a test session's workers share one, each test keeping a results cache of its own."""
    env = os.environ.get("TILEWISE_BUILD_CACHE")
    if env:
        return Path(env)
    return (cache_dir or default_cache_dir()) / "emulator"


@lru_cache(maxsize=1)
def headers_hash() -> str:
    return headers_digest(INCLUDE_DIR)


def _hash(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode() if isinstance(part, str) else part)
        h.update(b"\0")
    return h.hexdigest()[:20]


def prebuild() -> bool:
    """Build what every operator's build shares, once per installation (prebuilt.py), for the current compiler
    and TILEWISE_OPT; True when all of it is there afterwards. The editor calls this in the background at start-up
    (lsp/features/prebuild.py), so that its first run compiles only the operator's own code."""
    return Builder().prebuilt.build_all()


class BuildError(Exception):
    def __init__(self, error: RunError, log: str = ""):
        super().__init__(error.message)
        self.error = error
        self.log = log


@dataclass
class Build:
    exe: Path
    compile_s: float
    cached: bool


class Builder:
    def __init__(self, cache_dir: Path | None = None, jobs: int = 2, timeout_s: float | None = None):
        self.cache = build_cache_dir(cache_dir)
        self.jobs = jobs
        self.timeout_s = timeout_s or build_timeout()  # per compile or link (tools.run_tool)
        # the kernel API's precompiled header, the runner's object and the host prelude, shared by every cache
        # (prebuilt.py)
        self.prebuilt = Prebuilt(
            INCLUDE_DIR,
            headers_hash(),
            CXX,
            KERNEL_FLAGS,
            RUNNER_FLAGS,
            RUNNER_SOURCE,
            self.timeout_s,
            host_flags=[*HOST_FLAGS, *HOST_BASE_INCLUDES],
        )

    # ---- public ---------------------------------------------------------------------------------------------
    def build(
        self,
        op: Operator,
        type_macros: dict[str, str],
        texts: dict[str, str] | None = None,
        runtime_knobs: list[Knob] | None = None,
    ) -> Build:
        """Build (or fetch) the runner executable for `op` with DTYPE_* macros bound to `type_macros`.
        `texts` overrides file contents (a tuner's knob values), keyed by absolute path. `runtime_knobs` are host
        constants compiled as run-time values (see tw_host/knobs.h): one host build then serves every value."""
        start = time.perf_counter()
        model = op.model
        texts = {**{p: sf.text for p, sf in op.sources.items()}, **(texts or {})}
        texts = runtime_knob_texts(texts, runtime_knobs or [])
        if model.layout == "atb":  # an mki (ATB) operator: its own host side, the same runner (device/emulator/atb.py)
            from tilewise.device.emulator.atb import build_atb

            return build_atb(self, op, texts, type_macros, start)
        if model.layout != "project":
            return self._build_invocation(op, texts, type_macros, start)
        entry = next((e for e in model.kernel.entries if e.name == model.kernel.entry), None)
        # A project kernel may carry its own `<<<>>>` launcher (an `<op>_do` wrapper the device compiler accepts):
        # rewritten as in a kernel-invocation program, so that it compiles.
        launching = {
            p
            for p in model.kernel_files
            if "<<<" in texts.get(p, "") and p in op.sources and texts[p] == op.sources[p].text
        }
        texts.update({p: rewrite_launches(op.sources[p], texts[p]) for p in launching})
        # after the launch rewrite: it needs the source
        texts = {p: rewrite_ubuf_arrays(blank_cce_attributes(t)) for p, t in texts.items()}
        # kernel sources only: tw::UbAddress is a kernel-side header's
        texts.update({p: rewrite_ubuf_casts(texts[p]) for p in model.kernel_files if p in texts})
        if entry is None or not model.kernel.file:
            raise BuildError(
                RunError(
                    kind="no_kernel",
                    message=(
                        'no kernel entry found: declare extern "C" __global__ __aicore__ void <op>(GM_ADDR ...) in '
                        "op_kernel/"
                    ),
                    file=str(Path(model.root) / "op_kernel"),
                )
            )
        root = Path(model.root)
        # op_host/op_api/ holds the operator's aclnn layer (the aclnnXxxGetWorkspaceSize / aclnnXxx pair over
        # opdev's executor), which the ops repositories' CMake builds into the separate aclnn library: it is neither
        # OpDef, InferShape nor tiling, so the emulator's host build leaves it out as that build does.
        host_cpp = [
            p
            for p in model.host_files
            if Path(p).suffix in (".cpp", ".cc", ".cxx") and not _in_aclnn_layer(Path(p), root)
        ]
        # Two mirrors, each holding one side's sources plus every header: a change to host tiling values leaves the
        # kernel's mirror (and so its object) untouched, and a kernel change leaves the host objects alone.
        kernel_cpp = {p for p in model.kernel_files if Path(p).suffix in (".cpp", ".cc", ".cxx", ".asc")}
        mirror = self._mirror(op, {p: t for p, t in texts.items() if p not in host_cpp})
        host_mirror = self._mirror(op, {p: t for p, t in texts.items() if p not in kernel_cpp})
        if not host_cpp:
            raise BuildError(
                RunError(
                    kind="no_host",
                    message=("no host source in op_host/: add op_host/<op>.cpp with the OpDef and the tiling function"),
                    file=str(root / "op_host"),
                )
            )
        # The device build generates the kernel's view of every BEGIN_TILING_DATA_DEF struct, wherever its header
        # lives (op_host/, or op_kernel/ included by the host as "../op_kernel/x_tiling.h").
        tiling_headers = [
            p
            for p in dict.fromkeys([*model.host_files, *model.kernel_files])
            if "BEGIN_TILING_DATA_DEF" in texts.get(p, "") and Path(p).suffix in (".h", ".hpp")
        ]
        # A kernel that declares its own struct of a host tiling class's name (GET_TILING_DATA_WITH_STRUCT) uses
        # that one; the host header would only make the name ambiguous.
        own = kernel_structs(texts.get(p, "") for p in model.kernel_files)
        tiling_headers = [p for p in tiling_headers if not set(_TILING_DEF.findall(texts[p])) <= own]
        repo_dirs = repo_include_dirs(root, op.manifest)
        includes = self._include_flags(root, mirror, repo_dirs)
        host_includes = self._include_flags(root, host_mirror, repo_dirs)

        jobs: list[tuple] = []  # (kind, key, source, flags, includes[, the user file it compiles])
        # The entry's byte offset is the analysed source's, before any knob or launch rewrite.
        entry_source = op.sources[entry.file].text if entry.file in op.sources else texts.get(entry.file, "")
        kernel_src = self._kernel_unit(
            model, mirror, root, tiling_headers, type_macros, entry, texts, entry_source, bool(launching)
        )
        host_dirs = [Path(i[2:]) for i in host_includes]
        prelude = {p: takes_prelude(host_mirror / Path(p).relative_to(root), host_dirs, INCLUDE_DIR) for p in host_cpp}
        user_dirs = host_dirs[len(HOST_BASE_INCLUDES) :]
        wanted = any(prelude.values())
        with ThreadPoolExecutor(max_workers=1) as pool:
            # The host prelude's precompiled header, when it must be built, is built beside the kernel's artefacts;
            # when it is there, only looked at (every build, a cached one too, passes here).
            missing = wanted and not self.prebuilt.host_pch_built()
            host_pch = pool.submit(self.prebuilt.host_pch_flags, user_dirs) if missing else None
            kflags, pch = self.kernel_flags()
            if host_pch is not None:
                found = host_pch.result()
            else:
                found = self.prebuilt.host_pch_flags(user_dirs) if wanted else []
        prelude_include = (found or [_PRELUDE_INCLUDE])[0]
        kernel_key = _hash(
            headers_hash(),
            kernel_src,
            *sorted(f"{p}\n{texts[p]}" for p in model.kernel_files),
            *(texts[p] for p in tiling_headers),
            *kflags,
            *includes,
        )
        jobs.append(("kernel", kernel_key, kernel_src, kflags, [*pch, *includes], model.kernel.file))
        host_headers = sorted(f"{p}\n{texts[p]}" for p in model.host_files if p not in host_cpp)
        for p in host_cpp:
            src = f'#include "{host_mirror / Path(p).relative_to(root)}"\n'
            # Whether the source takes the prelude is part of its key (the unit differs); whether the prelude was
            # precompiled is not (the same unit either way).
            forced = PRELUDE if prelude[p] else KNOBS
            key = _hash(headers_hash(), src, texts[p], *host_headers, *HOST_FLAGS, *host_includes, forced)
            include = prelude_include if prelude[p] else _KNOBS_INCLUDE
            jobs.append(("host", key, src, HOST_FLAGS, [include, *host_includes], p))
        shim = self._shim(model)
        jobs.append(("shim", _hash(shim), shim, HOST_FLAGS, []))
        runner_inc = [f"-I{INCLUDE_DIR}"]
        runner_key = _hash(headers_hash(), RUNNER_SOURCE, *RUNNER_FLAGS)
        jobs.append(("runner", runner_key, RUNNER_SOURCE, RUNNER_FLAGS, runner_inc))

        return self._assemble(f"{model.operator}-{_hash(*(j[1] for j in jobs))}", jobs, start)

    def _build_invocation(
        self, op: Operator, texts: dict[str, str], type_macros: dict[str, str], start: float
    ) -> Build:
        """A kernel-invocation operator is its own program: compile every source with its launches rewritten."""
        model = op.model
        root = Path(model.root)
        # An edited text (a rewind, a fix under test) is parsed again: its launches sit at other offsets.
        texts = {
            p: rewrite_launches(op.sources[p] if t == op.sources[p].text else SourceFile(p, t), t)
            if p in op.sources
            else t
            for p, t in texts.items()
        }
        # `[aicore]` blanked, `__ubuf__` arrays into the emulated UB
        texts = {p: rewrite_ubuf_arrays(blank_cce_attributes(t)) for p, t in texts.items()}
        # kernel sources only: tw::UbAddress is a kernel-side header's
        texts.update({p: rewrite_ubuf_casts(texts[p]) for p in model.kernel_files if p in texts})
        mirror = self._mirror(op, texts)
        includes = self._include_flags(root, mirror, repo_include_dirs(root, op.manifest)) + [f"-I{mirror}"]
        launched = self._launch_headers(op, texts)
        if launched:  # last: a header of the program's own by that name wins
            includes.append(f"-I{launched[0]}")
        prelude = [f'#include "{INCLUDE_DIR / "tw" / "runtime" / "invocation.h"}"']
        prelude += [f"#define {k} {v}" for k, v in sorted(type_macros.items())]
        jobs: list[tuple] = []
        for p in sorted({*model.host_files, *model.kernel_files}):
            if Path(p).suffix not in (".cpp", ".cc", ".cxx", ".asc"):
                continue
            defined = [launch_definition(e) for e in (launched[1] if launched else []) if e.file == p]
            src = "\n".join([*prelude, f'#include "{mirror / Path(p).relative_to(root)}"', *defined]) + "\n"
            headers = sorted(f"{q}\n{texts[q]}" for q in texts if Path(q).suffix in (".h", ".hpp"))
            jobs.append(
                (
                    "inv",
                    _hash(headers_hash(), src, texts[p], *headers, *KERNEL_FLAGS, *includes),
                    src,
                    KERNEL_FLAGS,
                    includes,
                    p,
                )
            )
        if not jobs:
            raise BuildError(RunError(kind="no_kernel", message="no .cpp source to build", file=str(root)))
        return self._assemble(f"{model.operator}-inv-{_hash(*(j[1] for j in jobs))}", jobs, start)

    def _launch_headers(self, op: Operator, texts: dict[str, str]) -> tuple[Path, list[KernelEntry]] | None:
        """For a program that launches with ACLRT_LAUNCH_KERNEL / aclrtlaunch_<kernel>: the folder of the
        aclrtlaunch_<kernel>.h headers CANN's build would generate (device/emulator/launch_header.py), and the
        entries they declare; None for a program that uses none."""
        if not any("aclrtlaunch_" in t or "ACLRT_LAUNCH_KERNEL" in t for t in texts.values()):
            return None
        entries = op.model.kernel.entries
        templated = {
            e.name
            for e in entries
            if e.file in op.sources and entry_template_params(op.sources[e.file].text, e.loc.start) is not None
        }
        entries = launchable(entries, templated)
        headers = {header_name(e): launch_header(e) for e in entries}
        folder = self.cache / "gen" / _hash(*sorted(f"{n}\n{t}" for n, t in headers.items()))
        if not (folder / ".complete").exists():
            # written whole under a temporary name, then renamed: a process compiling against the folder never
            # reads a header another process is still writing (the same move as the mirrors')
            tmp = Path(tempfile.mkdtemp(dir=self._dir("gen"), prefix=".tmp-"))
            for name, text in headers.items():
                (tmp / name).write_text(text, encoding="utf-8")
            (tmp / ".complete").write_text("")
            try:
                tmp.rename(folder)
            except OSError:  # another process finished the same folder first
                shutil.rmtree(tmp, ignore_errors=True)
        return folder, entries

    def _assemble(self, name: str, jobs: list[tuple], start: float) -> Build:
        """The cached executable named by its jobs' keys, or compile the jobs (in parallel) and link them."""
        exe = self.cache / "bin" / name
        # an object that read repository headers (include folders outside the cache) is stale once they change
        if exe.exists() and all(deps_fresh(self._obj(j[0], j[1]).with_suffix(".deps")) for j in jobs):
            return Build(exe, time.perf_counter() - start, True)
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            objects = list(pool.map(lambda j: self._compile(*j), jobs))
        if any(RUNTIME_EXTERN in j[3] for j in jobs):  # a kernel that calls the runtime object (kernel_flags)
            runtime = self.prebuilt.runtime_object()
            if runtime is None:
                where = self.prebuilt.runtime_folder
                raise BuildError(RunError(kind="build_error", message=f"the runtime object in {where} is gone"))
            objects.append(runtime)
        self._link(objects, exe)
        return Build(exe, time.perf_counter() - start, False)

    # ---- steps ----------------------------------------------------------------------------------------------
    def _mirror(self, op: Operator, texts: dict[str, str]) -> Path:
        root = Path(op.model.root)
        # with the files outside the operator that its relative includes reach: their text is part of the key
        texts = mirror_plan(root, texts)
        key = _hash(*sorted(f"{p}\n{t}" for p, t in texts.items()))
        mirror = self.cache / "src" / key
        if (mirror / ".complete").exists():
            return mirror
        tmp = Path(tempfile.mkdtemp(dir=self._dir("src"), prefix=".tmp-"))
        for path, text in texts.items():
            dest = tmp / mirror_location(path, root)
            dest.parent.mkdir(parents=True, exist_ok=True)
            escaped = path.replace("\\", "\\\\").replace('"', '\\"')
            dest.write_text(f'#line 1 "{escaped}"\n{text}', encoding="utf-8")
        (tmp / ".complete").write_text("")
        try:
            tmp.rename(mirror)
        except OSError:  # another process finished the same mirror first
            shutil.rmtree(tmp, ignore_errors=True)
        return mirror

    @staticmethod
    def _include_flags(root: Path, mirror: Path, repo_dirs: list[Path] | tuple = ()) -> list[str]:
        # the emulator's headers, and their op_common/ as CANN's opbase package puts it on the path (op_host/...)
        flags = list(HOST_BASE_INCLUDES)
        for sub in ("op_host", "op_kernel"):
            if (mirror / sub).is_dir():
                flags.append(f"-I{mirror / sub}")
                flags.extend(f"-I{d}" for d in sorted((mirror / sub).rglob("*")) if d.is_dir())
        return flags + [f"-I{d}" for d in repo_dirs]

    @staticmethod
    def _kernel_unit(
        model,
        mirror: Path,
        root: Path,
        tiling_headers: list[str],
        type_macros: dict[str, str],
        entry,
        texts: dict[str, str],
        entry_source: str,
        launches: bool = False,
    ) -> str:
        lines = ['#include "kernel_operator.h"', "namespace optiling {}"]
        if launches:  # what the rewritten `<<<>>>` launcher and its host calls need
            lines += [f'#include "{INCLUDE_DIR / "tw" / "runtime" / "invocation.h"}"', '#include "acl/acl.h"']
        lines += [f'#include "{mirror / Path(h).relative_to(root)}"' for h in tiling_headers]
        # Only the tiling structs become visible unqualified, as in the generated header the device build gives
        # kernels: the host header's other names (constants, helpers) would collide with the kernel's own.
        lines += [
            f"using optiling::{name};"
            for h in tiling_headers
            if "optiling" in texts.get(h, "")
            for name in dict.fromkeys(_TILING_DEF.findall(texts.get(h, "")))
        ]
        if model.tiling.struct:
            lines.append(f"#define TW_TILING_STRUCT {model.tiling.struct}")
        for name, cpp in sorted(type_macros.items()):
            lines.append(f"#define {name} {cpp}")
        # The entry is renamed for the emulator: kernels are often named after C library functions (fmax, atanh,
        # div) that the emulator's own standard headers declare, which the device compiler never sees.
        renamed = f"tw_kernel_{entry.name}"
        lines.append(f"#define {entry.name} {renamed}")
        lines.append(f'#include "{mirror / Path(model.kernel.file).relative_to(root)}"')
        lines.append(f"#undef {entry.name}")
        lines += entry_call(
            renamed,
            entry_template_params(entry_source, entry.loc.start),
            any("ASCENDC_TPL_SEL" in texts.get(p, "") for p in model.kernel_files),
            entry.file,
            entry.loc.line,
        )
        return "\n".join(lines) + "\n"

    @staticmethod
    def _shim(model) -> str:
        return f'const char* tw_op_name = "{model.operator}";\n'

    def kernel_flags(self) -> tuple[list[str], list[str]]:
        """A project kernel's compile flags and the include flag of the precompiled kernel_operator.h, both with
        what is built once per installation (prebuilt.py): the runtime object the kernel then calls instead of
        compiling the runtime again (TW_RUNTIME_EXTERN, linked in by `_assemble`), and the header's parse. Each is
        left out when it cannot be built: the plain build, only slower."""
        flags = [*KERNEL_FLAGS, *self.prebuilt.kernel_defines()]
        return flags, self.prebuilt.pch_flags(flags)

    def _dir(self, name: str) -> Path:
        d = self.cache / name
        d.mkdir(parents=True, exist_ok=True)
        return d

    def _compile(
        self, kind: str, key: str, source: str, flags: list[str], includes: list[str], origin: str | None = None
    ) -> Path:
        """The object of one job, compiled unless cached; `origin` is the user's file it compiles (a timeout names
        it; else the generated unit)."""
        obj = self._obj(kind, key)
        if obj.exists() and deps_fresh(obj.with_suffix(".deps")):
            return obj
        if kind == "runner":  # the same object for every operator: built once per installation when it can be
            shared = self.prebuilt.runner_object()
            if shared is not None:
                return shared
        tmp = obj.with_suffix(f".{os.getpid()}-{threading.get_ident()}.tmp.o")  # unique per concurrent build
        src = write_atomic(self._dir("obj") / f"{kind}-{key}.cpp", source)  # another process may be compiling it
        dep = tmp.with_suffix(".d")
        proc = run_tool(
            [CXX, *flags, *includes, "-MMD", "-MF", str(dep), "-c", str(src), "-o", str(tmp)], self.timeout_s
        )
        if proc is None or proc.returncode != 0:  # whatever it wrote is under the temporary names: gone
            tmp.unlink(missing_ok=True)
            dep.unlink(missing_ok=True)
            if proc is None:
                raise BuildError(tool_timeout(kind, self.timeout_s, origin or str(src)))
            pch = f"-I{self.prebuilt.pch_folder(flags)}"
            if pch in includes and proc.returncode > 0 and _PCH_REFUSED.search(proc.stderr):
                # the compiler would not read the shared precompiled header: correct first, so this compile goes
                # on without it, and the header is made again by the next build that asks for it
                self.prebuilt.reject_pch(flags)
                return self._compile(kind, key, source, flags, [i for i in includes if i != pch], origin)
            retry = self._host_retry(includes, proc.stderr) if proc.returncode > 0 else None
            if retry is not None:
                return self._compile(kind, key, source, flags, retry, origin)
            e = killed_tool(proc.returncode, kind) or name_foreign_arch(compile_error(proc.stderr, kind), proc.stderr)
            raise BuildError(e, proc.stderr)
        record_deps(dep, obj.with_suffix(".deps"), (INCLUDE_DIR, self.cache.resolve(), self.prebuilt.root.resolve()))
        dep.unlink(missing_ok=True)
        os.replace(tmp, obj)
        return obj

    def _host_retry(self, includes: list[str], stderr: str) -> list[str] | None:
        """The include flags to compile a failed host source with again, or None when its failure stands. A
        precompiled prelude the compiler refused (rejected, to be made again) or that another process removed
        meanwhile: the prelude parsed instead. Any other failure with the prelude: without it, whose result stands
        (host_prelude.py: what the rule cannot see shows as a failure; a source's own error costs one more
        compile, and is reported as the plain compile gives it)."""
        pch = self.prebuilt.host_pch_include()
        if pch in includes:
            refused = bool(_PCH_REFUSED.search(stderr))
            if refused:
                self.prebuilt.reject_host_pch()
            if refused or not (self.prebuilt.host_pch_folder / HOST_PCH_STUB).is_file():
                return [_PRELUDE_INCLUDE if i == pch else i for i in includes]
        return fallback(includes, pch, _PRELUDE_INCLUDE, _KNOBS_INCLUDE)

    def _obj(self, kind: str, key: str) -> Path:
        return self._dir("obj") / f"{kind}-{key}.o"

    def _link(self, objects: list[Path], exe: Path) -> None:
        exe.parent.mkdir(parents=True, exist_ok=True)
        tmp = exe.with_name(f".{exe.name}.{os.getpid()}-{threading.get_ident()}.tmp")
        proc = run_tool([CXX, "-pthread", *map(str, objects), "-o", str(tmp)], self.timeout_s)
        if proc is None or proc.returncode != 0:
            tmp.unlink(missing_ok=True)
            if proc is None:
                raise BuildError(tool_timeout("link", self.timeout_s, str(exe)))
            raise BuildError(killed_tool(proc.returncode, "link") or link_error(proc.stderr), proc.stderr)
        os.replace(tmp, exe)


def _in_aclnn_layer(path: Path, root: Path) -> bool:
    """Whether `path` is under the operator's op_host/op_api/ folder (its aclnn layer)."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return False
    return parts[:2] == ("op_host", "op_api")


_TILING_DEF = re.compile(r"BEGIN_TILING_DATA_DEF\s*\(\s*(\w+)")
_STRUCT_DEF = re.compile(r"\b(?:struct|class)\s+(\w+)\s*(?:final\s*)?[:{]")


def kernel_structs(texts) -> set[str]:
    """Names of the structs and classes the kernel sources define."""
    return {name for text in texts for name in _STRUCT_DEF.findall(text)}


def runtime_knob_texts(texts: dict[str, str], knobs: list[Knob]) -> dict[str, str]:
    """`constexpr uint32_t TILE = 4096;` -> `const uint32_t TILE = tw_knob("TILE", 4096);`, on the same line."""
    by_file: dict[str, list[Knob]] = {}
    for k in knobs:
        by_file.setdefault(k.file, []).append(k)
    out = dict(texts)
    for path, ks in by_file.items():
        lines = out[path].split("\n")
        for k in sorted(ks, key=lambda k: (k.literal.line, -k.literal.col)):
            line = lines[k.literal.line - 1]
            start, end = k.literal.col - 1, k.literal.end_col - 1
            head = re.sub(r"\bconstexpr\b", "const", line[:start])
            lines[k.literal.line - 1] = f'{head}tw_knob("{k.name}", {line[start:end]}){line[end:]}'
        out[path] = "\n".join(lines)
    return out


def compile_error(stderr: str, kind: str) -> RunError:
    """The first compiler error, preferring one in the user's own files over one in generated or header code."""
    hits = list(_ERROR_RE.finditer(stderr))
    ours = str(INCLUDE_DIR)
    user = [h for h in hits if not h.group("file").startswith(ours) and "/emulator/obj/" not in h.group("file")]
    best = (user or hits)[0] if user or hits else None
    if best is None:
        return RunError(kind="compile_error", message=f"{kind} compilation failed: {stderr.strip()[-400:]}")
    return RunError(
        kind="compile_error", message=best.group("msg").strip(), file=best.group("file"), line=int(best.group("line"))
    )


# CCE's function-kind attribute, `[aicore]`, is how the device toolchain spells `__aicore__`; older kernels define
# the macro themselves in their device branch (`#define __aicore__ [aicore]`). Not right after a name, `]` or `)`,
# where it would be a subscript.
_CCE_ATTRIBUTE_RE = re.compile(r"(?<![\w\])])\[[ \t]*aicore[ \t]*\]")


def blank_cce_attributes(text: str) -> str:
    """`[aicore]` replaced by as many spaces: g++ reads it as a structured binding, while for the emulator it means
    what its own empty `__aicore__` does. Lengths and lines stay as they were."""
    if "aicore" not in text:
        return text
    return _CCE_ATTRIBUTE_RE.sub(lambda m: " " * len(m.group(0)), text)


def rewrite_launches(sf, text: str) -> str:
    """`k<<<blockDim, l2, stream>>>(args)` -> `::tw::launcher_for(k, blockDim)(args)`, newlines kept in place."""
    data = text.encode("utf-8")
    out = bytearray(data)
    for mark in sorted(sf.pre.marks_of("launch"), key=lambda m: m.start, reverse=True):
        if not mark.args or not mark.name:
            continue
        callee_start = data.rfind(mark.name.encode(), max(0, mark.start - 200), mark.start)
        if callee_start < 0:
            continue
        # Inside a macro the kernel's name may be pasted together (`k_##name##_custom<<<...>>>`): the callee is the
        # whole pasted name, so that the paste stays within the launcher's argument.
        while callee_start > 0 and (chr(data[callee_start - 1]).isalnum() or data[callee_start - 1] in b"_#"):
            callee_start -= 1
        callee = data[callee_start : mark.start].decode("utf-8").strip()
        replaced = f"::tw::launcher_for({callee}, {mark.args[0].text})".encode()
        newlines = data[callee_start : mark.end].count(b"\n")
        out[callee_start : mark.end] = replaced + b"\n" * newlines
    return out.decode("utf-8")
