"""Statement-level questions the call-rewriting motifs (fused-call, ub-resident, merged-copy, whole-reduce) share:
a call's statement and its argument texts, the statements after it, whether a name is read later in its function,
and whole-line spans to delete."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tree_sitter import Node

from tilewise.analysis.model import ApiCall
from tilewise.analysis.motifs.base import MotifContext, Rewound, line_end, line_start
from tilewise.analysis.source import SourceFile
from tilewise.analysis.treeutil import LOOP_TYPES, enclosing_function

SYNC_CALLS = ("SetFlag", "WaitFlag", "PipeBarrier")


@dataclass
class CallStmt:
    """One API call standing alone as a statement: `Name<tmpl>(a, b, c);`."""

    call: ApiCall
    sf: SourceFile
    stmt: Node
    args: list[str]

    @property
    def name(self) -> str:
        return self.call.name

    @property
    def text(self) -> str:
        return self.sf.node_text(self.stmt)


def call_stmt(ctx: MotifContext, call: ApiCall) -> CallStmt | None:
    found = ctx.statement(call)
    if found is None:
        return None
    sf, stmt = found
    return CallStmt(call, sf, stmt, [a.text.strip() for a in call.args])


def call_stmts(ctx: MotifContext, *names: str) -> list[CallStmt]:
    out = []
    for c in ctx.calls(*names):
        cs = call_stmt(ctx, c)
        if cs is not None:
            out.append(cs)
    return out


def parse_call(text: str) -> tuple[str, str | None, list[str]] | None:
    """`Name<T>(a, f(b, c), d);` -> (Name, T, [a, f(b, c), d]); None when the text is not one bare call. The API's
    namespace may qualify the name (`AscendC::DataCopy(...)`, `::AscendC::SetFlag<...>(...)`): the same call."""
    m = re.match(r"\s*(?:(?:::)?AscendC\s*::\s*)?([A-Za-z_]\w*)\s*(?:<([^;()]*)>)?\s*\(", text)
    if m is None:
        return None
    depth, args, cur = 1, [], ""
    i = m.end()
    while i < len(text) and depth:
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                break
        if ch == "," and depth == 1:
            args.append(cur.strip())
            cur = ""
        else:
            cur += ch
        i += 1
    if depth or text[i + 1 :].strip() not in ("", ";"):
        return None
    if cur.strip():
        args.append(cur.strip())
    return m.group(1), m.group(2), args


def base_name(expr: str) -> str:
    """`this->xLocal[i * 8]` -> `xLocal`."""
    return re.split(r"[\[.(]", expr.replace("this->", "").strip())[0].strip()


def is_plain_name(expr: str) -> bool:
    return re.fullmatch(r"[A-Za-z_]\w*", expr.strip()) is not None


def split_index(expr: str) -> tuple[str, str | None]:
    """`xGm[off]` -> (`xGm`, `off`); `xGm` -> (`xGm`, None)."""
    m = re.fullmatch(r"\s*([A-Za-z_][\w.>-]*)\s*\[(.*)\]\s*", expr, re.S)
    return (m.group(1), m.group(2).strip()) if m else (expr.strip(), None)


def offset_expr(expr: str, extra: str) -> str:
    """The tensor expression `expr` advanced by `extra` elements: `x[o]` -> `x[o + extra]`, `x` -> `x[extra]`."""
    name, idx = split_index(expr)
    return f"{name}[{extra}]" if idx is None else f"{name}[{idx} + {extra}]"


def next_stmt(node: Node) -> Node | None:
    nxt = node.next_named_sibling
    while nxt is not None and nxt.type == "comment":
        nxt = nxt.next_named_sibling
    return nxt


def is_sync(sf: SourceFile, node: Node) -> bool:
    """A statement that only orders pipes: SetFlag/WaitFlag/PipeBarrier, or an event id fetched for them."""
    text = sf.node_text(node).strip()
    if node.type == "expression_statement":
        parsed = parse_call(text)
        return parsed is not None and parsed[0] in SYNC_CALLS
    if node.type == "declaration":
        return "FetchEventID" in text or "AllocEventID" in text
    return False


def read_later(sf: SourceFile, stmt: Node, name: str) -> bool:
    """Whether `name` is mentioned after `stmt` in its function, or anywhere in a loop around it inside the function
    (the next iteration reads it again). Handing the tile back to its queue (`FreeTensor(name)`) is no read."""
    fn = enclosing_function(stmt)
    if fn is None:
        return True
    word = re.compile(rf"(?<![\w.]){re.escape(name)}\b")
    free = re.compile(rf"\bFreeTensor\s*\(\s*{re.escape(name)}\s*\)")

    def mentions(start: int, end: int) -> bool:
        return word.search(free.sub("", sf.data[start:end].decode("utf-8", "replace"))) is not None

    if mentions(stmt.end_byte, fn.end_byte):
        return True
    n = stmt.parent
    while n is not None and n != fn:
        if n.type in LOOP_TYPES and mentions(n.start_byte, stmt.start_byte):
            return True
        n = n.parent
    return False


def lines_of(sf: SourceFile, first: Node, last: Node | None = None) -> tuple[int, int]:
    """Byte span of the whole lines from `first` through `last` (for deleting statements with their indent)."""
    return line_start(sf, first.start_byte), line_end(sf, (last or first).end_byte)


def stmt_line(sf: SourceFile, node: Node) -> tuple[int, int]:
    return sf.line_col(node.start_byte)[0], sf.line_col(node.end_byte)[0]


SIZES = {"float": 4, "float32_t": 4, "half": 2, "float16_t": 2, "bfloat16_t": 2, "int32_t": 4, "uint32_t": 4,
          "int16_t": 2, "uint16_t": 2, "int8_t": 1, "uint8_t": 1, "int64_t": 8, "uint64_t": 8}  # fmt: skip


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def plain(text: str) -> str:
    """For comparing counts: no blanks, no redundant parentheses, `static_cast<T>(x)` as `x`."""
    t = re.sub(r"static_cast<[^<>]*>\((\w+)\)", r"\1", squash(text))
    return re.sub(r"\((\w+)\)", r"\1", t)


def strip_parens(text: str) -> str:
    t = text.strip()
    while t.startswith("(") and t.endswith(")") and balanced(t[1:-1]):
        t = t[1:-1].strip()
    return t


def balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0:
            return False
    return depth == 0


def top_split(text: str, sep: str) -> list[str]:
    """`text` split at `sep` outside brackets."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == sep and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


