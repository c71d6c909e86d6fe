"""Per-chunk results that survive edits: the analyses' incremental memory.

An edit in one function leaves every other top-level chunk of the file byte-for-byte the same (see
`source.Chunk`). A pass that works chunk by chunk stores what it found per chunk, keyed by the chunk's text and by a
fingerprint of whatever else the pass read (the constants in scope, the names of the kernel's functions...), and
takes it back on the next analysis instead of recomputing it.

What a pass keeps are model objects with absolute positions. When a chunk moved (text was inserted above it), its
objects are moved with it, in place: every position-bearing object the pass created was registered in the chunk's
`movable` list. Objects are shared by consecutive models, so nothing may change them after the build except the
pass that owns them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from tilewise.analysis.source import Chunk, SourceFile

T = TypeVar("T")


class _Entry(Generic[T]):
    """One chunk's result, and the objects in it that hold positions, sorted once by what they hold (moved often)."""

    __slots__ = ("value", "start", "row", "_spans", "_lines", "_ranges")

    def __init__(self, value: T, start: int, row: int, movable: list):
        self.value, self.start, self.row = value, start, row
        # A record holds byte offsets (`start`, `end`), a line range (`line`, `end_line`), or a line alone (a knob).
        self._spans = [o for o in movable if hasattr(o, "start")]
        self._ranges = [o for o in movable if hasattr(o, "end_line")]
        self._lines = [o for o in movable if hasattr(o, "line") and not hasattr(o, "end_line")]

    def move_to(self, start: int, row: int) -> None:
        delta, rows = start - self.start, row - self.row
        if delta:
            for o in self._spans:
                o.start += delta
                o.end += delta
        if rows:
            for o in self._ranges:
                o.line += rows
                o.end_line += rows
            for o in self._lines:
                o.line += rows
        self.start, self.row = start, row


class ChunkMemo(Generic[T]):
    """One pass's results for the chunks of one file."""

    def __init__(self) -> None:
        self._entries: dict[tuple[bytes, Hashable], list[_Entry[T]]] = {}
        self.hits = 0  # for tests and benchmarks: how many chunks the last `run` reused
        self.misses = 0

    def run(
        self,
        sf: SourceFile,
        compute: Callable[[Chunk, list], T],
        fingerprint: Callable[[Chunk], Hashable] = lambda chunk: None,
        then: Callable[[T], None] | None = None,
    ) -> list[tuple[Chunk, T]]:
        """(chunk, result) for every chunk of `sf` in order. `compute(chunk, movable)` makes a missing result and
        appends each position-bearing object it creates to `movable`. `fingerprint(chunk)` is called just before
        a chunk is looked up, and `then(result)` just after, kept or computed: a pass whose chunks depend on the
        ones before them (constants) applies each result there, so the next fingerprint sees it."""
        old: dict[tuple[bytes, Hashable], list[_Entry[T]]] = self._entries
        new: dict[tuple[bytes, Hashable], list[_Entry[T]]] = {}
        out: list[tuple[Chunk, T]] = []
        self.hits = self.misses = 0
        for chunk in sf.chunks():
            key = (chunk.key, fingerprint(chunk))
            candidates = old.get(key)
            if candidates:
                entry = candidates.pop(0)  # two identical chunks must not share one result
                entry.move_to(chunk.start, chunk.row)
                self.hits += 1
            else:
                movable: list = []
                entry = _Entry(compute(chunk, movable), chunk.start, chunk.row, movable)
                self.misses += 1
            new.setdefault(key, []).append(entry)
            out.append((chunk, entry.value))
            if then is not None:
                then(entry.value)
        self._entries = new  # what no chunk claimed is gone: the cache holds one file's worth, never more
        return out


def memo(sf: SourceFile, name: str) -> ChunkMemo:
    """The memo of pass `name` for this file; it lives as long as the SourceFile (the server keeps those)."""
    found = sf.memo.get(name)
    if found is None:
        found = sf.memo[name] = ChunkMemo()
    return found  # type: ignore[return-value]
