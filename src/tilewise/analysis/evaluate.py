"""Constant evaluation and alignment reasoning over C++ expressions.

Two questions the rules ask of an expression such as `tileLength * sizeof(half)`:
- `value`: what integer is it, when every name in it is a known constant?
- `divisor`: what is it certainly a multiple of, even when some names are unknown? (`n * 32` is a multiple of 32.)
"""

from __future__ import annotations

import math
import re

from tree_sitter import Node

from tilewise.analysis.bounds import shift_count, within_64_bits

TYPE_SIZES = {
    "half": 2,
    "float16_t": 2,
    "__fp16": 2,
    "bfloat16_t": 2,
    "float": 4,
    "float32_t": 4,
    "double": 8,
    "int8_t": 1,
    "uint8_t": 1,
    "char": 1,
    "bool": 1,
    "int16_t": 2,
    "uint16_t": 2,
    "short": 2,
    "int32_t": 4,
    "uint32_t": 4,
    "int": 4,
    "unsigned": 4,
    "int64_t": 8,
    "uint64_t": 8,
    "long": 8,
    "size_t": 8,
}
_INT_RE = re.compile(r"^(0[xX][0-9a-fA-F']+|0[bB][01']+|[0-9][0-9']*)([uUlL]*)$")
_MEMBER_PREFIXES = ("this->",)
_CASTS = ("static_cast", "reinterpret_cast", "int32_t", "uint32_t", "int64_t", "uint64_t", "size_t", "int")


def _callee(text: str) -> str:
    """`std::min<uint32_t>` -> `min`, `static_cast<uint32_t>` -> `static_cast`."""
    return re.sub(r"<.*>", "", text).split("::")[-1].strip()


def parse_int_literal(text: str) -> int | None:
    m = _INT_RE.match(text.strip())
    if not m:
        return None
    body = m.group(1).replace("'", "")
    if body.lower().startswith("0x"):
        return int(body, 16)
    if body.lower().startswith("0b"):
        return int(body[2:], 2)
    if len(body) > 1 and body.startswith("0"):
        return int(body, 8)
    return int(body)


