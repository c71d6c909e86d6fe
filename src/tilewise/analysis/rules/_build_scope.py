"""Which kernel files the device build for the linted chip compiles; a finding elsewhere is about code that never runs.

Operator projects (`op_host/` + `op_kernel/`) often carry the kernel of another chip generation beside the one for
the 910B: ops-nn keeps Ascend 950 (arch35) kernels under `op_kernel/arch35/`, reached through a second entry file that
the OpDef selects only for that SoC (`config_950.ExtendCfgInfo("opFile.value", "<op>_apt")` with
`AddConfig("ascend950", config_950)`), through `#include`s under `#if __CCE_AICORE__ == 310`, or by nothing at all. A
lint finding there (a UB budget against the 910B's 192 KiB, a syntax error in register-based code, a single buffer in
a kernel the 910B never runs) is about code the build for the linted chip does not compile.

The proof is the include graph: start from the entry files the OpDef selects for the linted chip's SoC (the
top-level `op_kernel/*.cpp` with a `__global__` kernel, minus those named as `opFile.value` only for other SoCs), and
follow every `#include` that is not in a branch the device build provably skips (`_scalar_bounds._code`: an
undecidable condition keeps its branch). An include is matched generously: relative to the including file, to
`op_kernel/`, or to any kernel file whose path ends with the included path, so a search path the analysis does not
know still counts as reaching the file. A kernel file that no followed include reaches is outside the build.

Nothing is excluded (the answer is "all in the build") when the project is not an operator project, when the OpDef
registers no SoC of the linted chip (a 950-only operator is read as it is: the lint has no better chip for it), when
no entry is found, or when an `#include` names a macro (the included file cannot be known).
"""

from __future__ import annotations

import re
from pathlib import Path

from tilewise.analysis.chip import chip_in_soc

_INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>|([A-Za-z_]\w*))', re.M)
_GLOBAL_RE = re.compile(r"\b__global__\b")
# `<var>.ExtendCfgInfo("opFile.value", "<name>")`, possibly after other chained calls on the same statement
_OPFILE_RE = re.compile(r'ExtendCfgInfo\s*\(\s*"opFile\.value"\s*,\s*"(\w+)"\s*\)')
_ADD_CONFIG_RE = re.compile(r'\bAddConfig\s*\(\s*"(\w+)"\s*(?:,\s*([A-Za-z_]\w*))?\s*\)')


def outside_build(ctx) -> dict[str, str]:
    """Kernel file path -> why the device build for `ctx.chip` never compiles it; once per lint run."""
    cache = ctx.__dict__.get("_outside_build")
    if cache is None:
        cache = ctx.__dict__["_outside_build"] = _outside_build(ctx)
    return cache


def _outside_build(ctx) -> dict[str, str]:
    model = ctx.model
    if model.layout != "project" or not model.kernel_files:
        return {}
    socs = _opfile_by_soc(ctx)
    ours = {s for s in socs if chip_in_soc(ctx.chip.name, s)}
    if not ours:
        return {}
    named_ours = {n for s in ours for n in socs[s] if n}
    named_other = {n for s, names in socs.items() if s not in ours for n in names if n}
    kernel_dir = Path(model.root) / "op_kernel"
    entries = []
    for p in model.kernel_files:
        path = Path(p)
        sf = ctx.sources.get(p)
        if path.parent != kernel_dir or path.suffix != ".cpp" or sf is None or not _GLOBAL_RE.search(sf.text):
            continue
        if named_ours and path.stem not in named_ours:
            continue  # the OpDef names another file for our SoC
        if not named_ours and path.stem in named_other:
            continue  # selected only for another SoC
        entries.append(p)
    if not entries:
        return {}
    reached = _reach(ctx, entries, kernel_dir)
    if reached is None:
        return {}
    chip = ctx.chip.name
    return {
        p: (
            f"{Path(p).relative_to(kernel_dir)} is not compiled for {chip}: no #include reaches it from the "
            f"kernel entry the OpDef selects for it ({', '.join(Path(e).name for e in entries)})"
        )
        for p in model.kernel_files
        if p not in reached
    }


def _opfile_by_soc(ctx) -> dict[str, set[str]]:
    """SoC name -> the kernel entry file stems its AddConfig selects (`""` when it takes the default file)."""
    out: dict[str, set[str]] = {}
    for p in ctx.model.host_files:
        sf = ctx.sources.get(p)
        if sf is None or "AddConfig" not in sf.text:
            continue
        text = sf.text
        statements = text.split(";")
        for m in _ADD_CONFIG_RE.finditer(text):
            soc, var = m.group(1).lower(), m.group(2)
            names: set[str] = set()
            if var:
                head = re.compile(rf"^\s*{re.escape(var)}\s*\.")
                for st in statements:
                    if head.match(st):
                        names.update(_OPFILE_RE.findall(st))
            out.setdefault(soc, set()).update(names or {""})
    return out


def _reach(ctx, entries: list[str], kernel_dir: Path) -> set[str] | None:
    """Kernel files reached from `entries` through includes the device build compiles; None when an include names
    a macro (its target cannot be known)."""
    from tilewise.analysis.rules._scalar_bounds import _code

    files = [Path(p) for p in ctx.model.kernel_files]
    by_path = {str(f.resolve()): str(f) for f in files}
    seen: set[str] = set()
    todo = list(entries)
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        sf = ctx.sources.get(p)
        if sf is None:
            continue
        text, skipped = _code(ctx, sf)
        for m in _INCLUDE_RE.finditer(text):
            if any(a <= m.start() < b for a, b in skipped):
                continue
            if m.group(3):
                return None
            todo.extend(_resolve(m.group(1) or m.group(2), Path(p).parent, kernel_dir, files, by_path))
    return seen


def _resolve(name: str, here: Path, kernel_dir: Path, files: list[Path], by_path: dict[str, str]) -> list[str]:
    """The kernel files an `#include "name"` may mean: relative to the includer or op_kernel/, else any file whose
    path ends with the name (a search path the analysis does not see)."""
    for base in (here, kernel_dir):
        try:
            hit = by_path.get(str((base / name).resolve()))
        except (OSError, ValueError):  # a name no file can have (a NUL, a loop): a half-typed include
            return []
        if hit:
            return [hit]
    tail = "/" + "/".join(part for part in Path(name).parts if part not in (".", ".."))
    return [str(f) for f in files if str(f).endswith(tail)]
