"""Text surgery for the blind recipes (benchmarks/blind_recipes.py): where a statement, a function body or a class
body starts, what element type a local tensor has, and a set of byte edits that becomes an overlay.

The recipes change operators they were not written for (the test partition's among them), so every place they
touch is found through the operator model and the parse tree rather than by a pattern over the whole file: a call's
statement is its tree-sitter `expression_statement`, and only one that sits directly in a `{ ... }` block is
touched, so an inserted statement can never change which branch a neighbour belongs to. Offsets are bytes (the model
and tree-sitter count bytes; the corpus's comments are often not ASCII).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tree_sitter import Node

from tilewise.analysis.model import ApiCall
from tilewise.analysis.operator import Operator

_IDENT = r"[A-Za-z_]\w*"
# A tensor argument the recipes rewrite: `x`, `this->x`, `x[expr]` (one index, no call around it).
_TENSOR_ARG = re.compile(rf"^((?:this->)?{_IDENT})(?:\[(.+)\])?$", re.S)


@dataclass
class Edits:
    """Byte edits per file, applied all at once; an edit that overlaps one already taken is dropped (two sites that
    share text are one change too many)."""

    op: Operator
    by_file: dict[str, list[tuple[int, int, int, str]]] = field(default_factory=dict)
    _seq: int = 0

    def replace(self, file: str, start: int, end: int, text: str) -> bool:
        taken = self.by_file.setdefault(file, [])
        if any(_clash((start, end), (s, e)) for s, e, _, _ in taken):
            return False
        self._seq += 1
        taken.append((start, end, self._seq, text))
        return True

    def insert(self, file: str, at: int, text: str) -> bool:
        return self.replace(file, at, at, text)

    def overlay(self) -> dict[str, str] | None:
        """The changed files' new texts, or None when nothing changed."""
        out: dict[str, str] = {}
        for file, edits in self.by_file.items():
            data = self.op.sources[file].data
            pieces: list[bytes] = []
            pos = 0
            for start, end, _, text in sorted(edits, key=lambda e: (e[0], e[0] != e[1], e[2])):
                pieces += [data[pos:start], text.encode()]
                pos = max(pos, end)
            pieces.append(data[pos:])
            new = b"".join(pieces).decode("utf-8", "surrogateescape")
            if new != self.op.sources[file].text:
                out[file] = new
        return out or None