class Evaluator:
    """Evaluates expressions against an environment of named integer constants.

    `text_of` returns the user's text of a node; `env` maps names (plain, or the last part of `a.b`, `this->b`)
    to values; `type_sizes` adds sizes for names such as `DTYPE_X` or template parameters bound for one case.
    """

    def __init__(self, text_of, env: dict[str, int] | None = None, type_sizes: dict[str, int] | None = None):
        self.text_of = text_of
        self.env = env if env is not None else {}
        self.type_sizes = {**TYPE_SIZES, **(type_sizes or {})}

    # ---- exact value ---------------------------------------------------------------------------------------
    def value(self, node: Node | None) -> int | None:
        if node is None:
            return None
        t = node.type
        if t == "number_literal":
            return parse_int_literal(self.text_of(node))
        if t in ("true", "false"):
            return int(t == "true")
        if t in ("identifier", "qualified_identifier", "field_expression"):
            return self.env.get(self.name_of(node))
        if t == "parenthesized_expression":
            return self.value(node.named_children[0]) if node.named_children else None
        if t == "cast_expression":
            return self.value(node.child_by_field_name("value"))
        if t == "sizeof_expression":
            return self.sizeof(node)
        if t == "unary_expression":
            v = self.value(node.child_by_field_name("argument"))
            op = self.text_of(node.child_by_field_name("operator") or node.children[0])
            if v is None:
                return None
            return {"-": -v, "+": v, "~": ~v, "!": int(not v)}.get(op)
        if t == "binary_expression":
            return self._binary(node)
        if t == "conditional_expression":
            c = self.value(node.child_by_field_name("condition"))
            if c is None:
                return None
            return self.value(node.child_by_field_name("consequence" if c else "alternative"))
        if t == "call_expression":
            return self._call(node)
        return None

    def _binary(self, node: Node) -> int | None:
        a = self.value(node.child_by_field_name("left"))
        b = self.value(node.child_by_field_name("right"))
        if a is None or b is None:
            return None
        operator = node.child_by_field_name("operator")
        if operator is None:
            return None
        op = operator.type
        try:
            value = {
                "+": lambda: a + b,
                "-": lambda: a - b,
                "*": lambda: a * b,
                "/": lambda: int(a / b) if b else None,
                "%": lambda: a % b if b else None,
                "<<": lambda: a << b if shift_count(b) else None,
                ">>": lambda: a >> b if shift_count(b) else None,
                "&": lambda: a & b,
                "|": lambda: a | b,
                "^": lambda: a ^ b,
                "<": lambda: int(a < b),
                ">": lambda: int(a > b),
                "<=": lambda: int(a <= b),
                ">=": lambda: int(a >= b),
                "==": lambda: int(a == b),
                "!=": lambda: int(a != b),
                "&&": lambda: int(bool(a and b)),
                "||": lambda: int(bool(a or b)),
            }[op]()
        except KeyError:
            return None
        # C++ computes in at most 64 bits: a value past them is unknown here (analysis/bounds.py).
        return within_64_bits(value)

    def _call(self, node: Node) -> int | None:
        fn = _callee(self.text_of(node.child_by_field_name("function")))
        arguments = node.child_by_field_name("arguments")
        if arguments is None:
            return None
        args = [c for c in arguments.named_children if c.type != "comment"]
        vals = [v for v in (self.value(a) for a in args) if v is not None]
        if len(vals) != len(args):
            return None
        if fn == "min" and vals:
            return min(vals)
        if fn == "max" and vals:
            return max(vals)
        if fn in _CASTS and len(vals) == 1:
            return vals[0]
        return None

    def upper_bound(self, node: Node | None) -> int | None:
        """An upper bound: `std::min(8, coreNum)` is at most 8 even when coreNum is unknown."""
        if node is None:
            return None
        v = self.value(node)
        if v is not None:
            return v
        if node.type == "call_expression":
            fn = _callee(self.text_of(node.child_by_field_name("function")))
            arguments = node.child_by_field_name("arguments")
            if fn == "min" and arguments is not None:
                bounds = [self.upper_bound(a) for a in arguments.named_children]
                known = [b for b in bounds if b is not None]
                return min(known) if known else None
        if node.type in ("parenthesized_expression", "cast_expression"):
            inner = node.child_by_field_name("value") or (node.named_children[0] if node.named_children else None)
            return self.upper_bound(inner)
        return None

    def sizeof(self, node: Node) -> int | None:
        target = node.child_by_field_name("type") or node.child_by_field_name("value")
        if target is None:
            return None
        name = self.text_of(target).strip("() ").replace("AscendC::", "")
        return self.type_sizes.get(name)

    def name_of(self, node: Node) -> str:
        text = self.text_of(node).replace(" ", "")
        for prefix in _MEMBER_PREFIXES:
            if text.startswith(prefix):
                text = text[len(prefix) :]
        return re.split(r"\.|->|::", text)[-1]

    # ---- certain divisor -----------------------------------------------------------------------------------
    def divisor(self, node: Node | None) -> int:
        """The largest d known to divide the expression's value (1 when nothing is known, 0 for zero)."""
        if node is None:
            return 1
        v = self.value(node)
        if v is not None:
            return abs(v)
        t = node.type
        if t in ("parenthesized_expression",) and node.named_children:
            return self.divisor(node.named_children[0])
        if t == "cast_expression":
            return self.divisor(node.child_by_field_name("value"))
        if t == "call_expression" and _callee(self.text_of(node.child_by_field_name("function"))) in _CASTS:
            arguments = node.child_by_field_name("arguments")
            args = [c for c in arguments.named_children if c.type != "comment"] if arguments is not None else []
            return self.divisor(args[0]) if len(args) == 1 else 1
        if t == "binary_expression":
            operator = node.child_by_field_name("operator")
            op = operator.type if operator is not None else None
            a = self.divisor(node.child_by_field_name("left"))
            b = self.divisor(node.child_by_field_name("right"))
            if op == "*":
                return a * b
            if op in ("+", "-"):
                return math.gcd(a, b)
            if op == "<<":
                shift = self.value(node.child_by_field_name("right"))
                return a << shift if shift is not None and 0 <= shift < 32 else a
        return 1
