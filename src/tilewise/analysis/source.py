"""One source file: its text, its neutralised twin, the tree-sitter tree, and position conversions.

Positions: tree-sitter speaks bytes; people and tools speak 1-based lines and columns in characters; LSP speaks
0-based UTF-16 columns. `SourceFile` converts between them so that nothing else has to.
"""

from __future__ import annotations

import bisect
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import tree_sitter_cpp
from tree_sitter import Language, Node, Parser, Point, Query, QueryCursor, Tree

from tilewise.analysis.errors import SourceError
from tilewise.analysis.preprocess import Preprocessed, preprocess, reprocess

CPP = Language(tree_sitter_cpp.language())
# Every node kind any analysis looks for, found in one query pass per tree (a pass costs the same for 1 or 10 kinds).
FACTS_QUERY = Query(
    CPP,
    """
    (call_expression) @call
    (function_definition) @function
    (class_specifier) @class
    (struct_specifier) @class
    (preproc_def) @define
    (declaration) @decl
    (field_declaration) @decl
    (field_expression) @field
    (parameter_declaration) @param
    (assignment_expression) @assign
    (init_declarator) @init
    (identifier) @ident
    (field_identifier) @ident
    """,
)
_NEWLINE_RE = re.compile(b"\n")
# Containers whose children are the real top-level declarations (a header guard wraps a whole header).
_CONTAINERS = {
    "translation_unit",
    "declaration_list",
    "namespace_definition",
    "preproc_if",
    "preproc_ifdef",
    "preproc_else",
    "preproc_elif",
    "preproc_elifdef",
}
_CONTAINER_HEADS = ("name", "condition")  # a container's own head, not a declaration
_local = threading.local()


def _parser() -> Parser:
    # A Parser is not safe to share between threads; the server parses on worker threads.
    if not hasattr(_local, "parser"):
        _local.parser = Parser(CPP)
    return _local.parser


def decode_source(data: bytes, path: str) -> str:
    if b"\x00" in data[:8192]:
        raise SourceError(path, 1, "is a binary file, not C++ source; remove it from the operator or rename it")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SourceError(
            path, line, f"is not UTF-8 (byte 0x{data[exc.start]:02x}); re-save the file as UTF-8"
        ) from None


