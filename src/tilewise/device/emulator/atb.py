"""Build an mki (Ascend Transformer Boost) operator for the emulator.

The runner (tw/runtime/runner_main.cpp) drives every operator through an OpDef and a gert tiling function. An ATB
operator has neither, so this build adds one generated host unit (tw_host/mki_adapter.h does the work) that registers
an OpDef named after the operator: its tensors are the kernel entry's GM parameters, its attributes the fields of the
operator's parameter struct (the `OpParam::X` its tiling takes with `AnyCast<...>` / `GetParam<...>`), each under
its own name and its snake_case spelling, so a case's `gemma_mode = 1` sets `gemmaMode`. Its tiling function
builds the LaunchParam, asks the registered kernels' CanSupport, and runs the chosen kernel's Init.

The operator's sources include shared headers by repository-rooted paths (`kernels/norm/common/...`,
`asdops/params/params.h`): the folders above the operator that hold them are added to the include path, found by
resolving each include against the operator's ancestors (and their `include/` folders). A shared header the host
code includes declares functions that its companion source (the `.cpp` of the same name beside it) defines: one
operator's tiling is often another's (`prermsnorm` calls `postrmsnorm/tiling/post_rms_norm_tiling.cpp`'s
`PostRmsNormTiling`), so those companions are built with the host sources, as the repository's build links them.
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

from tilewise.device.emulator.build import (
    HOST_FLAGS,
    INCLUDE_DIR,
    RUNNER_FLAGS,
    RUNNER_SOURCE,
    BuildError,
    _hash,
    headers_hash,
)
from tilewise.device.emulator.ubuf_arrays import rewrite_ubuf_casts
from tilewise.device.protocol import RunError

_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
_PARAM_USE = re.compile(r"\b(?:AnyCast|GetParam)\s*<\s*([\w:]+)\s*>")
# A kernel whose tiling never casts the parameter still checks its type: `GetParam().Type() == typeid(OpParam::X)`.
_PARAM_TYPEID = re.compile(r"\btypeid\s*\(\s*((?:\w+::)*OpParam::\w+)\s*\)")
_NAMESPACE = re.compile(r"\bnamespace\s+(\w+)\s*\{")
_ANCESTORS = 8
_MAX_HEADERS = 400


def build_atb(builder, op, texts: dict[str, str], type_macros: dict[str, str], start: float):
    """The runner executable of the ATB operator `op` (see the module docstring)."""
    model = op.model
    root = Path(model.root)
    entry = next((e for e in model.kernel.entries if e.name == model.kernel.entry), None)
    if entry is None or not model.kernel.file:
        raise BuildError(
            RunError(
                kind="no_kernel",
                message=(
                    'no kernel entry found: declare extern "C" __global__ __aicore__ void <op>(GM_ADDR ...) in '
                    "op_kernel/"
                ),
                file=str(root),
            )
        )
    host_cpp = [p for p in model.host_files if Path(p).suffix in (".cpp", ".cc", ".cxx")]
    if not host_cpp:
        raise BuildError(
            RunError(
                kind="no_host",
                message=(
                    "no mki host source: add tiling/<op>_tiling.cpp and a <op>_kernel.cpp registering the kernel with "
                    "REG_KERNEL_BASE"
                ),
                file=str(root),
            )
        )
    # `(__ubuf__ T*)` casts of UB addresses, in the kernel's own sources and in the shared headers it includes
    texts = {**texts, **{p: rewrite_ubuf_casts(texts[p]) for p in model.kernel_files if p in texts}}
    mirror = builder._mirror(op, texts)
    seen = resolve_includes(root, texts)
    roots = sorted({r for r, _ in seen.values()})
    includes = [f"-I{INCLUDE_DIR}", f"-I{INCLUDE_DIR / 'tw_host' / 'mki_compat'}", f"-I{mirror}"]
    includes += [
        f"-I{d}"
        for sub in ("tiling", "op_kernel", "kernel")
        if (mirror / sub).is_dir()
        for d in [mirror / sub, *sorted(p for p in (mirror / sub).rglob("*") if p.is_dir())]
    ]
    includes += [f"-I{r}" for r in roots]
    support = sorted(f"{p}\n{Path(p).stat().st_mtime_ns}" for _, p in seen.values())  # shared headers' versions

    jobs: list[tuple] = []
    kernel_src = kernel_unit(model, mirror, root, entry, type_macros)
    overlay = ubuf_cast_overlay(builder.cache, {p: texts[p] for p in model.kernel_files if p in texts}, root)
    kflags, pch = builder.kernel_flags()
    kernel_key = _hash(
        headers_hash(),
        kernel_src,
        *sorted(f"{p}\n{texts[p]}" for p in model.kernel_files),
        *support,
        *kflags,
        *includes,
        str(overlay),
    )
    jobs.append(
        (
            "kernel",
            kernel_key,
            kernel_src,
            kflags,
            [*pch, *([f"-I{overlay}"] if overlay else []), *includes],
            model.kernel.file,
        )
    )
    host_headers = sorted(f"{p}\n{texts[p]}" for p in model.host_files if p not in host_cpp)
    host_flags = [f"-include{INCLUDE_DIR / 'tw_host' / 'knobs.h'}", *includes]
    for p in host_cpp:
        src = f'#include "{mirror / Path(p).relative_to(root)}"\n'
        jobs.append(
            (
                "host",
                _hash(headers_hash(), src, texts[p], *host_headers, *support, *HOST_FLAGS, *host_flags),
                src,
                HOST_FLAGS,
                host_flags,
                p,
            )
        )
    for path in companion_sources(root, {p: texts[p] for p in model.host_files}):
        src = f'#include "{path}"\n'
        jobs.append(
            (
                "host",
                _hash(
                    headers_hash(),
                    src,
                    path.read_text(encoding="utf-8", errors="replace"),
                    *support,
                    *HOST_FLAGS,
                    *host_flags,
                ),
                src,
                HOST_FLAGS,
                host_flags,
                str(path),
            )
        )
    adapter = adapter_unit(model, texts, host_cpp, seen)
    jobs.append(
        ("host", _hash(headers_hash(), adapter, *support, *HOST_FLAGS, *includes), adapter, HOST_FLAGS, includes)
    )
    shim = builder._shim(model)
    jobs.append(("shim", _hash(shim), shim, HOST_FLAGS, []))
    jobs.append(
        (
            "runner",
            _hash(headers_hash(), RUNNER_SOURCE, *RUNNER_FLAGS),
            RUNNER_SOURCE,
            RUNNER_FLAGS,
            [f"-I{INCLUDE_DIR}"],
        )
    )
    return builder._assemble(f"{model.operator}-atb-{_hash(*(j[1] for j in jobs))}", jobs, start)


def resolve_includes(root: Path, texts: dict[str, str]) -> dict[str, tuple[Path, Path]]:
    """Every include of the operator's sources, and of the shared headers they reach, that resolves under a folder
    above the operator: include text -> (the folder it resolves under, the file). Relative includes of the
    operator's own files, the emulator's headers and system headers are not listed."""
    bases = [d for d in [root, *root.parents][:_ANCESTORS]]
    bases = [b for d in bases for b in (d, d / "include") if b.is_dir()]
    out: dict[str, tuple[Path, Path]] = {}
    pending = [(Path(p).parent, t) for p, t in texts.items()]
    visited: set[Path] = set()
    while pending and len(visited) < _MAX_HEADERS:
        here, text = pending.pop()
        for inc in _INCLUDE.findall(text):
            if inc in out or (here / inc).is_file() or (INCLUDE_DIR / inc).exists():
                continue
            hit = next((b for b in bases if (b / inc).is_file()), None)
            if hit is None:
                continue
            path = (hit / inc).resolve()
            out[inc] = (hit, path)
            if path not in visited and not str(path).startswith(str(root.resolve()) + "/"):
                visited.add(path)
                pending.append((path.parent, path.read_text(encoding="utf-8", errors="replace")))
    return out


def companion_sources(root: Path, host_texts: dict[str, str]) -> list[Path]:
    """The `.cpp` beside each shared header (outside the operator) that the host sources reach, with the same name:
    the definitions of what the header declares. Their own shared headers' companions too, to a fixed point."""
    found: list[Path] = []
    texts = dict(host_texts)
    while True:
        new = []
        for _root, header in resolve_includes(root, texts).values():
            cpp = header.with_suffix(".cpp")
            if (
                header.suffix in (".h", ".hpp")
                and cpp.is_file()
                and cpp not in found
                and not str(cpp).startswith(str(root.resolve()) + "/")
            ):
                new.append(cpp)
        if not new:
            return found
        found += new
        texts.update({str(p): p.read_text(encoding="utf-8", errors="replace") for p in new})


