"""Finding the DataCopyExtParams / DataCopyParams a copy call uses: inline, or a local declared before it."""

from __future__ import annotations

from tree_sitter import Node

from tilewise.analysis.source import SourceFile


def param_items(sf: SourceFile, call: Node, arg: Node) -> tuple[str, list[Node]] | None:
    """(type name, initializer items) of the params argument of a copy call, or None if not found."""
    if arg.type == "compound_literal_expression":
        t = arg.child_by_field_name("type")
        v = arg.child_by_field_name("value")
        return (sf.node_text(t).split("::")[-1] if t is not None else "", _items(v))
    if arg.type == "initializer_list":
        return "", _items(arg)
    if arg.type != "identifier":
        return None
    name = sf.node_text(arg)
    fn = call.parent
    while fn is not None and fn.type != "function_definition":
        fn = fn.parent
    best = None
    for d in sf.facts("init", fn):
        ident = d.child_by_field_name("declarator")
        if ident is None or sf.node_text(ident) != name or d.start_byte > call.start_byte:
            continue
        if best is None or d.start_byte > best.start_byte:
            best = d
    if best is None:
        return None
    decl = best.parent
    t = decl.child_by_field_name("type") if decl is not None else None
    value = best.child_by_field_name("value")
    return (sf.node_text(t).split("::")[-1] if t is not None else "", _items(value))


def _items(node: Node | None) -> list[Node]:
    if node is None:
        return []
    if node.type == "initializer_list" or node.type == "argument_list":
        return [c for c in node.named_children if c.type != "comment"]
    return []


def element_count(sf: SourceFile, length: Node | None) -> str | None:
    """`N * sizeof(T)` (through casts) -> `N`: the element count DataCopy wants."""
    node = length
    while node is not None and node.type in ("cast_expression", "call_expression", "parenthesized_expression"):
        if node.type == "cast_expression":
            node = node.child_by_field_name("value")
        elif node.type == "parenthesized_expression":
            node = node.named_children[0] if node.named_children else None
        else:
            inner = node.child_by_field_name("arguments")
            named = [c for c in inner.named_children] if inner is not None else []
            if len(named) != 1:
                return None
            node = named[0]
    op = node.child_by_field_name("operator") if node is not None else None
    if node is None or node.type != "binary_expression" or op is None or op.type != "*":
        return None
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None:
        return None
    if right.type == "sizeof_expression":
        return sf.node_text(left)
    if left.type == "sizeof_expression":
        return sf.node_text(right)
    return None