def loop_of(stmt: Node) -> Node | None:
    """The for-loop whose whole body is this one statement (braced or not)."""
    p = stmt.parent
    if p is not None and p.type == "compound_statement":
        if len([c for c in p.named_children if c.type != "comment"]) != 1:
            return None
        p = p.parent
    return p if p is not None and p.type == "for_statement" else None


def loop_header(sf: SourceFile, loop: Node) -> tuple[str, str] | None:
    """(i, N) for `for (T i = 0; i < N; i++)` (or ++i, i += 1)."""
    body = loop.child_by_field_name("body")
    head = sf.data[loop.start_byte : body.start_byte if body else loop.end_byte].decode("utf-8", "replace")
    m = re.match(
        r"\s*for\s*\(\s*(?:[\w:]+\s+)?(\w+)\s*=\s*0[uU]?\s*;\s*(\w+)\s*<\s*([^;]+?)\s*;\s*"
        r"(?:(\w+)\s*\+\+|\+\+\s*(\w+)|(\w+)\s*\+=\s*1)\s*\)\s*$",
        head,
    )
    if m is None or m.group(2) != m.group(1) or (m.group(4) or m.group(5) or m.group(6)) != m.group(1):
        return None
    return m.group(1), strip_parens(m.group(3))


def distinct(rewinds: list[Rewound]) -> list[Rewound]:
    """The rewinds with each description that more than one of them shares told apart by its line."""
    counts: dict[str, int] = {}
    for r in rewinds:
        counts[r.description] = counts.get(r.description, 0) + 1
    for r in rewinds:
        if counts[r.description] > 1:
            r.description = f"{r.description} (line {r.line})"
    return rewinds
