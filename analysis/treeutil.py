"""Small questions about tree-sitter-cpp nodes that the model builder and the lint rules all ask: which loop kinds
there are, which function a node sits in, and where a function definition's declarator (its name and parameters)
is under the pointer/reference/attribute wrappers C++ allows around it."""

from __future__ import annotations

from tree_sitter import Node

# loop node type -> the keyword the model reports for it
LOOP_TYPES = {"for_statement": "for", "for_range_loop": "for", "while_statement": "while", "do_statement": "do"}


def enclosing_function(node: Node) -> Node | None:
    """The function definition a node sits in (not the node itself), or None at file scope."""
    n = node.parent
    while n is not None and n.type != "function_definition":
        n = n.parent
    return n


def function_declarator(fn: Node) -> Node | None:
    """The `function_declarator` of a function definition or declaration: `T* A::f(int x) const` -> `A::f(int x)`."""
    decl = fn.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    return decl