def ubuf_cast_overlay(cache: Path, kernel_texts: dict[str, str], root: Path) -> Path | None:
    """A folder, first on the kernel's include path, with a copy of each shared header the kernel reaches that
    casts to `__ubuf__` pointers, its casts rewritten (device/emulator/ubuf_arrays.py) and its relative includes
    pointed at the originals; None when there is none."""
    copies = {}
    for inc, (_root, path) in resolve_includes(root, kernel_texts).items():
        text = path.read_text(encoding="utf-8", errors="replace")
        new = rewrite_ubuf_casts(text)
        if new == text:
            continue

        def absolute(m: re.Match, here: Path = path.parent) -> str:
            return f'#include "{here / m.group(1)}"' if (here / m.group(1)).is_file() else m.group(0)

        new = re.sub(r'^\s*#\s*include\s*"([^"]+)"', absolute, new, flags=re.M)
        escaped = str(path).replace("\\", "\\\\").replace('"', '\\"')
        copies[inc] = f'#line 1 "{escaped}"\n{new}'
    if not copies:
        return None
    key = _hash(*sorted(k + "\n" + v for k, v in copies.items()))
    folder = cache / "src" / f"ubuf-{key}"
    for inc, text in copies.items():
        (folder / inc).parent.mkdir(parents=True, exist_ok=True)
        if not (folder / inc).exists():  # named by its content: written once, atomically
            tmp = (folder / inc).with_name(f".{(folder / inc).name}.{os.getpid()}-{threading.get_ident()}")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(folder / inc)
    return folder


