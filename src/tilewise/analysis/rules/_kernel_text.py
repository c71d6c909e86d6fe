"""The whole text a kernel is compiled from, for rules that must prove something is ABSENT from it.

A rule that says "nobody reads X" has to look everywhere a read could hide: the kernel's own files, the headers they
include (found relative to the including file or the operator), and macro bodies (a read inside `#define
GENERAL_OP_IMPL(...)` is text like any other). Comments and string literals are blanked: a field named in a comment
is not read. The scan is by word, so it errs on the side of "read": a local variable that happens to share a field's
name hides the field, which costs a finding but never makes a false one.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

_INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)
_COMMENT_RE = re.compile(r'//[^\n]*|/\*.*?(?:\*/|\Z)|"(?:\\.|[^"\\\n])*"', re.S)
_MAX_FILES = 200
_MAX_BYTES = 2 * 1024 * 1024


@dataclass
class KernelText:
    """Comment-free text of every file the kernel is built from, by path."""

    texts: dict[str, str] = field(default_factory=dict)
    unresolved: list[str] = field(default_factory=list)  # quoted includes found nowhere (SDK or outside the tree)

    def words(self, skip: dict[str, list[tuple[int, int]]] | None = None) -> dict[str, int]:
        """How often each identifier occurs, leaving out the byte ranges in `skip` (per file: declarations)."""
        counts: Counter[str] = Counter()
        for path, text in self.texts.items():
            counts.update(_WORD_RE.findall(text))
            # then take back the words that start inside a skipped range (declarations: few and short), read from
            # the start of the run of word characters around the range's start, where a scan from the top would be
            for a, b in _merged((skip or {}).get(path, [])):
                a0 = a = min(a, len(text))
                while a0 > 0 and _word_char(text[a0 - 1]):
                    a0 -= 1
                for m in _WORD_RE.finditer(text, a0):
                    if m.start() >= b:
                        break
                    if m.start() >= a:
                        counts[m.group(0)] -= 1
        return {w: n for w, n in counts.items() if n > 0}


_WORD_RE = re.compile(r"[A-Za-z_]\w*")


def _word_char(c: str) -> bool:
    return c.isalnum() or c == "_"


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _blank_comments(text: str) -> str:
    # Keep every offset: a comment or a string literal's text becomes spaces (newlines kept). A string reads no
    # field, and an include path like "tiling/x.h" must not pass for a use of a variable named `tiling`.
    def repl(m: re.Match) -> str:
        s = m.group(0)
        return f'"{" " * (len(s) - 2)}"' if s.startswith('"') else re.sub(r"[^\n]", " ", s)

    return _COMMENT_RE.sub(repl, text)


def kernel_text(ctx) -> KernelText:
    """The kernel files of the model and, transitively, the quoted headers they include that exist on disk."""
    cached = getattr(ctx, "_kernel_text", None)
    if cached is not None:
        return cached
    out = KernelText()
    root = Path(ctx.model.root)
    todo = [os.path.normpath(str(p)) for p in ctx.model.kernel_files]
    while todo and len(out.texts) < _MAX_FILES:
        path = todo.pop(0)
        if path in out.texts:
            continue
        sf = ctx.sources.get(path)
        if sf is not None:
            text = sf.text
        else:
            try:
                p = Path(path)
                if p.stat().st_size > _MAX_BYTES:
                    continue
                text = p.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
        out.texts[path] = _blank_comments(text)
        for m in _INCLUDE_RE.finditer(text):
            found = _resolve(m.group(1), Path(path).parent, root)
            if found is None:
                out.unresolved.append(m.group(1))
            elif found not in out.texts:
                todo.append(found)
    ctx._kernel_text = out
    return out


def _resolve(name: str, here: Path, root: Path) -> str | None:
    for base in (here, root / "op_kernel", root, root.parent):
        cand = base / name
        try:
            if cand.is_file():
                return os.path.normpath(str(cand))  # one spelling per file: `a/../b.h` and `b.h` are the same file
        except (OSError, ValueError):  # a name no file can have (too long, a NUL): a half-typed include
            return None
    return None
