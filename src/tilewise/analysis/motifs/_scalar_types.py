"""The C++ scalar facts an element loop's reading needs: the element types by family and their canonical
spellings, the usual arithmetic conversions, which literals a type holds exactly, and the declared type of a name
seen from a function (read once per file text: a regex over a 2000-line kernel per name took seconds)."""

from __future__ import annotations

import re
import struct

from tree_sitter import Node

from tilewise.analysis.source import SourceFile

FLOATS = frozenset(("half", "float", "bfloat16_t", "float16_t", "float32_t", "double", "__fp16"))
INTS = frozenset(
    ("int", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t", "unsigned")
)
_CANON = {"float16_t": "half", "__fp16": "half", "float32_t": "float", "int": "int32_t", "unsigned": "uint32_t"}


def canon(t: str) -> str:
    t = re.sub(r"\s+", " ", t.replace("const ", "").strip())
    return _CANON.get(t, t)


def arithmetic(a: str, b: str) -> str:
    if "double" in (a, b):
        return "double"
    if a in FLOATS or b in FLOATS:
        return "float"
    if "int64_t" in (a, b) or "uint64_t" in (a, b):
        return "int64_t"
    return "uint32_t" if "uint32_t" in (a, b) else "int32_t"


def literal_fits(value: float, to: str) -> bool:
    """Whether a literal's value is one of type `to`."""
    return (to in INTS or to in FLOATS) and literal_exact(repr(value), canon(to))


def literal_exact(text: str, t: str) -> bool:
    """Whether a numeric literal's value is exactly a value of type `t`."""
    try:
        v = float(re.sub(r"[fFuUlL]+$", "", text.strip().strip("()")))
    except ValueError:
        return False
    try:
        as_float = struct.unpack("f", struct.pack("f", v))[0]
        if t == "half":
            return float(struct.unpack("e", struct.pack("e", v))[0]) == v
    except OverflowError:
        return t == "double"
    if t in ("float", "double"):
        return t == "double" or as_float == v
    if t == "bfloat16_t":
        return as_float == v and struct.unpack("I", struct.pack("f", v))[0] & 0xFFFF == 0
    return v == int(v) and abs(v) < 2**15


def literal_type(text: str) -> str:
    t = text.lower()
    if t.startswith("0x"):
        return "uint32_t" if "u" in t else "int32_t"
    if "." in t or "e" in t:
        return "float" if t.endswith("f") else "double"
    return "uint32_t" if "u" in t else "int32_t"


def declared_type(sf: SourceFile, fn: Node, name: str) -> str | None:
    """The declared type of `name` seen from function `fn`: a parameter or local of the function, else a member or
    global of the file (`LocalTensor<T>`, `float`)."""
    found = _declarations(sf, fn).get(name)
    if found is None:
        key = (sf.path, hash(sf.text))
        if key not in _FILE_DECLS:
            if len(_FILE_DECLS) > 64:
                _FILE_DECLS.clear()
            _FILE_DECLS[key] = _declarations(sf, sf.tree.root_node)
        found = _FILE_DECLS[key].get(name)
    return found


_FILE_DECLS: dict[tuple[str, int], dict[str, str]] = {}  # a file's declarations, read once per text
_DECLARING = ("declaration", "field_declaration", "parameter_declaration", "optional_parameter_declaration")
_WRAPPERS = ("init_declarator", "reference_declarator", "pointer_declarator", "array_declarator")


def _declarations(sf: SourceFile, root: Node) -> dict[str, str]:
    """name -> the type text of each declaration, member and parameter under `root` (the first one of a name)."""
    out: dict[str, str] = {}
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type in _DECLARING:
            t = n.child_by_field_name("type")
            for declarator in n.children_by_field_name("declarator") if t is not None else []:
                d: Node | None = declarator
                while d is not None and d.type in _WRAPPERS:
                    d = d.child_by_field_name("declarator") or (d.named_children[0] if d.named_children else None)
                if d is not None and t is not None and d.type in ("identifier", "field_identifier"):
                    out.setdefault(sf.node_text(d), sf.node_text(t))
        stack.extend(reversed(n.named_children))
    return out


def number(text: str) -> float | None:
    """The value of a numeric literal (signs and parentheses around it allowed), else None."""
    t = text.strip()
    sign = 1.0
    while t.startswith(("-", "(", "+")) or t.endswith(")"):
        if t.startswith("-"):
            sign, t = -sign, t[1:].strip()
        elif t.startswith("+"):
            t = t[1:].strip()
        elif t.startswith("(") and t.endswith(")"):
            t = t[1:-1].strip()
        else:
            return None
    if not re.fullmatch(r"(?:0[xX][0-9a-fA-F]+|\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)[fFuUlL]*", t):
        return None
    body = re.sub(r"[fFuUlL]+$", "", t) if not t.lower().startswith("0x") else t.rstrip("uUlL")
    return sign * (float(int(body, 16)) if body.lower().startswith("0x") else float(body))
