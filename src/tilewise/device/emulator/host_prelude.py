"""Which op_host sources the emulator's build pre-includes the host prelude into, so that their compile can take it
precompiled (prebuilt.py) instead of parsing the host API each time.

Every host source is compiled with a forced `-include`: `tw_host/knobs.h` (the run-time knobs), or for a source that
qualifies `tw_host/prelude.h` (knobs.h, then `register/op_def_registry.h`: the classic op_host API, most of a host
compile's time). GCC takes a precompiled header only for the first include of a unit, so the prelude must come before
the source's own lines. That is safe only if moving the API's parse ahead of them changes nothing, hence the rule:

1. The source reaches our `register/op_def_registry.h` through its own includes (its own line, or one of the
   operator's headers it includes): then the prelude declares nothing the unit would not see anyway. A host helper
   `.cpp` that includes none of our headers never takes it, as its own names may clash with the API's (a global
   `y1` against <cmath>'s, a `Shape` of its own).
2. Nothing before that include can change how the headers that follow read: no `#define`, `#undef`, `#if...` or
   `#pragma` (`pack` would change our structs) other than a header's include guard and `#pragma once`; no
   `_Pragma`; no `using` (a using-directive or -declaration changes our headers' name lookup); the include not
   inside braces (a namespace or `extern "C"` block); no include by a macro's name. What stays allowed is what
   classic sources do: `#include "x_tiling.h"` first, whose BEGIN_TILING_DATA_DEF structs only declare names.

Anything the rule cannot see (a declaration before the include that clashes only in the other order) shows as a
failed compile; build.py then compiles the source again without the prelude, and that result stands (`fallback`).
Left over are differences no operator relies on: code before the include that uses a name only the rest of the API
declares compiles with the prelude and would not without it, and an unqualified call there could see an overload
the API adds.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

API_HEADER = "register/op_def_registry.h"
PRELUDE = "tw_host/prelude.h"
KNOBS = "tw_host/knobs.h"
MAX_FILES = 200  # a bound on the operator's headers one source's walk reads, against a runaway include graph

# Comments (blanked, keeping their newlines so that lines stay lines) and the literals a comment marker may sit in.
_COMMENT_OR_LITERAL = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_LITERAL = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(\w*)(.*)$")
_INCLUDE_NAME = re.compile(r'^\s*(?:"([^"]+)"|<([^>]+)>)\s*$')
_GUARD_OPEN = re.compile(r"^\s*(?:(\w+)|!\s*defined\s*\(\s*(\w+)\s*\)|!\s*defined\s+(\w+))\s*$")
_CHANGES_LOOKUP = re.compile(r"\b(?:using|_Pragma|__pragma)\b")


def takes_prelude(source: Path, search_dirs: Sequence[Path], include_dir: Path) -> bool:
    """Whether the host source at `source` (the mirrored file the unit includes) qualifies for the prelude under
    the module doc's rule; `search_dirs` are the compile's `-I` folders in order, `include_dir` the emulator's."""
    return _Walk(search_dirs, include_dir).walk(str(source)) is True


def fallback(includes: list[str], pch_include: str, prelude_include: str, knobs_include: str) -> list[str] | None:
    """The include flags of a host compile that failed with the prelude, to compile it again without it: the
    prelude (precompiled, `pch_include`, or parsed, `prelude_include`) replaced by the bare knobs; None when the
    failed compile did not take the prelude (its failure stands)."""
    if pch_include not in includes and prelude_include not in includes:
        return None
    return [knobs_include if i in (pch_include, prelude_include) else i for i in includes]


