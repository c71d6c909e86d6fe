"""Rewrite `__ubuf__` array declarations so that they live in the emulated Unified Buffer.

Kernels written against the AscendC C API take UB memory by declaring arrays with the `__ubuf__` qualifier inside a
kernel function (`__ubuf__ float x[256];`, or `__ubuf__ Buffers b{};` for a struct of arrays). The device compiler
places them in the core's UB; g++, for which `__ubuf__` expands to nothing, would place them on the host stack, where
the emulator's UB checks, racecheck and UB accounting cannot see them and where they are not even 32-byte aligned.
The build therefore rewrites each function-scope declaration into a pointer (or reference) that tw/runtime/ubuf_arrays.h
hands out from the emulated UB. The rewrite keeps every line where it was, so compile errors and the sanitizer's
file:line reports still point at the user's source.

A `(__ubuf__ T*)x` cast gets the same treatment: on the device `x` may be a UB address (LocalTensor::GetPhyAddr(), 0
for the first buffer) that the kernel then dereferences, which on the host would be a wild pointer. The build inserts
a second cast, `(__ubuf__ T*)(::tw::UbAddress)x`, which turns such a number into the pointer to that UB byte of the
emulated core (tw/runtime/ubuf_arrays.h); a cast binds exactly as tightly as the cast it follows, so `x` is the same
operand.
"""

from __future__ import annotations

import re

# `__ubuf__ <type> <name>[<length>];` with an optional empty initialiser (`= {}` / `{}`). The type is one
# (possibly qualified, possibly templated) name with optional const / unsigned words: what kernels declare.
_TYPE = r"(?:(?:const|volatile|unsigned|signed)\s+)*[A-Za-z_][\w:]*(?:\s*<[^;{}()<>]*>)?(?:\s+(?:int|long|short|char))*"
_ARRAY = re.compile(
    rf"\b__ubuf__\s+(?P<type>{_TYPE})\s+(?P<name>[A-Za-z_]\w*)\s*\[(?P<len>[^\[\];{{}}]+)\]\s*(?:=\s*)?(?:\{{\s*\}})?\s*;"
)
# `__ubuf__ <struct> <name>{};`: the documented way to place a struct of arrays (it must be brace-initialised).
_OBJECT = re.compile(rf"\b__ubuf__\s+(?P<type>{_TYPE})\s+(?P<name>[A-Za-z_]\w*)\s*\{{\s*\}}\s*;")
# `(__ubuf__ <type> *)` followed by an operand (not `;`, `,` or `)`: an unnamed parameter of a declaration).
_CAST = re.compile(r"\(\s*__ubuf__\s+[A-Za-z_][\w:<>,\s]*?\*\s*\)(?=\s*[\w(&*!~+\-:])")
_CODE_NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def _code_only(text: str) -> str:
    """`text` with comments and string / character literals blanked (same length, newlines kept)."""
    return _CODE_NOISE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def rewrite_ubuf_arrays(text: str) -> str:
    """Every `__ubuf__` array or struct declared inside a function body, rewritten to take its storage from the
    emulated UB (tw::ub_array / tw::ub_object); declarations at namespace scope and everything else are untouched."""
    if "__ubuf__" not in text:
        return text
    code = _code_only(text)
    matches = [(m, "array") for m in _ARRAY.finditer(code)] + [(m, "object") for m in _OBJECT.finditer(code)]
    if not matches:
        return text
    out = text
    for m, kind in sorted(matches, key=lambda x: x[0].start(), reverse=True):
        # Only inside a function body: a namespace-scope declaration would run before any core exists.
        depth = code.count("{", 0, m.start()) - code.count("}", 0, m.start())
        if depth <= 0:
            continue
        kind_type, name = " ".join(m.group("type").split()), m.group("name")
        if kind == "array":
            length = " ".join(m.group("len").split())
            new = (
                f'__ubuf__ {kind_type}* const {name} = ::tw::ub_array<{kind_type}>(({length}), "{name}", '
                f"__FILE__, __LINE__);"
            )
        else:
            new = f'__ubuf__ {kind_type}& {name} = ::tw::ub_object<{kind_type}>("{name}", __FILE__, __LINE__);'
        new += "\n" * m.group(0).count("\n")  # the lines after it stay where they were
        out = out[: m.start()] + new + out[m.end() :]
    return out


def rewrite_ubuf_casts(text: str) -> str:
    """Every `(__ubuf__ T*)x` cast in code (not comments or strings), as `(__ubuf__ T*)(::tw::UbAddress)x`."""
    if "__ubuf__" not in text:
        return text
    code = _code_only(text)
    out = text
    for m in reversed(list(_CAST.finditer(code))):
        out = out[: m.end()] + "(::tw::UbAddress)" + out[m.end() :]
    return out
