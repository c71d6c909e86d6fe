"""Which host statements size THIS kernel buffer: the link between a host UB division and an InitBuffer.

An operator's host often holds several tiling paths (one per tiling key, per chip, per kernel class), each with
its own `ubSize / ...` division. Evidence that "the host leaves room for a second buffer" is only worth anything
when it comes from the statement that computes the tiling value the InitBuffer's size reads. The link is made by
names, both ways, in plain text (good enough for tiling code, which is straight-line arithmetic):
- kernel side, backwards: the words of the InitBuffer's size, then of every assignment in its file to one of them
  (`bufferLenSize_ = ubFactor_ * sizeof(float)`, `ubFactor_ = tiling->ubFactor`), a few steps deep;
- host side, forwards, in the statement's own file: the variable it assigns, every variable assigned from one of
  those, and every tiling field set from one (`td.set_ubFactor(x)`, `td.ubFactor = x`).
The two meet when a name matches after folding case and underscores (`ub_factor` = `ubFactor_`).
"""

from __future__ import annotations

import re

from tilewise.analysis.rules.base import RuleContext

_WORD_RE = re.compile(r"[A-Za-z_]\w*")
_ASSIGN_RE = re.compile(r"(?:->|\.)?\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*(?:[-+*/]?=)(?!=)")
_SETTER_RE = re.compile(r"[.>]\s*set_?([A-Za-z_]\w*)\s*\(")
_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
# Words that name no value (types, keywords, casts): they would link unrelated statements.
_STOP = frozenset(
    (
        "sizeof",
        "static_cast",
        "reinterpret_cast",
        "const",
        "constexpr",
        "auto",
        "int",
        "float",
        "half",
        "bfloat16_t",
        "uint8_t",
        "int8_t",
        "uint16_t",
        "int16_t",
        "uint32_t",
        "int32_t",
        "uint64_t",
        "int64_t",
        "size_t",
        "this",
        "tiling",
        "tilingData",
        "T",
        "U",
        "return",
        "if",
        "else",
        "std",
        "min",
        "max",
    )
)
_DEPTH = 4


def fold(name: str) -> str:
    """A name as both sides may spell it: `ub_factor`, `ubFactor_` and `UbFactor` are one field."""
    return name.replace("_", "").lower()


def statements(text: str) -> list[str]:
    return re.split(r"[;{}]", _COMMENT_RE.sub("", text))


def kernel_names(ctx: RuleContext, size_text: str, file: str) -> set[str]:
    """Folded names an InitBuffer size reads, followed back through the assignments of its own file (another
    kernel file's `bufferSize = ...` is another class's buffer)."""
    names = {w for w in _WORD_RE.findall(size_text) if w not in _STOP}
    sf = ctx.sources.get(file)
    sts = statements(sf.data.decode("utf-8", "replace")) if sf is not None else []
    assigns = [(m.group(1), st[m.end() :]) for st in sts for m in [_ASSIGN_RE.search(st)] if m]
    for _ in range(_DEPTH):
        grown = {w for lhs, rhs in assigns if lhs in names for w in _WORD_RE.findall(rhs) if w not in _STOP}
        if grown <= names:
            break
        names |= grown
    return {fold(n) for n in names if len(n) > 1}


def host_names(file_text: str, statement: str) -> set[str]:
    """Folded names of the variables and tiling fields a host statement's value flows into, in its own file."""
    names = set(_SETTER_RE.findall(statement))
    m = _ASSIGN_RE.search(statement)
    if m:
        names.add(m.group(1))
    sts = statements(file_text)
    for _ in range(_DEPTH):
        grown = set()
        for st in sts:
            if not any(re.search(rf"\b{re.escape(n)}\b", st) for n in names):
                continue
            grown.update(_SETTER_RE.findall(st))
            a = _ASSIGN_RE.search(st)
            if a and any(re.search(rf"\b{re.escape(n)}\b", st[a.end() :]) for n in names):
                grown.add(a.group(1))
        grown -= _STOP
        if grown <= names:
            break
        names |= grown
    return {fold(n) for n in names if len(n) > 1}