class _Walk:
    """One source's walk through its include lines, up to the API header's (see the module doc)."""

    def __init__(self, search_dirs: Sequence[Path], include_dir: Path):
        # paths as strings: the walk runs on every build, a cached one too, and pathlib's objects cost most of it
        # (normalised, not resolved: the `-I` folders are spelled from the same include folder, and a file reached
        # twice through a link is only walked twice)
        self.dirs = [str(d) for d in search_dirs]
        self.ours = os.path.normpath(include_dir) + os.sep
        self.api = os.path.normpath(Path(include_dir) / API_HEADER)
        self.seen: set[str] = set()
        self.depth = 0  # braces open at this point of the unit, across the files walked

    def walk(self, path: str) -> bool | None:
        """True when the API header's include is reached with nothing before it that the rule forbids, False at
        the first thing it forbids, None when `path` ends with neither (the walk goes on in its includer)."""
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            return False  # unreadable: nothing can be said about it
        for directive, rest, code in _guard_stripped(_items(text)):
            if code is not None:
                if 'R"' in code:  # a raw string's braces and quotes would fool the count below
                    return False
                code = _LITERAL.sub('""', code)
                if _CHANGES_LOOKUP.search(code):
                    return False
                self.depth += code.count("{") - code.count("}")
                continue
            if directive == "line" or (directive == "pragma" and rest.strip() == "once"):
                continue
            if directive != "include":
                return False
            found = self._include(path, rest)
            if found is not None:
                return found
        return None

    def _include(self, includer: str, rest: str) -> bool | None:
        m = _INCLUDE_NAME.match(rest)
        if not m:
            return False  # `#include MACRO`: where it leads is the preprocessor's to say
        name, quoted = (m.group(1), True) if m.group(1) else (m.group(2), False)
        target = self._resolve(includer, name, quoted)
        if target is None:
            return None  # found only in the system's folders: a standard header
        norm = os.path.normpath(os.path.abspath(target))
        if norm == self.api:
            return self.depth == 0
        if norm.startswith(self.ours) or norm in self.seen:
            return None  # one of our other headers (they read the same in any order), or a file already walked
        self.seen.add(norm)
        if len(self.seen) > MAX_FILES:
            return False
        return self.walk(target)

    def _resolve(self, includer: str, name: str, quoted: bool) -> str | None:
        """The file the compiler opens for the include, searched as GCC does (the includer's folder first for a
        quoted name, then the `-I` folders), or None when it is left to the system's folders."""
        if os.path.isabs(name):
            return name if os.path.isfile(name) else None
        candidates = [os.path.dirname(includer)] if quoted else []
        for folder in [*candidates, *self.dirs]:
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                return path
        return None


def _items(text: str) -> list[tuple[str, str, str | None]]:
    """The unit's lines as (directive, its rest, None) or ("", "", code), comments blanked and continuations
    joined."""
    text = _COMMENT_OR_LITERAL.sub(lambda m: m.group(0) if m.group(0)[0] in "\"'" else _blank(m.group(0)), text)
    out: list[tuple[str, str, str | None]] = []
    for line in text.replace("\\\n", "").split("\n"):
        m = _DIRECTIVE.match(line)
        if m:
            out.append((m.group(1), m.group(2), None))
        elif line.strip():
            out.append(("", "", line))
    return out


def _blank(comment: str) -> str:
    return " " + "\n" * comment.count("\n")


def _guard_stripped(items: list[tuple[str, str, str | None]]) -> list[tuple[str, str, str | None]]:
    """`items` without a header's include guard: an `#ifndef G` / `#if !defined(G)` then `#define G` before any
    other line (a mirror's `#line` aside), closed by the last line's `#endif`. Any other conditional stays."""
    head = [i for i, (d, _, code) in enumerate(items) if not (code is None and d == "line")]
    if len(head) < 3:
        return items
    (d0, r0, c0), (d1, r1, c1) = items[head[0]], items[head[1]]
    last_d, _, last_c = items[head[-1]]
    if c0 is not None or c1 is not None or last_c is not None or last_d != "endif" or d1 != "define":
        return items
    m = _GUARD_OPEN.match(r0) if d0 in ("ifndef", "if") else None
    if m is None or (d0 == "ifndef") != bool(m.group(1)):
        return items
    guard = m.group(1) or m.group(2) or m.group(3)
    if r1.split()[:1] != [guard]:
        return items
    drop = {head[0], head[1], head[-1]}
    return [item for i, item in enumerate(items) if i not in drop]