def _common_prefix(a: bytes, b: bytes) -> int:
    """Length of the common prefix, by bisection over slice comparisons (C speed; a byte loop costs ~40 ms on a
    100 KB file)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    """Length of the common suffix, at most `limit` bytes."""
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid : len(a) - lo] == b[len(b) - mid : len(b) - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


@dataclass(eq=False)
class Chunk:
    """One top-level declaration (a class, a function, a constant...) with the blank and comment text before it.

    Analyses keep per-chunk results and reuse them while `key` is unchanged: typing in one function then costs
    the work for that function, not for the file. `key` covers the chunk's text, its neutralised text, and the
    text before it on its first line (so that columns match too)."""

    start: int  # byte offset: where the previous chunk ended
    end: int
    row: int  # 0-based line of `start`
    key: bytes
    node: Node


class SourceFile:
    """A parsed source. Re-parse after an edit with `update`, which reuses the old tree (incremental)."""

    def __init__(self, path: str | Path, text: str):
        self.path = str(path)
        self.memo: dict[str, object] = {}  # analysis name -> per-chunk results, kept across `update`
        self.stamp: tuple | None = None  # (mtime, size, inode) of the disk file this text was read from
        self._set_text(text)
        self.tree: Tree = _parser().parse(self.pre.text)

    @classmethod
    def load(cls, path: str | Path) -> SourceFile:
        p = Path(path)
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise SourceError(str(p), 0, f"cannot be read ({exc.strerror}); check the path and permissions") from None
        return cls(p, decode_source(data, str(p)))

    def _set_text(self, text: str, incremental: bool = False) -> None:
        old_data, old_pre, old_lines = getattr(self, "data", b""), getattr(self, "pre", None), self._lines()
        try:
            self.data = text.encode("utf-8")
        except UnicodeEncodeError:
            # An editor can hand over lone surrogates (text it decoded from broken bytes). Each becomes one '?',
            # also one UTF-16 unit, so every position the editor sends still lands on the same character.
            text = text.encode("utf-8", "replace").decode("utf-8")
            self.data = text.encode("utf-8")
        self.text = text
        edit = _edit_range(old_data, self.data) if incremental and old_pre is not None else None
        pre = None
        if edit is not None and old_pre is not None:
            start, old_end, new_end = edit
            lo, hi = _window(old_data, old_lines, start, old_end)
            pre = reprocess(old_pre, self.data, lo, hi, len(self.data) - len(old_data))
            delta = new_end - old_end
            i, j = bisect.bisect_right(old_lines, start), bisect.bisect_right(old_lines, old_end)
            self._line_starts = (
                old_lines[:i]
                + [m.end() for m in _NEWLINE_RE.finditer(self.data, start, new_end)]
                + [x + delta for x in old_lines[j:]]
            )
        else:
            self._line_starts = [0, *(m.end() for m in _NEWLINE_RE.finditer(self.data))]
        self.pre: Preprocessed = pre or preprocess(self.data)
        self._qualifiers: tuple[Preprocessed, list[int], list[str]] | None = None
        self._facts: tuple[Tree, dict[str, list[Node]], dict[str, list[int]]] | None = None
        self._chunks: tuple[Tree, list[Chunk]] | None = None
        self._range_facts: tuple[Tree, dict[tuple[int, int], dict[str, list[Node]]]] | None = None

    def _lines(self) -> list[int]:
        return getattr(self, "_line_starts", [0])

    def update(self, text: str) -> None:
        """Replace the text and re-parse incrementally from the changed byte range of the neutralised text."""
        old = self.pre.text
        old_points = self._line_starts
        self._set_text(text, incremental=True)
        new = self.pre.text
        changed = _edit_range(old, new)
        if changed is None:
            return
        start, old_end, new_end = changed
        self.tree.edit(
            start_byte=start,
            old_end_byte=old_end,
            new_end_byte=new_end,
            start_point=_point(old_points, start),
            old_end_point=_point(old_points, old_end),
            new_end_point=_point(self._line_starts, new_end),
        )
        self.tree = _parser().parse(new, self.tree)

    # ---- positions -------------------------------------------------------------------------------------------
    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and 1-based column in characters for a byte offset."""
        row = bisect.bisect_right(self._line_starts, offset) - 1
        start = self._line_starts[row]
        prefix = self.data[start:offset]
        return row + 1, (len(prefix) if prefix.isascii() else len(prefix.decode("utf-8", "replace"))) + 1

    def lsp_position(self, offset: int) -> tuple[int, int]:
        """0-based line and UTF-16 column for a byte offset."""
        row = bisect.bisect_right(self._line_starts, offset) - 1
        start = self._line_starts[row]
        prefix = self.data[start:offset].decode("utf-8", "replace")
        return row, len(prefix.encode("utf-16-le")) // 2

    def offset_of_lsp(self, line: int, character: int) -> int:
        if line >= len(self._line_starts):
            return len(self.data)
        start = self._line_starts[line]
        end = self._line_starts[line + 1] if line + 1 < len(self._line_starts) else len(self.data)
        text = self.data[start:end].decode("utf-8", "replace")
        units = 0
        for i, ch in enumerate(text):
            if units >= character:
                return start + len(text[:i].encode("utf-8"))
            units += 2 if ord(ch) > 0xFFFF else 1
        return end

    def offset_of_line_col(self, line: int, col: int) -> int:
        start = self._line_starts[min(line - 1, len(self._line_starts) - 1)]
        rest = self.data[start:].decode("utf-8", "replace")
        return start + len(rest[: col - 1].encode("utf-8"))

    def line_count(self) -> int:
        return len(self._line_starts)

    def line_text(self, line: int) -> str:
        start = self._line_starts[line - 1]
        end = self._line_starts[line] if line < len(self._line_starts) else len(self.data)
        return self.data[start:end].decode("utf-8", "replace").rstrip("\r\n")

    # ---- tree helpers ----------------------------------------------------------------------------------------
    def node_text(self, node: Node | None) -> str:
        """The user's own text for a node (not the neutralised one). A child tree-sitter could not find (None, in a
        half-typed file) reads as empty text, so a caller never has to guard each `child_by_field_name`."""
        if node is None:
            return ""
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def slice(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "replace")

    def facts(self, kind: str, within: Node | None = None) -> list[Node]:
        """Nodes of one kind (`call`, `function`, `decl`, ... see FACTS_QUERY) in source order, outer first where
        they start together, optionally only those inside `within`. The whole file's are computed once per tree;
        those inside a node are found by a query over its range alone unless the whole file's are known."""
        if within is not None and (self._facts is None or self._facts[0] is not self.tree):
            return self.facts_in(within.start_byte, within.end_byte).get(kind, [])
        if self._facts is None or self._facts[0] is not self.tree:
            caps = QueryCursor(FACTS_QUERY).captures(self.tree.root_node)
            for nodes in caps.values():
                nodes.sort(key=_outer_first)
            self._facts = (self.tree, caps, {k: [n.start_byte for n in v] for k, v in caps.items()})
        nodes = self._facts[1].get(kind, [])
        if within is None:
            return nodes
        starts = self._facts[2].get(kind, [])
        i = bisect.bisect_left(starts, within.start_byte)
        j = bisect.bisect_left(starts, within.end_byte, lo=i)
        return [n for n in nodes[i:j] if n.end_byte <= within.end_byte]

    def facts_in(self, start: int, end: int) -> dict[str, list[Node]]:
        """Every kind of fact inside [start, end), by one query over that range (memoised per tree)."""
        if self._range_facts is None or self._range_facts[0] is not self.tree:
            self._range_facts = (self.tree, {})
        found = self._range_facts[1].get((start, end))
        if found is None:
            cursor = QueryCursor(FACTS_QUERY)
            cursor.set_byte_range(start, end)
            found = {}
            for k, nodes in cursor.captures(self.tree.root_node).items():
                inside = [n for n in nodes if n.start_byte >= start and n.end_byte <= end]
                inside.sort(key=_outer_first)
                found[k] = inside
            self._range_facts[1][(start, end)] = found
        return found

    def chunks(self) -> list[Chunk]:
        """The top-level chunks of the current tree, in order (see `Chunk`)."""
        if self._chunks is None or self._chunks[0] is not self.tree:
            out: list[Chunk] = []
            prev = 0
            for node in _top_level(self.tree.root_node):
                if node.type == "comment" or node.end_byte <= prev:
                    continue  # a comment belongs to the declaration after it
                row = bisect.bisect_right(self._line_starts, prev) - 1
                line_start = self._line_starts[row]
                end = node.end_byte
                key = b"%d\0%s\0%s" % (prev - line_start, self.data[line_start:end], self.pre.text[line_start:end])
                out.append(Chunk(prev, end, row, key, node))
                prev = end
            self._chunks = (self.tree, out)
        return self._chunks[1]

    def errors(self) -> Iterator[Node]:
        """ERROR and MISSING nodes: what the real compiler would reject too.

        Template parameter lists are skipped: tree-sitter-cpp misreads valid SFINAE such as
        `typename std::enable_if<C, void>::type* = nullptr`, and a false alarm there is worse than a miss."""
        stack = [self.tree.root_node]
        while stack:
            node = stack.pop()
            if not node.has_error or node.type == "template_parameter_list":
                continue
            if node.type == "ERROR" or node.is_missing:
                yield node
                continue
            stack.extend(reversed(node.children))

    def has_qualifier(self, start: int, end: int, name: str) -> bool:
        """Whether a neutralised qualifier stands in [start, end), or in the blank run just before start
        (tree-sitter starts a declaration after `extern "C" __global__ __aicore__`, which became spaces)."""
        while start > 0 and self.pre.text[start - 1 : start] in (b" ", b"\t", b"\n", b"\r"):
            start -= 1
        starts, names = self._qualifier_index()
        i = bisect.bisect_left(starts, start)
        while i < len(starts) and starts[i] < end:
            if names[i] == name:
                return True
            i += 1
        return False

    def _qualifier_index(self) -> tuple[list[int], list[str]]:
        if self._qualifiers is None or self._qualifiers[0] is not self.pre:
            marks = self.pre.marks_of("qualifier")
            self._qualifiers = (self.pre, [m.start for m in marks], [m.name for m in marks])
        return self._qualifiers[1], self._qualifiers[2]


