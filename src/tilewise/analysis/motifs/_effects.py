"""What a stretch of kernel code may write, read conservatively from the tree: the motifs that move or delete a
vector call use it to prove that nothing else touches the tensors the call reads or writes.

A name counts as written when it is the destination (first argument) of an API call, the receiver of a SetValue,
an argument of a queue method or of any function that is not a known API (a helper of the kernel's own may write
what it is given), assigned, stepped or declared. A helper defined in the same file writes what its body writes
(read the same way, helpers of helpers included).
"""

from __future__ import annotations

import re

from tree_sitter import Node

from tilewise.analysis.apis import COPIES, PIPES
from tilewise.analysis.source import SourceFile

_READS_ONLY = {"GetValue", "GetSize", "GetPhyAddr", "GetBlockIdx", "GetBlockNum", "FetchEventID", "Get"}
_APIS = set(PIPES) | set(COPIES)


def base_name(text: str) -> str:
    """`this->xLocal[off]` -> `xLocal`."""
    return re.split(r"[\[.(]", text.replace("this->", "").strip())[0].strip()


def _call_name(sf: SourceFile, fn: Node) -> tuple[str | None, str]:
    """(receiver text or None, the called name) of a call's function node."""
    if fn.type == "field_expression":
        return sf.node_text(fn.child_by_field_name("argument")), sf.node_text(fn.child_by_field_name("field"))
    if fn.type == "template_function":
        return None, sf.node_text(fn.child_by_field_name("name"))
    return None, sf.node_text(fn)


def _helpers(sf: SourceFile) -> dict[str, list[Node]]:
    """name -> the bodies of the functions of that name defined in the file."""
    out: dict[str, list[Node]] = {}
    stack = [sf.tree.root_node]
    while stack:
        n = stack.pop()
        if n.type == "function_definition":
            decl = n.child_by_field_name("declarator")
            m = re.search(r"(\w+)\s*\(", sf.node_text(decl))
            body = n.child_by_field_name("body")
            if m and body is not None:
                out.setdefault(m.group(1), []).append(body)
            continue
        stack.extend(n.children)
    return out


def written(sf: SourceFile, nodes: list[Node]) -> set[str]:
    """The names the given nodes (statements) may write; see the module docstring."""
    helpers = _helpers(sf)
    out: set[str] = set()
    seen: set[str] = set()
    stack = list(nodes)
    while stack:
        n = stack.pop()
        stack.extend(n.children)
        if n.type == "call_expression":
            fn = n.child_by_field_name("function")
            args_node = n.child_by_field_name("arguments")
            args = [sf.node_text(a) for a in args_node.named_children if a.type != "comment"] if args_node else []
            if fn is None:
                continue
            receiver, name = _call_name(sf, fn)
            if receiver == "this" and name in helpers:
                receiver = None  # `this->Compute(i)`: the kernel's own helper
            if receiver is not None:
                if name == "SetValue":
                    out.add(base_name(receiver))
                elif name not in _READS_ONLY:
                    out.update(base_name(a) for a in args)
            elif name in _APIS:
                if args:
                    out.add(base_name(args[0]))
            elif name in helpers:
                out.update(base_name(a) for a in args)
                if name not in seen:
                    seen.add(name)
                    stack.extend(helpers[name])
            else:
                out.update(base_name(a) for a in args)
        elif n.type in ("assignment_expression", "update_expression"):
            target = n.child_by_field_name("left") or n.child_by_field_name("argument")
            if target is not None:
                out.add(base_name(sf.node_text(target)))
        elif n.type == "init_declarator":
            out.add(base_name(sf.node_text(n.child_by_field_name("declarator"))))
    return out


def mentions(text: str, names: set[str]) -> bool:
    return any(re.search(rf"\b{re.escape(x)}\b", text) for x in names if x)
