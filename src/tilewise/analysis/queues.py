"""Reading queue and buffer declarations (`TQue`, `TQueBind`, `TBuf`, `TPipe`) in every form public kernels use.

The operator model needs each queue's kind, position and depth (rules such as `single-buffer` and `ub-overflow`
stand on them). Public code declares them in many spellings: qualified (`AscendC::TQue<AscendC::QuePosition::
VECIN, BUFFER_NUM> inQueueX, inQueueY;`), through a `using` alias or a `typedef`, as arrays (`inQueues[3]`), as
locals, with a depth that is a template parameter or a class's `static constexpr` member. This module turns a
declaration's tree into those facts; `extract` puts them into the model.
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

from tree_sitter import Node

from tilewise.analysis.source import SourceFile, walk
from tilewise.analysis.treeutil import squash

QueueKind = Literal["TQue", "TQueBind", "TBuf", "TPipe"]
# A type's last name -> its kind (a lookup, not `in`, so that the kind keeps its Literal type).
_KINDS: dict[str, QueueKind] = {"TQue": "TQue", "TQueBind": "TQueBind", "TBuf": "TBuf", "TPipe": "TPipe"}
_ALIAS_HINT_RE = re.compile(rb"\b(using|typedef)\b[^;]*\b(TQue|TQueBind|TBuf|TPipe)\b")
_SUBSCRIPT_RE = re.compile(r"\[[^\]]*\]$")


class QueueType(NamedTuple):
    """A queue type as written: its kind and its template arguments (as text; nodes when read in place)."""

    kind: QueueKind
    args: tuple[str, ...]


def unwrap_type(node: Node) -> Node:
    """`AscendC::TQue<...>` -> the `TQue<...>` node (a qualified name's innermost name)."""
    while node.type in ("qualified_identifier", "type_descriptor"):
        inner = node.child_by_field_name("name") or node.child_by_field_name("type")
        if inner is None:
            break
        node = inner
    return node


def queue_type_node(sf: SourceFile, type_node: Node) -> tuple[QueueKind, list[Node]] | None:
    """(kind, template argument nodes) when `type_node` names a queue type directly, else None."""
    t = unwrap_type(type_node)
    if t.type == "template_type":
        name = t.child_by_field_name("name")
        args = t.child_by_field_name("arguments")
        kind = _KINDS.get(sf.node_text(name).split("::")[-1]) if name is not None else None
        return (kind, list(args.named_children) if args is not None else []) if kind is not None else None
    kind = _KINDS.get(sf.node_text(t).split("::")[-1])
    return (kind, []) if kind is not None else None


def queue_aliases(sf: SourceFile, node: Node) -> dict[str, QueueType]:
    """`using InQue = TQue<...>;` and `typedef TQue<...> InQue;` under `node`: alias name -> queue type."""
    if not _ALIAS_HINT_RE.search(sf.data, node.start_byte, node.end_byte):
        return {}
    found: dict[str, QueueType] = {}
    for n in walk(node):
        if n.type == "alias_declaration":
            name, target = n.child_by_field_name("name"), n.child_by_field_name("type")
        elif n.type == "type_definition":
            name, target = n.child_by_field_name("declarator"), n.child_by_field_name("type")
        else:
            continue
        if name is None or target is None:
            continue
        qt = queue_type_node(sf, target)
        if qt is not None:
            found[sf.node_text(name)] = QueueType(qt[0], tuple(squash(sf.node_text(a)) for a in qt[1]))
    return found


def position_of(kind: str, args: list[str]) -> str | None:
    """The queue's position as the model states it: `VECIN`, `VECIN->VECOUT` for a TQueBind, VECCALC for a
    TBuf without arguments."""
    names = [a.split("::")[-1] for a in args]
    if kind == "TQue" and names:
        return names[0]
    if kind == "TQueBind" and len(names) >= 2:
        return f"{names[0]}->{names[1]}"
    if kind == "TBuf":
        return names[0] if names else "VECCALC"
    return None


def depth_index(kind: str) -> int | None:
    """Which template argument is the depth."""
    return {"TQue": 1, "TQueBind": 2}.get(kind)


def declared_names(decl: Node) -> list[tuple[Node, Node | None]]:
    """Each declarator's name node, with the array size node for `inQueues[3]` (None otherwise)."""
    out = []
    for declarator in decl.children_by_field_name("declarator"):
        size = None
        d: Node | None = declarator
        while d is not None and d.type not in ("identifier", "field_identifier"):
            if d.type == "array_declarator" and size is None:
                size = d.child_by_field_name("size")
            d = d.child_by_field_name("declarator")
        if d is not None:
            out.append((d, size))
    return out


def member_constant(sf: SourceFile, decl: Node, name: str, value_of) -> int | None:
    """The value of `static constexpr int32_t NAME = 4;` declared in the class that holds `decl`, if any."""
    node = decl.parent
    while node is not None and node.type not in ("class_specifier", "struct_specifier"):
        node = node.parent
    body = node.child_by_field_name("body") if node is not None else None
    for member in body.named_children if body is not None else []:
        if member.type != "field_declaration":
            continue
        for d in member.children_by_field_name("declarator"):
            value = member.child_by_field_name("default_value")
            if d.type == "field_identifier" and sf.node_text(d) == name and value is not None:
                return value_of(value)
    return None


def init_buffer_queue(text: str) -> str:
    """The queue an `InitBuffer` first argument names: `this->inQueueX` -> inQueueX, `inQueues[i]` -> inQueues."""
    return _SUBSCRIPT_RE.sub("", re.split(r"\.|->", text.strip())[-1]).strip()
