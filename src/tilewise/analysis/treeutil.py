"""Small questions about tree-sitter-cpp nodes that the model builder and the lint rules all ask: which loop kinds
there are, which function and class a node sits in, where a function definition's declarator (its name and
parameters) is under the pointer/reference/attribute wrappers C++ allows around it, and what a call calls.

They are free functions over nodes and a SourceFile's text, with no state, so every pass can share them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Literal

from tree_sitter import Node

if TYPE_CHECKING:  # only the hints need it, and analysis.source may one day ask these questions itself
    from tilewise.analysis.source import SourceFile

# loop node type -> the keyword the model reports for it
LOOP_TYPES: dict[str, Literal["for", "while", "do"]] = {
    "for_statement": "for",
    "for_range_loop": "for",
    "while_statement": "while",
    "do_statement": "do",
}


def enclosing_function(node: Node) -> Node | None:
    """The function definition a node sits in (not the node itself), or None at file scope."""
    n = node.parent
    while n is not None and n.type != "function_definition":
        n = n.parent
    return n


def descendants(root: Node, types: tuple[str, ...]) -> Iterator[Node]:
    """The nodes of these types under `root` (itself included), in source order."""
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type in types:
            yield n
        stack.extend(reversed(n.children))


def enclosing_statement(node: Node) -> Node | None:
    """The statement or declaration a node stands in (the node itself when it is one), or None outside any."""
    n: Node | None = node
    while n is not None and not n.type.endswith("statement") and n.type != "declaration":
        n = n.parent
    return n


def function_declarator(fn: Node) -> Node | None:
    """The `function_declarator` of a function definition or declaration: `T* A::f(int x) const` -> `A::f(int x)`."""
    decl = fn.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    return decl


def squash(text: str) -> str:
    """Source text with every run of whitespace made one space: how the model reports types and expressions."""
    return " ".join(text.split())


def declared_name(declarator: str) -> str:
    """The name a parameter declarator declares: its last word (`* const f`, `* __restrict__ d`, `&x` -> f, d, x)."""
    words = re.findall(r"[A-Za-z_]\w*", declarator)
    return words[-1] if words else ""


def arg_nodes(call: Node) -> list[Node]:
    """A call's argument expressions, comments left out."""
    args = call.child_by_field_name("arguments")
    return [a for a in args.named_children if a.type != "comment"] if args is not None else []


def call_parts(sf: SourceFile, call: Node) -> tuple[str, str | None, str | None]:
    """(name, receiver text or None, template argument text or None) of a call expression."""
    fn = call.child_by_field_name("function")
    receiver = None
    if fn is None:
        return "", None, None
    if fn.type == "field_expression":
        receiver = sf.node_text(fn.child_by_field_name("argument"))
        fn = fn.child_by_field_name("field")
        if fn is not None and fn.type == "dependent_name":
            fn = fn.named_children[-1] if fn.named_children else fn
    while fn is not None and fn.type == "qualified_identifier":
        fn = fn.child_by_field_name("name")
    if fn is None:
        return "", receiver, None
    targs = None
    if fn.type in ("template_function", "template_method"):
        al = fn.child_by_field_name("arguments")
        targs = sf.node_text(al)[1:-1].strip() if al is not None else None
        fn = fn.child_by_field_name("name")
        while fn is not None and fn.type == "qualified_identifier":
            fn = fn.child_by_field_name("name")
    return (sf.node_text(fn) if fn is not None else ""), receiver, targs


def function_name(sf: SourceFile, fn: Node | None) -> str | None:
    """The unqualified name a function definition or declaration declares (`A::Process` -> `Process`)."""
    if fn is None:
        return None
    decl = function_declarator(fn)
    if decl is None:
        return None
    name = decl.child_by_field_name("declarator")
    if name is None:
        return None
    return sf.node_text(name).split("::")[-1].strip()


def param_names(sf: SourceFile, fn: Node) -> list[str]:
    """The names of a function's parameters, in order (unnamed ones and `...` left out)."""
    decl = function_declarator(fn)
    params = decl.child_by_field_name("parameters") if decl is not None else None
    out = []
    for p in params.named_children if params is not None else []:
        d = p.child_by_field_name("declarator")
        if p.type == "parameter_declaration" and d is not None:
            out.append(declared_name(sf.node_text(d)))
    return out


def owner_class(sf: SourceFile, node: Node | None) -> str | None:
    """The class a node belongs to: the class body it sits in, or the `A::` of the method definition around it."""
    n = node
    while n is not None:
        if n.type in ("class_specifier", "struct_specifier"):
            name = n.child_by_field_name("name")
            return sf.node_text(name) if name is not None else None
        if n.type == "function_definition":
            decl = function_declarator(n)
            inner = decl.child_by_field_name("declarator") if decl is not None else None
            if inner is not None and inner.type == "qualified_identifier":
                scope = inner.child_by_field_name("scope")
                if scope is not None:
                    return sf.node_text(scope).split("<")[0]
        n = n.parent
    return None


def loop_context(node: Node) -> tuple[Node | None, list[Node]]:
    """The enclosing function definition and the loops between it and node, innermost first (a lambda's body
    counts as part of the function the lambda is written in)."""
    loops = []
    n = node.parent
    while n is not None:
        if n.type in LOOP_TYPES:
            loops.append(n)
        elif n.type in ("function_definition", "lambda_expression"):
            return (n if n.type == "function_definition" else enclosing_function(n)), loops
        n = n.parent
    return None, loops


def loop_header(sf: SourceFile, loop: Node) -> str:
    """A loop's text up to its body, squashed and cut to 120 characters: how the model names a loop."""
    body = loop.child_by_field_name("body")
    end = body.start_byte if body is not None else loop.end_byte
    return squash(sf.slice(loop.start_byte, end))[:120]
