"""The mki (Ascend Transformer Boost) operator layout: where its files are, and its inputs and outputs.

An ATB operator has no OpDef. Its folder holds the AscendC kernel (`op_kernel/`, or `kernel/` for the activation
operators), the host tiling (`tiling/*.cpp` or `<name>_tiling/*.cpp`: `Status XTiling(const LaunchParam&,
KernelInfo&)`) and a `<name>_kernel.cpp` that registers a `KernelBase` subclass with `REG_KERNEL_BASE` (its
`InitImpl` calls the tiling). The host files are the
registering sources and the tiling sources; the framework's operation-level sources (`*_operation.cpp`, graph
inference) play no part in a kernel launch and are left out.

The kernel entry's GM parameters are the operator's tensors, inputs first: the framework passes a kernel its
input tensors, its output tensors, one pointer per scratch buffer, then the tiling. Where the inputs end comes from
the manifest (the case's input names) or, without one, from `GetInTensorCount() == N` in the kernel's CanSupport.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

KERNEL_DIRS = ("op_kernel", "kernel")
_REGISTERS = re.compile(rb"\bREG_KERNEL_BASE\s*\(|:\s*public\s+(?:Mki::)?KernelBase\b")
_IN_COUNT = re.compile(r"GetInTensorCount\(\)\s*==\s*(\w+)")
# Entry parameters that are not tensors: the tiling (always last) and scratch buffers before it.
_NOT_TENSOR = re.compile(r"(?i)^(tiling\w*|\w*workspace\w*|sync\w*|ws)$")


def _registers(path: Path) -> bool:
    try:
        return bool(_REGISTERS.search(path.read_bytes()))
    except OSError:
        return False


def registering_sources(folder: Path) -> list[Path]:
    """The folder's own `.cpp` files that register an mki kernel."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix == ".cpp" and _registers(p))


def is_atb_operator(folder: Path) -> bool:
    """An ATB operator folder: a kernel folder, no op_host/, and a registering `*_kernel.cpp` or a `tiling/` one."""
    if not folder.is_dir() or (folder / "op_host").is_dir():
        return False
    if not any((folder / d).is_dir() for d in KERNEL_DIRS):
        return False
    return bool(registering_sources(folder)) or (
        (folder / "tiling").is_dir()
        and any("LaunchParam" in p.read_text(errors="replace") for p in (folder / "tiling").glob("*.cpp"))
    )


def _is_tiling_dir(name: str) -> bool:
    return name == "tiling" or name.endswith("_tiling")


def atb_files(root: Path, sources_under) -> tuple[list[Path], list[Path], Path | None]:
    """(host files, kernel files, manifest) of the ATB operator at `root`. The manifest may sit in the operator's
    folder or in its kernel folder (where a corpus that lists `<op>/kernel` as the operator puts it)."""
    registering = registering_sources(root)
    tiling_dirs = [d for d in sorted(root.iterdir()) if d.is_dir() and _is_tiling_dir(d.name)]
    host = [*registering, *(p for d in tiling_dirs for p in sources_under(d))]
    kernel = [p for d in KERNEL_DIRS for p in sources_under(root / d)]
    manifest = next(
        (m for m in [root / "tilewise.toml", *(root / d / "tilewise.toml" for d in KERNEL_DIRS)] if m.is_file()), None
    )
    return host, kernel, manifest


def tensor_params(params: list[str]) -> list[str]:
    """The entry's tensor parameters: all but the trailing tiling and the scratch buffers before it."""
    names = list(params)
    if names:
        names.pop()  # the tiling data is the framework's last argument
    while names and _NOT_TENSOR.match(names[-1]):
        names.pop()
    return names


def split_io(tensors: list[str], manifest: Path | None, host_texts: list[str]) -> int | None:
    """How many of the entry's tensors are inputs: those the manifest's first case names, else CanSupport's
    `GetInTensorCount() == N` (N a number or a constant the host sources define); None when neither says."""
    if manifest is not None:
        try:
            cases = tomllib.loads(manifest.read_text(encoding="utf-8")).get("cases", [])
        except (OSError, tomllib.TOMLDecodeError):
            cases = []
        if cases and isinstance(cases[0].get("inputs"), dict):
            given = set(cases[0]["inputs"])
            named = [i for i, t in enumerate(tensors) if t in given]
            if named:  # a case may leave an optional input (a bias) out: the last one it names ends the inputs
                return named[-1] + 1
    for text in host_texts:
        m = _IN_COUNT.search(text)
        n = _count_value(m.group(1), host_texts) if m else None
        if n is not None and n <= len(tensors):
            return n
    return None


def _count_value(word: str, host_texts: list[str]) -> int | None:
    """The number `word` stands for: a literal, or a constant the host sources define with one
    (`static constexpr uint32_t TENSOR_INPUT_NUM = 4;`, `#define TENSOR_INPUT_NUM 4`)."""
    if word.isdigit():
        return int(word)
    name = re.escape(word)
    const = re.compile(
        rf"\bconst(?:expr)?\b[^;=\n]*\b{name}\s*(?:=\s*|\{{\s*)(\d+)[uUlL]*\s*\}}?\s*;"
        rf"|#[ \t]*define[ \t]+{name}[ \t]+\(?(\d+)[uUlL]*\)?"
    )
    for text in host_texts:
        m = const.search(text)
        if m:
            return int(m.group(1) or m.group(2))
    return None


def atb_tensors(model, manifest: Path | None, host_texts: list[str]) -> None:
    """Fill `model.inputs` / `model.outputs` of an ATB operator from its kernel entry's GM parameters. Every input
    is OPTIONAL: the framework declares no optionality, and callers leave a bias out by passing an empty tensor."""
    from tilewise.analysis.model import TensorParam  # the model imports nothing from here; keep it that way

    entry = next((e for e in model.kernel.entries if e.name == model.kernel.entry), None)
    if entry is None:
        return
    tensors = tensor_params([p.name for p in entry.params])
    n_in = split_io(tensors, manifest, host_texts)
    if n_in is None:
        return
    model.inputs = [TensorParam(name=t, param_type="OPTIONAL") for t in tensors[:n_in]]
    model.outputs = [TensorParam(name=t) for t in tensors[n_in:]]