def _clash(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Two edits clash when their replaced bytes overlap or one inserts inside the other's replaced bytes."""
    (s1, e1), (s2, e2) = a, b
    if s1 < e1 and s2 < e2:
        return s1 < e2 and s2 < e1
    return s2 < s1 < e2 if s1 == e1 else s1 < s2 < e1


def data_of(op: Operator, file: str) -> bytes:
    return op.sources[file].data


def node_at(op: Operator, file: str, offset: int) -> Node | None:
    tree = op.sources[file].tree
    return tree.root_node.descendant_for_byte_range(offset, offset) if tree is not None else None


def _up(node: Node | None, *types: str) -> Node | None:
    while node is not None and node.type not in types:
        node = node.parent
    return node


@dataclass(frozen=True)
class Statement:
    """A call's statement: its bytes, the start of its line and the line's indentation."""

    file: str
    start: int
    end: int
    line_start: int
    indent: str


def statement(op: Operator, file: str, offset: int) -> Statement | None:
    """The expression statement holding the byte at `offset`, when it stands alone on its line(s) directly inside a
    `{ ... }` block (not the body of an unbraced if or for, not a macro argument)."""
    node = _up(node_at(op, file, offset), "expression_statement", "declaration")
    if node is None or node.parent is None or node.parent.type != "compound_statement":
        return None
    data = data_of(op, file)
    line_start = data.rfind(b"\n", 0, node.start_byte) + 1
    before = data[line_start : node.start_byte]
    if before.strip():
        return None
    return Statement(file, node.start_byte, node.end_byte, line_start, before.decode())


def call_statement(op: Operator, call: ApiCall) -> Statement | None:
    """The statement that is exactly this call (`Add(z, x, y, n);`, `AscendC::Add(...)`, `q.EnQue(z);`)."""
    st = statement(op, call.loc.file, call.loc.start)
    if st is None:
        return None
    node = _up(node_at(op, call.loc.file, call.loc.start), "expression_statement")
    if node is None or node.start_byte != st.start or node.named_child_count != 1:
        return None
    if node.named_children[0].type != "call_expression":
        return None
    return st


def call_args(op: Operator, st: Statement) -> list[str] | None:
    """The arguments of the call a statement is, split at top-level commas, or None when they do not split."""
    text = data_of(op, st.file)[st.start : st.end].decode("utf-8", "surrogateescape")
    open_at = text.find("(")
    close_at = text.rfind(")")
    if open_at < 0 or close_at < open_at:
        return None
    inner = text[open_at + 1 : close_at]
    args, depth, cur = [], 0, ""
    for ch in inner:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
            continue
        cur += ch
    args.append(cur.strip())
    return args if depth == 0 and all(args) else None


def function_body_start(op: Operator, file: str, offset: int) -> int | None:
    """The byte just after the `{` that opens the function holding `offset`."""
    fn = _up(node_at(op, file, offset), "function_definition")
    body = fn.child_by_field_name("body") if fn is not None else None
    return body.start_byte + 1 if body is not None and body.type == "compound_statement" else None


def class_body_start(op: Operator, name: str) -> tuple[str, int] | None:
    """(file, byte just after the `{`) of the kernel class `name`'s definition."""
    for cls in op.model.kernel.classes:
        if cls.name != name or cls.loc.file not in op.sources:
            continue
        node = _up(node_at(op, cls.loc.file, cls.loc.start), "class_specifier", "struct_specifier")
        body = node.child_by_field_name("body") if node is not None else None
        if body is not None:
            return cls.loc.file, body.start_byte + 1
    return None


def tensor_parts(arg: str) -> tuple[str, str | None] | None:
    """(`x`, index or None) for a tensor argument `x` or `x[index]`, None for anything else."""
    m = _TENSOR_ARG.match(arg.strip())
    return (m.group(1), m.group(2)) if m else None


def shifted(arg: str, by: str) -> str:
    """`x` -> `x[by]`, `x[i]` -> `x[(i) + by]`."""
    parts = tensor_parts(arg)
    assert parts is not None
    base, index = parts
    return f"{base}[{by}]" if index is None else f"{base}[({index}) + {by}]"


_LOCAL_DECL = r"(?:AscendC::)?LocalTensor\s*<\s*([\w:]+)\s*>\s*&?\s*{name}\b"
_AUTO_DECL = (
    r"\bauto\s*&?\s*{name}\s*=\s*[\w.>\-]+?(?:\.|->)(?:template\s+)?(?:DeQue|AllocTensor|Get)\s*<\s*([\w:]+)\s*>"
)


def element_type(op: Operator, file: str, offset: int, arg: str) -> str | None:
    """The element type of the local tensor an argument names, from its nearest declaration before `offset` (a
    `LocalTensor<T> x` or an `auto x = q.DeQue<T>()`), else from a member declaration anywhere in the file."""
    parts = tensor_parts(arg)
    if parts is None:
        return None
    name = re.escape(parts[0].removeprefix("this->"))
    text = data_of(op, file)[:offset].decode("utf-8", "surrogateescape")
    found = None
    for pattern in (_LOCAL_DECL, _AUTO_DECL):
        for m in re.finditer(pattern.format(name=name), text):
            if found is None or m.start() > found[0]:
                found = (m.start(), m.group(1))
    if found is not None:
        return found[1]
    member = re.search(_LOCAL_DECL.format(name=name), op.sources[file].text)
    return member.group(1) if member else None


def global_tensors(op: Operator) -> set[str]:
    """The names the kernel declares as GlobalTensor (members, locals, parameters)."""
    names: set[str] = set()
    for p in op.model.kernel_files:
        if p not in op.sources:
            continue
        for m in re.finditer(r"GlobalTensor\s*<[^;{}()]*?>\s*&?\s*([^;(){}=]+)", op.sources[p].text):
            names.update(n.strip().lstrip("&*").strip() for n in m.group(1).split(","))
    return {n for n in names if re.fullmatch(_IDENT, n)}


def is_gm(arg: str, gm_names: set[str]) -> bool:
    parts = tensor_parts(arg)
    return parts is not None and parts[0].removeprefix("this->") in gm_names


def kernel_calls(op: Operator, *names: str) -> list[ApiCall]:
    """The calls of these APIs in the kernel's files, in source order."""
    files = set(op.model.kernel_files)
    return [c for c in op.model.calls(*names) if c.loc.file in files and c.loc.file in op.sources]


def fresh_name(op: Operator, file: str, wanted: str) -> str:
    """`wanted`, or `wanted` with a digit when the file already uses the name."""
    text = op.sources[file].text
    name, n = wanted, 1
    while re.search(rf"\b{re.escape(name)}\b", text):
        n += 1
        name = f"{wanted}{n}"
    return name


def line_break_after(op: Operator, st: Statement) -> int:
    """The byte after a statement's line (where a statement inserted after it goes)."""
    data = data_of(op, st.file)
    nl = data.find(b"\n", st.end)
    return len(data) if nl < 0 else nl + 1
