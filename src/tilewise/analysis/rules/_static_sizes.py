"""Buffer sizes that are constant although the model could not evaluate them: named through members and tiling.

A kernel often sizes a queue through a member (`this->tileLength = TILE_LENGTH;` then
`InitBuffer(q, BUFFER_NUM, this->tileLength * sizeof(half))`), a class-scope constant (`const int HALF_UB = 128 *
1024;`), or a tiling field that the host sets to a constant (`tiling.set_tileLength(TILE_LENGTH)` read as
`tilingData.tileLength`). The static fit test of single-buffer can use those values: each name is resolved only when
the code gives it exactly one constant value (a member or field assigned twice, or from anything run-time, stays
unknown), so a size resolved here is the size every run uses.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable

from tilewise.analysis.bounds import shift_count, within_64_bits

_CONST_DECL = re.compile(
    r"\b(?:static\s+|inline\s+)*(?:const|constexpr)\s+(?:static\s+)?(?:unsigned\s+)?[\w:]+\s+"
    r"([A-Za-z_]\w*)\s*=\s*([^;{}]+);"
)
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([^\n]+)$", re.MULTILINE)
_ASSIGN = re.compile(r"(?<![\w.>])(?:this->)?([A-Za-z_]\w*)\s*=(?!=)\s*([^;{}]+);")
_HOST_SET = re.compile(r"\bset_([A-Za-z_]\w*)\s*\(([^;]*)\)\s*;|(?:->|\.)([A-Za-z_]\w*)\s*=(?!=)\s*([^;{}]+);")
_FIELD_READ = re.compile(r"\b[A-Za-z_]\w*\s*(?:\.|->)\s*([A-Za-z_]\w*)")
_CAST = re.compile(
    r"static_cast\s*<[^<>]*>|reinterpret_cast\s*<[^<>]*>|\(\s*(?:u?int\d+_t|int|unsigned|size_t|"
    r"uint|long|float|half)\s*\)"
)
_SUFFIX = re.compile(r"\b(\d+)[uUlL]+\b")
_SIZEOF = {
    "half": 2,
    "float16_t": 2,
    "bfloat16_t": 2,
    "int16_t": 2,
    "uint16_t": 2,
    "float": 4,
    "int32_t": 4,
    "uint32_t": 4,
    "int": 4,
    "int8_t": 1,
    "uint8_t": 1,
    "int64_t": 8,
    "uint64_t": 8,
    "double": 8,
    "float32_t": 4,
    "char": 1,
    "bool": 1,
}


def resolve_size(ctx, text: str) -> int | None:
    """The value of a size expression from the kernel's text, when every name in it has one constant value."""
    return _evaluate(text, _env(ctx))


def _env(ctx) -> dict[str, int]:
    found = ctx.__dict__.get("_static_size_env")
    if found is not None:
        return found
    env: dict[str, int] = {k.name: k.value for k in ctx.model.knobs if k.side == "kernel"}
    host_env: dict[str, int] = {k.name: k.value for k in ctx.model.knobs if k.side == "host"}
    kernel_text = _texts(ctx, ctx.model.kernel_files)
    host_text = _texts(ctx, ctx.model.host_files)
    _constants(kernel_text, env)
    _constants(host_text, host_env)
    # Tiling fields the host sets exactly once, to a constant: read in the kernel through the tiling struct.
    fields: dict[str, list[int | None]] = {}
    for m in _HOST_SET.finditer(host_text):
        name, expr = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        fields.setdefault(name, []).append(_evaluate(expr, host_env))
    field_env = {f: v[0] for f, v in fields.items() if len(v) == 1 and v[0] is not None}
    # Members (and locals) the kernel assigns exactly once, from a constant or a constant tiling field.
    assigned: dict[str, list[str]] = {}
    for m in _ASSIGN.finditer(kernel_text):
        assigned.setdefault(m.group(1), []).append(m.group(2))
    for name, exprs in assigned.items():
        if len(exprs) == 1 and name not in env:
            value = _evaluate(exprs[0], env, field_env)
            if value is not None:
                env[name] = value
    env["__fields__"] = field_env  # type: ignore[assignment]
    ctx.__dict__["_static_size_env"] = env
    return env


def _texts(ctx, files: list[str]) -> str:
    out = []
    for p in files:
        sf = ctx.sources.get(p)
        if sf is not None:
            out.append(re.sub(r"//[^\n]*|/\*.*?\*/", " ", sf.data.decode("utf-8", "replace"), flags=re.DOTALL))
    return "\n".join(out)


def _constants(text: str, env: dict[str, int]) -> None:
    """Named constants (const/constexpr declarations, object-like #defines) defined once, in two passes so one
    may use another."""
    seen: dict[str, list[str]] = {}
    for m in _CONST_DECL.finditer(text):
        seen.setdefault(m.group(1), []).append(m.group(2))
    for m in _DEFINE.finditer(text):
        seen.setdefault(m.group(1), []).append(m.group(2))
    for _ in range(2):
        for name, exprs in seen.items():
            if name not in env and len(set(exprs)) == 1:
                value = _evaluate(exprs[0], env)
                if value is not None:
                    env[name] = value


def _evaluate(text: str, env: dict, fields: dict[str, int] | None = None) -> int | None:
    fields = fields if fields is not None else env.get("__fields__", {})
    expr = re.sub(
        r"\bsizeof\s*\(\s*([\w:]+)\s*\)",
        lambda m: str(_SIZEOF.get(m.group(1).split("::")[-1], "?")),
        text.replace("this->", ""),
    )
    expr = _SUFFIX.sub(r"\1", _CAST.sub("", expr))
    expr = _FIELD_READ.sub(lambda m: str(fields[m.group(1)]) if m.group(1) in fields else "?", expr)

    def name(m: re.Match) -> str:
        v = env.get(m.group(0).split("::")[-1])
        return str(v) if isinstance(v, int) else "?"

    expr = re.sub(r"[A-Za-z_][\w:]*", name, expr)
    if not re.fullmatch(r"[\d\s+\-*/%()<>]*", expr) or not re.search(r"\d", expr) or "**" in expr:
        return None
    try:
        value = _fold(ast.parse(expr.strip().replace("/", "//"), mode="eval").body)  # digits and operators only
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # malformed, or nested past Python's parser
        return None
    return value if value is not None and value >= 0 else None


_OPERATORS: dict[type, Callable[[int, int], int]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}


def _fold(node: ast.expr) -> int | None:
    """The value of an arithmetic expression of integers, each step within 64 bits as C++ computes (a value past
    them is unknown: analysis/bounds.py); anything else (a comparison, a float) is unknown."""
    if isinstance(node, ast.Constant):
        return within_64_bits(node.value) if type(node.value) is int else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _fold(node.operand)
        return None if v is None else within_64_bits(-v if isinstance(node.op, ast.USub) else v)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        a, b = _fold(node.left), _fold(node.right)
        if a is None or b is None:
            return None
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and b == 0:
            return None
        if isinstance(node.op, (ast.LShift, ast.RShift)) and not shift_count(b):
            return None
        return within_64_bits(_OPERATORS[type(node.op)](a, b))
    return None