def _outer_first(node: Node) -> tuple[int, int]:
    return node.start_byte, -node.end_byte  # nested calls can start together: `a()->b()`


def _top_level(node: Node) -> Iterator[Node]:
    """The declarations of a file, looking through namespaces, header guards and `#if` blocks."""
    if node.type == "namespace_definition":
        body = node.child_by_field_name("body")
        if body is not None:
            yield from _top_level(body)
        return
    heads = {h.id for h in (node.child_by_field_name(f) for f in _CONTAINER_HEADS) if h is not None}
    for child in node.named_children:
        if child.id in heads:
            continue
        if child.type in _CONTAINERS:
            yield from _top_level(child)
        else:
            yield child


def _edit_range(old: bytes, new: bytes) -> tuple[int, int, int] | None:
    """(start, old end, new end) of the one range in which two texts differ; None when they are equal."""
    if old == new:
        return None
    start = _common_prefix(old, new)
    tail = _common_suffix(old, new, min(len(old), len(new)) - start)
    return start, len(old) - tail, len(new) - tail


_CONTEXT = 256  # bytes of unchanged text kept on each side of an edit when re-preprocessing: more than any
#                 neutralisation looks back (a launch's callee, 200) or ahead


def _window(data: bytes, line_starts: list[int], start: int, end: int) -> tuple[int, int]:
    """Whole lines around [start, end) with `_CONTEXT` bytes of unchanged text, some of it code, on either side."""
    row = max(bisect.bisect_right(line_starts, max(start - _CONTEXT, 0)) - 1, 0)
    while row > 0 and not data[line_starts[row] : start].strip():
        row -= 1
    row_end = bisect.bisect_right(line_starts, end + _CONTEXT)
    hi = line_starts[row_end] if row_end < len(line_starts) else len(data)
    return line_starts[row], hi


def _point(line_starts: list[int], offset: int) -> Point:
    row = bisect.bisect_right(line_starts, offset) - 1
    return Point(row, offset - line_starts[row])


def walk(node: Node) -> Iterator[Node]:
    """Every named descendant of node, in source order."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.named_children))
