"""What one model build shares between its passes: the files and their facts, the constant environments, the
problems found so far, and the makers of the records that carry positions.

The passes (`opdef`, `constants`, `host`, `kernel`) are plain functions that take this context explicitly, so what
a pass reads and writes is visible in its signature, and a pass that keeps its results per chunk (`chunked`) hands
over the records it creates through one list instead of through builder state.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from tree_sitter import Node

from tilewise.analysis.chunks import ChunkMemo, memo
from tilewise.analysis.errors import TilewiseError
from tilewise.analysis.evaluate import Evaluator
from tilewise.analysis.model import Expr, Loc, Problem, Side
from tilewise.analysis.project import OperatorProject
from tilewise.analysis.queues import QueueType
from tilewise.analysis.source import Chunk, SourceFile
from tilewise.analysis.treeutil import call_parts, squash

T = TypeVar("T")


@dataclass(slots=True)
class Facts:
    """Facts of a whole file, or of one chunk (`facts_in`), found when first asked for."""

    sf: SourceFile
    chunk: Chunk | None = None

    def get(self, kind: str) -> list[Node]:
        if self.chunk is None:
            return self.sf.facts(kind)
        return self.sf.facts_in(self.chunk.start, self.chunk.end).get(kind, [])


@dataclass(slots=True)
class FileFacts:
    """One file as a pass sees it: which side it is analysed as, and its facts (of the file, or of one chunk)."""

    sf: SourceFile
    side: Side
    caps: Facts

    def of(self, chunk: Chunk) -> FileFacts:
        return FileFacts(self.sf, self.side, Facts(self.sf, chunk))


@dataclass(slots=True)
class BuildContext:
    """The state of one build. `sources` maps path to SourceFile (the server passes open documents)."""

    project: OperatorProject
    sources: dict[str, SourceFile]
    files: list[FileFacts] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    host_env: dict[str, int] = field(default_factory=dict)
    kernel_env: dict[str, int] = field(default_factory=dict)
    type_sizes: dict[str, int] = field(default_factory=dict)
    queue_aliases: dict[str, QueueType] = field(default_factory=dict)  # set by the kernel pass
    # `call_parts` per call, once per build: several passes look at every call of a kernel
    parts: dict[tuple[str, int, int], tuple[str, str | None, str | None]] = field(default_factory=dict)
    movable: list | None = None  # while a chunk is extracted: the position-bearing objects it creates

    # ---- records with positions ------------------------------------------------------------------------------
    def loc(self, sf: SourceFile, start: int, end: int) -> Loc:
        line, col = sf.line_col(start)
        end_line, end_col = sf.line_col(end)
        loc = Loc(file=sf.path, line=line, col=col, end_line=end_line, end_col=end_col, start=start, end=end)
        if self.movable is not None:
            self.movable.append(loc)
        return loc

    def nloc(self, sf: SourceFile, node: Node) -> Loc:
        return self.loc(sf, node.start_byte, node.end_byte)

    def expr(self, sf: SourceFile, node: Node | None, ev: Evaluator | None = None) -> Expr:
        if node is None:
            return Expr(text="")
        value = ev.value(node) if ev else None
        expr = Expr(
            text=squash(sf.node_text(node)),
            value=value,
            loc=self.nloc(sf, node),
            start=node.start_byte,
            end=node.end_byte,
        )
        if self.movable is not None:
            self.movable.append(expr)
        return expr

    # ---- shared questions ------------------------------------------------------------------------------------
    def call_parts(self, sf: SourceFile, call: Node) -> tuple[str, str | None, str | None]:
        key = (sf.path, call.start_byte, call.end_byte)  # nested calls can share a start: `a()->b()`
        parts = self.parts.get(key)
        if parts is None:
            parts = self.parts[key] = call_parts(sf, call)
        return parts

    def evaluator(self, sf: SourceFile, side: str) -> Evaluator:
        env = self.kernel_env if side == "kernel" else self.host_env
        return Evaluator(sf.node_text, env, self.type_sizes)

    def of_side(self, side: str) -> Iterable[FileFacts]:
        """The files analysed as `side`; an invocation operator's files are both (host code sits in the kernel's)."""
        return (f for f in self.files if f.side == side or self.project.layout == "invocation")

    def problem(self, exc: Exception, step: str) -> Problem:
        """What a failed step reports: a user-facing error as it is, anything else as an internal error."""
        if isinstance(exc, TilewiseError):
            return Problem(file=exc.file, line=exc.line, message=exc.message)
        return Problem(
            file=str(self.project.root),
            message=(f"internal error in {step}: {type(exc).__name__}: {exc}; please report it"),
        )

    def chunked(
        self,
        f: FileFacts,
        name: str,
        extract: Callable[[FileFacts, Chunk], T],
        fingerprint: Callable[[Chunk], Hashable],
        then: Callable[[T], None] | None = None,
    ) -> list[tuple[Chunk, T]]:
        """(chunk, `extract(view, chunk)`) for every chunk of f's file, taking back what an earlier build kept for
        chunks that did not change (same text, same `fingerprint(chunk)`)."""

        def compute(chunk: Chunk, movable: list) -> T:
            self.movable = movable
            try:
                return extract(f.of(chunk), chunk)
            finally:
                self.movable = None

        found: ChunkMemo[T] = memo(f.sf, f"{name}:{f.side}")
        return found.run(f.sf, compute, fingerprint, then)
