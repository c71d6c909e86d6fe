"""Which kernel arguments a kernel-invocation host fills and which it reads back, from its ACL copies.

A host program that launches `kernel<<<blockDim, l2ctrl, stream>>>(dA, dB, dC, n)` copies its inputs into device
memory before the launch (`aclrtMemcpy(dA, size, hA, size, ACL_MEMCPY_HOST_TO_DEVICE)`) and reads its results back
after it (`... DEVICE_TO_HOST` with `dC` as the source). Without an OpDef this is what says that the kernel's `z`
(the parameter `dC` is passed to) is its output and `x`, `y` are inputs, whatever the parameters are called.
"""

from __future__ import annotations

import re

_COPY = re.compile(r"\baclrtMemcpy(?:Async)?\s*\(")
_KINDS = {"ACL_MEMCPY_HOST_TO_DEVICE": "input", "ACL_MEMCPY_DEVICE_TO_HOST": "output"}


def launch_roles(texts: list[str], kernel: str) -> dict[int, str]:
    """Parameter index -> "input" (the argument is a copy's destination, host to device) or "output" (a copy's
    source, device to host; it wins when both), for the arguments of the first launch of `kernel`: `<<<>>>`, or
    `ACLRT_LAUNCH_KERNEL(kernel)(blockDim, stream, args...)` / `aclrtlaunch_<kernel>(...)`."""
    k = re.escape(kernel)
    launch = re.compile(rf"\b{k}\s*(?:<[^<>;]*>)?\s*<<<[^;]*?>>>\s*\(")
    # CANN's generated launch function takes blockDim and the stream before the kernel's arguments
    generated = re.compile(rf"(?:\bACLRT_LAUNCH_KERNEL\s*\(\s*{k}\s*\)|\baclrtlaunch_{k})\s*\(")
    args: list[str] = []
    for text in texts:
        m = launch.search(text)
        if m is not None:
            args = [_name(a) for a in _call_args(text, m.end())]
            break
        calls = (
            g
            for g in generated.finditer(text)  # not a declaration: `extern "C" uint32_t aclrtlaunch_k(...);`
            if not re.search(r"\b(?:extern|uint32_t|aclError)\s*$", text[max(0, g.start() - 40) : g.start()])
        )
        g = next(calls, None)
        if g is not None:
            args = [_name(a) for a in _call_args(text, g.end())][2:]
            break
    if not args:
        return {}
    copies: dict[str, str] = {}
    for text in texts:
        for m in _COPY.finditer(text):
            parts = _call_args(text, m.end())
            if len(parts) < 5:
                continue
            role = _KINDS.get(parts[4].strip().split("::")[-1])
            if role == "input":
                copies.setdefault(_name(parts[0]), "input")
            elif role == "output":
                copies[_name(parts[2])] = "output"
    return {i: copies[a] for i, a in enumerate(args) if a in copies}


def _call_args(text: str, start: int) -> list[str]:
    """The comma-separated arguments of the call whose `(` ends just before `start`."""
    depth, args, cur = 0, list[str](), list[str]()
    for ch in text[start : start + 4000]:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                args.append("".join(cur))
                return args
            depth -= 1
        elif ch == "," and depth == 0:
            args.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    return []


def _name(expr: str) -> str:
    """The variable an argument names, without casts, `&`, `.get()` / `.data()`: `(void *)d_A` -> `d_A`."""
    expr = re.sub(r"\([^()]*\*\s*\)", " ", expr)  # C-style pointer casts
    expr = re.sub(r"\b(?:reinterpret|static)_cast\s*<[^<>]*>", " ", expr)
    names = re.findall(r"[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*", expr)
    name = names[0] if names else expr.strip()
    return re.sub(r"\s*(?:\.|->)\s*(?:get|data)$", "", re.sub(r"\s+", "", name))


_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def output_file_names(texts: list[str]) -> list[str]:
    """The string literals in host code that name an output file of its own: `"./output/output_z.bin"`,
    `"output_z.bin"`, a folder `"output/"`, or the `"output_"` prefix of a name it builds. A program that names none
    writes no result file, so tilewise reads its launch instead (device/emulator/device.py, TW_CAPTURE)."""
    found = []
    for text in texts:
        for m in _LITERAL.finditer(text):
            lit = m.group(1)
            if (
                ("output" in lit and lit.endswith(".bin"))
                or re.fullmatch(r"(?:\./)?output/?", lit)
                or re.search(r"(?:^|/)output_$", lit)
            ):
                found.append(lit)
    return found