def kernel_unit(model, mirror: Path, root: Path, entry, type_macros: dict[str, str]) -> str:
    """The kernel's translation unit: the entry renamed (as in the project path, so that a kernel named like a C
    library function does not collide) and called with the framework's argument layout (tw/runtime/mki_entry.h)."""
    renamed = f"tw_kernel_{entry.name}"
    lines = ['#include "kernel_operator.h"']
    # The device compiler's branch hints, which ATB kernels use unguarded.
    lines += [
        "#ifndef likely",
        "#define likely(x) __builtin_expect(!!(x), 1)",
        "#endif",
        "#ifndef unlikely",
        "#define unlikely(x) __builtin_expect(!!(x), 0)",
        "#endif",
    ]
    lines += [f"#define {k} {v}" for k, v in sorted(type_macros.items())]
    lines += [
        f"#define {entry.name} {renamed}",
        f'#include "{mirror / Path(model.kernel.file).relative_to(root)}"',
        f"#undef {entry.name}",
        f'#include "{INCLUDE_DIR / "tw" / "runtime" / "mki_entry.h"}"',
        "void tw_call_kernel(uint8_t** gm, size_t n) { ::tw_mki::invoke_entry(&" + renamed + ", gm, n); }",
    ]
    return "\n".join(lines) + "\n"


def snake_case(name: str) -> str:
    """`gemmaMode` -> `gemma_mode`, `inGamma` -> `in_gamma`, `qSeqLen` -> `q_seq_len`."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def param_struct(texts: dict[str, str], host_cpp: list[str]) -> tuple[str, str, str] | None:
    """(namespace the tiling names it in, the name as written, the file) of the parameter struct the host code
    casts the LaunchParam's parameter to, e.g. ("AsdOps", "OpParam::Norm", ".../rms_norm_tiling.cpp")."""
    for pattern in (_PARAM_USE, _PARAM_TYPEID):
        for p in host_cpp:
            text = texts[p]
            m = pattern.search(text)
            if m:
                ns = _NAMESPACE.search(text[: m.start()])
                return (ns.group(1) if ns else ""), m.group(1), p
    return None


def struct_enums(text: str) -> dict[str, list[tuple[str, int]]]:
    """The enums declared in `text`: name -> [(enumerator, value)], values counted as C++ counts them."""
    out: dict[str, list[tuple[str, int]]] = {}
    for m in re.finditer(r"\benum\s+(?:class\s+)?(\w+)\s*(?::\s*[\w:]+)?\s*\{([^}]*)\}", text):
        body = re.sub(r"//[^\n]*|/\*.*?\*/", "", m.group(2), flags=re.S)
        value, items = -1, []
        for part in (p.strip() for p in body.split(",")):
            em = re.fullmatch(r"(\w+)\s*(?:=\s*(-?(?:0x[0-9a-fA-F]+|\d+))[uUlL]*)?", part)
            if em is None:
                continue
            value = int(em.group(2), 0) if em.group(2) else value + 1
            items.append((em.group(1), value))
        out[m.group(1)] = items
    return out


