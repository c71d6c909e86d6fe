"""What the preprocessing passes share: the result they build (`Preprocessed`, its `Mark`s), the comment and
literal ranges no rewrite may touch (`Opaque`), and one `PassContext` per run over a text.

Every pass reads `ctx.src` (the user's text, never changed by a pass: only its line splices are spelled the
standard way first, `spell_splices`), writes `ctx.buf` (the text tree-sitter will parse, the same length), and
records what it neutralised in `ctx.out.marks` and what text its decisions read in `ctx.out.calls` (so that
`reprocess` never cuts through such a range). A pass handles constructs that start in [`ctx.lo`, `ctx.hi`) and
stops its scans at `ctx.scan_end`: the whole text for `preprocess`, a window for `reprocess`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple


class Arg(NamedTuple):
    text: str
    start: int
    end: int


class Mark(NamedTuple):
    """Something AscendC-specific that was neutralised, with what it said. (A tuple: a 3000-line kernel has
    hundreds of qualifiers, and a tuple is made several times faster than a frozen dataclass.)"""

    kind: str  # qualifier | tiling_begin | tiling_field | tiling_end | tiling_register | launch | macro_stmt | ...
    name: str
    start: int
    end: int
    args: tuple[Arg, ...] = ()


@dataclass
class Preprocessed:
    text: bytes
    marks: list[Mark] = field(default_factory=list)
    # For `reprocess`: the comment and literal ranges, and whether anything made the result depend on text far
    # away (a `#else` branch blanked, a macro's parentheses or a launch's `>>>` never closed).
    opaque: list[tuple[int, int]] = field(default_factory=list)
    calls: list[tuple[int, int]] = field(default_factory=list)  # every macro-like call looked at, neutralised or not
    far_reaching: bool = False

    def marks_of(self, kind: str) -> list[Mark]:
        return [m for m in self.marks if m.kind == kind]


OPAQUE_RE = re.compile(
    rb'//[^\n]*|/\*.*?(?:\*/|\Z)|"(?:\\.|[^"\\\n])*(?:"|$)|\'(?:\\.|[^\'\\\n])*(?:\'|$)',
    re.S | re.M,
)


# A backslash, blanks, then a line end: GCC and Clang (so CANN's compiler) join the lines all the same, with a warning
# ("backslash and newline separated by space"); tree-sitter joins only a backslash right before the line end.
_SPACED_SPLICE_RE = re.compile(rb"\\([ \t\f\v]+)(?=\r?\n)")


def spell_splices(src: bytes) -> bytes:
    """`src` with every line splice written as tree-sitter reads one: a backslash followed by blanks before its line
    end trades places with the blanks. Without this, a multi-line macro whose lines end in a backslash and a stray
    space left its body as code, and the grammar's recovery reported the class after it. The length, the line
    breaks and every other byte stay: positions map 1:1 as for every neutralisation."""
    if b"\\" not in src:
        return src
    return _SPACED_SPLICE_RE.sub(lambda m: m.group(1) + b"\\", src)


def splice_may_cross(src: bytes, pos: int) -> bool:
    """Whether a splice `spell_splices` moves (or, in the text before an edit, moved) may cross `pos`: `pos` is
    inside a line, after a backslash and blanks, or before blanks and the line end. `reprocess` cannot cut there."""
    if pos <= 0 or pos >= len(src) or src[pos - 1] == 0x0A:
        return False
    line_start = src.rfind(b"\n", 0, pos) + 1
    return _SPLICE_HEAD_RE.search(src, line_start, pos) is not None or _SPLICE_TAIL_RE.match(src, pos) is not None


_SPLICE_HEAD_RE = re.compile(rb"\\[ \t\f\v]*\Z")
_SPLICE_TAIL_RE = re.compile(rb"[ \t\f\v]*\r?\n")


def opaque_ranges(src: bytes) -> list[tuple[int, int]]:
    """Byte ranges of comments, string and character literals, where no rewrite may happen."""
    return [m.span() for m in OPAQUE_RE.finditer(src)]


class Opaque:
    """The comment and literal ranges of a text, for asking whether an offset is in one (by bisection)."""

    def __init__(self, src: bytes, ranges: list[tuple[int, int]] | None = None):
        self.ranges = opaque_ranges(src) if ranges is None else ranges
        self._starts = [r[0] for r in self.ranges]

    def contains(self, pos: int) -> bool:
        k = bisect.bisect_right(self._starts, pos) - 1
        return k >= 0 and self.ranges[k][0] <= pos < self.ranges[k][1]

    def end_of(self, pos: int) -> int:
        """End of the opaque range containing pos (pos itself when none does)."""
        k = bisect.bisect_right(self._starts, pos) - 1
        if k >= 0 and self.ranges[k][0] <= pos < self.ranges[k][1]:
            return self.ranges[k][1]
        return pos

    def code_matches(
        self, regex: re.Pattern, src: bytes, lo: int, hi: int, scan_end: int, group: int = 0
    ) -> Iterator[re.Match]:
        """The matches of `regex` in src[lo:scan_end] whose `group` starts in code (not in a comment or literal)
        before `hi`: what every neutralising pass scans (the window may end mid-match, hence scan_end)."""
        for m in regex.finditer(src, lo, scan_end):
            start = m.start(group)
            if start >= hi:
                return
            if not self.contains(start):
                yield m

    def start_of(self, pos: int) -> int:
        """Start of the opaque range containing pos (pos itself when none does)."""
        k = bisect.bisect_right(self._starts, pos) - 1
        if k >= 0 and self.ranges[k][0] <= pos < self.ranges[k][1]:
            return self.ranges[k][0]
        return pos


@dataclass(slots=True)
class PassContext:
    """One run of the passes: the text, the buffer they rewrite, the opaque ranges, the result, and the window."""

    src: bytes
    buf: bytearray
    opaque: Opaque
    out: Preprocessed
    lo: int
    hi: int
    scan_end: int

    @classmethod
    def whole(cls, src: bytes, opaque: Opaque | None = None) -> PassContext:
        """A context for a pass over all of `src` (what `preprocess` runs; also a caller that wants one pass), its
        splices spelled first (`opaque`, when given, must be the ranges of that spelled text)."""
        src = spell_splices(src)
        opaque = Opaque(src) if opaque is None else opaque
        return cls(src, bytearray(src), opaque, Preprocessed(b"", [], opaque.ranges), 0, len(src), len(src))