def struct_fields(text: str, name: str) -> list[tuple[str, str]]:
    """The data members (type, name) of `struct name { ... }` in `text` (nested enums, methods and static members
    left out)."""
    m = re.search(r"\bstruct\s+" + re.escape(name) + r"\s*\{", text)
    if m is None:
        return []
    depth, i, body = 1, m.end(), []
    while i < len(text) and depth:
        ch = text[i]
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth == 1 and ch != "}":
            body.append(ch)
        elif depth > 1 or ch == "}":
            body.append(";" if depth == 1 else "")  # a nested block ends a statement
        i += 1
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "", "".join(body), flags=re.S)
    fields = []
    for stmt in code.split(";"):
        stmt = " ".join(stmt.split())
        if not stmt or "(" in stmt or re.match(r"(static|using|typedef|friend|enum|struct|public|private)\b", stmt):
            continue
        stmt = re.sub(r"^(?:public|private|protected)\s*:\s*", "", stmt)
        fm = re.match(r"([\w:<>, ]+?)[\s*&>]+(\w+)\s*(?:=.*|\{.*)?$", stmt)
        if fm and "[" not in stmt:
            fields.append((fm.group(1).strip(), fm.group(2)))
    return fields


def adapter_unit(model, texts: dict[str, str], host_cpp: list[str], seen: dict[str, tuple[Path, Path]]) -> str:
    """The generated host unit that registers the operator with the runner (tw_host/mki_adapter.h)."""
    found = param_struct(texts, host_cpp)
    lines = ['#include "tw_host/mki_adapter.h"']
    ins = ", ".join(f'"{t.name}"' for t in model.inputs)
    outs = ", ".join(f'"{t.name}"' for t in model.outputs)
    if not model.inputs and not model.outputs:
        raise BuildError(
            RunError(
                kind="no_opdef",
                message=(
                    "cannot tell the kernel entry's inputs from its outputs: name the inputs in the manifest's case, "
                    "after "
                    "the entry's GM parameters"
                ),
                file=model.kernel.file,
            )
        )
    fields: list[tuple[str, str]] = []
    enums: dict[str, list[tuple[str, int]]] = {}
    if found is None:  # a tiling that reads no parameter struct
        lines += ["namespace { struct TwNoParam {}; }", "using TwParam = TwNoParam;"]
    else:
        ns, written, where = found
        # The headers that declare it, as the tiling includes them (`asdops/params/params.h`).
        lines += [f'#include "{inc}"' for inc in _INCLUDE.findall(texts[where]) if "param" in inc.lower()]
        # Named as the tiling names it, from inside its namespace (`OpParam::Norm` within `AsdOps`).
        lines += (
            [f"namespace {ns} {{ using TwParam = {written}; }}", f"using TwParam = {ns}::TwParam;"]
            if ns
            else [f"using TwParam = {written};"]
        )
        short = written.split("::")[-1]
        for _inc, (_root, path) in sorted(seen.items()):
            if f"struct {short}" in path.read_text(encoding="utf-8", errors="replace"):
                header = path.read_text(encoding="utf-8", errors="replace")
                fields, enums = struct_fields(header, short), struct_enums(header)
                if fields:
                    break

    # A field of one of the struct's own enums takes the enumerator's name (`norm_type = "RMS_NORM"`).
    def binding(ftype: str, field: str) -> str:
        table = enums.get(ftype.split("::")[-1])
        if table is None:
            return f'TW_MKI_FIELD(TwParam, {field}, "{snake_case(field)}")'
        pairs = ", ".join(f'{{"{e}", {v}}}' for e, v in table)
        return f'TW_MKI_ENUM(TwParam, {field}, "{snake_case(field)}", {{{pairs}}})'

    items = ",\n    ".join(binding(t, f) for t, f in fields)
    lines += [
        f'static const ::tw_mki::Registrar<TwParam> tw_mki_registrar("{model.operator}", {{{ins}}}, {{{outs}}}, '
        f"{{\n    {items}}});"
        if items
        else f'static const ::tw_mki::Registrar<TwParam> tw_mki_registrar("{model.operator}", {{{ins}}}, {{{outs}}}, '
        "{});"
    ]
    return "\n".join(lines) + "\n"
