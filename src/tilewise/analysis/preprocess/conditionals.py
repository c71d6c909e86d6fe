"""Choose the `#if` / `#ifdef` / `#elif` / `#else` branch the AscendC device compiler compiles.

Public kernels keep a CPU-debug twin beside the device code (`#if defined(ASCENDC_CPU_DEBUG) ... #else <NPU code>
#endif`, `#ifndef __CCE_KT_TEST__`) and chip variants (`#if __CCE_AICORE__ == 220`). tree-sitter reads one text,
so every conditional keeps one branch and the others are blanked byte for byte (positions stay exact). The branch
is the one the device build of a 910B vector core compiles, where the condition is decidable from `DEVICE_DEFINES`,
`DEVICE_UNDEFINED` and macros `#define`d earlier in the same file; where it is not, the first branch (see
`neutralise_conditionals` for why not every
branch).

The configuration is the emulator's: `device/emulator/build.py` compiles kernels with `-D__CCE_AICORE__=220
-D__DAV_C220_VEC__`, so the model reads the text the emulator runs (tests/test_conditionals.py checks the two agree).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping

from tilewise.analysis.bounds import within_64_bits
from tilewise.analysis.preprocess.context import Mark, PassContext
from tilewise.analysis.preprocess.scan import blank

# What the device compiler defines for a 910B (Atlas A2) vector core, and g++ for the emulator: the vector side of
# a mix kernel (`#ifdef __DAV_C220_CUBE__ ... #elif __DAV_C220_VEC__`), as tilewise models the vector core.
DEVICE_DEFINES: dict[str, int] = {
    "__CCE_AICORE__": 220,
    "__DAV_C220_VEC__": 1,
    "__NPU_ARCH__": 2201,  # dav-c220's architecture number: `#if __NPU_ARCH__ == 2201` picks the A2/A3 path
    "__cplusplus": 201703,  # both compilers build C++17
}
# Known not to be defined in the device build (nor by the emulator): CPU-debug and unit-test builds, the cube side,
# other chips' core macros, FPGA bring-up.
DEVICE_UNDEFINED: frozenset[str] = frozenset(
    {
        "ASCENDC_CPU_DEBUG",
        "__CCE_KT_TEST__",
        "__CCE_UT_TEST__",
        "__DAV_C220_CUBE__",
        "__DAV_FPGA__",
        "__DAV_M200__",
        "__DAV_M200_VEC__",
        "__DAV_C310__",
        "__DAV_C310_VEC__",
        "__DAV_C310_CUBE__",
        "__DAV_M300__",
        "__DAV_L300__",
        "__DAV_L300_VEC__",
        "__DAV_T300__",
    }
)

# A directive with its continuation lines (`#if A && \` then `B`), also after a `\r\n`.
DIRECTIVE_RE = re.compile(
    rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif|define|undef)\b([^\n]*(?:(?:(?<=\\)|(?<=\\\r))\n[^\n]*)*)", re.M
)
_TOKEN_RE = re.compile(
    rb"\s*(?:(0[xX][0-9a-fA-F]+|\d+)[uUlL]*|([A-Za-z_]\w*)|(&&|\|\||==|!=|<=|>=|<<|>>|[()!<>+\-*/%?:~]))"
)
_COMMENT_RE = re.compile(rb"//[^\n]*|/\*.*?(?:\*/|\Z)", re.S)
_UNKNOWN = None  # an undecidable value

Value = int | None


class _Expr:
    """A recursive-descent reader of a `#if` expression in three-valued logic: a value is an int, or None when it
    depends on a macro whose value is not known (so `UNKNOWN && 0` is still 0, `UNKNOWN || 1` still 1)."""

    def __init__(self, text: bytes, macros: dict[str, Value], undefined: set[str]):
        self.tokens: list[bytes] = []
        self.ints: dict[int, int] = {}
        pos = 0
        text = text.rstrip()
        while pos < len(text):
            m = _TOKEN_RE.match(text, pos)
            if m is None:
                raise ValueError("not a preprocessor expression")
            if m.group(1):
                self.ints[len(self.tokens)] = int(m.group(1), 0) if not _octal(m.group(1)) else int(m.group(1), 8)
            self.tokens.append(m.group(1) or m.group(2) or m.group(3))
            pos = m.end()
        self.i = 0
        self.macros, self.undefined = macros, undefined

    def value(self) -> Value:
        v = self._ternary()
        if self.i != len(self.tokens):
            raise ValueError("trailing tokens")
        return v

    def _peek(self) -> bytes:
        return self.tokens[self.i] if self.i < len(self.tokens) else b""

    def _take(self, tok: bytes) -> None:
        if self._peek() != tok:
            raise ValueError(f"expected {tok!r}")
        self.i += 1

    def _ternary(self) -> Value:
        cond = self._binary(0)
        if self._peek() != b"?":
            return cond
        self.i += 1
        a = self._ternary()
        self._take(b":")
        b = self._ternary()
        if cond is None:
            return a if a == b else None
        return a if cond else b

    _LEVELS = (
        (b"||",),
        (b"&&",),
        (b"==", b"!="),
        (b"<", b"<=", b">", b">="),
        (b"<<", b">>"),
        (b"+", b"-"),
        (b"*", b"/", b"%"),
    )

    def _binary(self, level: int) -> Value:
        if level == len(self._LEVELS):
            return self._unary()
        left = self._binary(level + 1)
        while self._peek() in self._LEVELS[level]:
            op = self.tokens[self.i]
            self.i += 1
            right = self._binary(level + 1)
            left = _apply(op, left, right)
        return left

    def _unary(self) -> Value:
        tok = self._peek()
        if tok in (b"!", b"-", b"+", b"~"):
            self.i += 1
            v = self._unary()
            if v is None:
                return None
            return {b"!": int(not v), b"-": -v, b"+": v, b"~": ~v}[tok]
        if tok == b"(":
            self.i += 1
            v = self._ternary()
            self._take(b")")
            return v
        if tok == b"defined":
            self.i += 1
            paren = self._peek() == b"("
            if paren:
                self.i += 1
            name = self._peek().decode("utf-8", "replace")
            self.i += 1
            if paren:
                self._take(b")")
            return is_defined(name, self.macros, self.undefined)
        if self.i in self.ints:
            self.i += 1
            return self.ints[self.i - 1]
        if tok[:1].isalpha() or tok[:1] == b"_":
            self.i += 1
            if self._peek() == b"(":
                raise ValueError("a function-like macro")  # its expansion is not known here
            name = tok.decode()
            if name in ("true", "false"):
                return int(name == "true")
            if name in self.macros:
                return self.macros[name]
            # An identifier no one defined reads as 0; only the known configuration can say no one did.
            return 0 if name in self.undefined else None
        raise ValueError(f"unexpected {tok!r}")


def _octal(lit: bytes) -> bool:
    return len(lit) > 1 and lit[:1] == b"0" and lit[1:2] not in (b"x", b"X")


def _apply(op: bytes, a: Value, b: Value) -> Value:
    if op == b"&&":
        if a == 0 or b == 0:
            return 0
        return None if a is None or b is None else 1
    if op == b"||":
        if (a is not None and a != 0) or (b is not None and b != 0):
            return 1
        return None if a is None or b is None else 0
    if a is None or b is None:
        return None
    if op in (b"/", b"%") and b == 0:
        return None  # the real preprocessor rejects it; not ours to decide
    value = {
        b"==": lambda: int(a == b),
        b"!=": lambda: int(a != b),
        b"<": lambda: int(a < b),
        b"<=": lambda: int(a <= b),
        b">": lambda: int(a > b),
        b">=": lambda: int(a >= b),
        b"<<": lambda: a << min(b, 64),
        b">>": lambda: a >> b,
        b"+": lambda: a + b,
        b"-": lambda: a - b,
        b"*": lambda: a * b,
        b"/": lambda: int(a / b),
        b"%": lambda: a - b * int(a / b),
    }[op]()
    # The preprocessor computes in 64 bits: a value past them is undecidable here (analysis/bounds.py).
    return within_64_bits(value)


def is_defined(name: str, macros: Mapping[str, Value], undefined: set[str]) -> Value:
    if name in macros:
        return 1
    return 0 if name in undefined else None


def evaluate(condition: bytes, macros: dict[str, Value] | None = None, undefined: set[str] | None = None) -> Value:
    """The value of a `#if` condition under the device configuration (plus `macros` / `undefined`), or None when
    it is undecidable (it reads a macro the configuration does not know, or is not a plain integer expression)."""
    macros = dict(DEVICE_DEFINES) if macros is None else macros
    undefined = set(DEVICE_UNDEFINED) if undefined is None else undefined
    text = _COMMENT_RE.sub(b" ", condition.replace(b"\\\n", b" ").replace(b"\\\r\n", b" "))
    if not text.strip():
        return None
    try:
        return _Expr(text, macros, undefined).value()
    except (ValueError, RecursionError, OverflowError):
        return None


def _branch_state(kind: bytes, rest: bytes, macros: dict[str, Value], undefined: set[str]) -> Value:
    """The condition of an `#if` / `#ifdef` / `#ifndef` / `#elif` line."""
    if kind == b"if" or kind == b"elif":
        return evaluate(rest, macros, undefined)
    words = _COMMENT_RE.sub(b" ", rest).split()
    if not words:
        return None
    known = is_defined(words[0].decode("utf-8", "replace"), macros, undefined)
    if kind == b"ifndef" and known is not None:
        return int(not known)
    return known


def _define(rest: bytes, macros: dict[str, Value], undefined: set[str]) -> None:
    """Record `#define NAME value` for later conditions: the value when it is an integer expression of known
    macros, else defined with no usable value."""
    m = re.match(rb"\s*([A-Za-z_]\w*)(\(?)", rest)
    if m is None:
        return
    name = m.group(1).decode()
    undefined.discard(name)
    body = rest[m.end() :] if not m.group(2) else b""
    macros[name] = evaluate(body, macros, undefined) if body.strip() else None


def neutralise_conditionals(ctx: PassContext) -> None:
    """Keep the branch the device compiles of every conditional and blank the others and the directive lines.

    Where a condition is undecidable the first branch is kept, as before this module. Reading every undecidable
    branch (for the declarations in each) was considered and rejected: branches are alternatives, so they often
    split one statement between them (`} else if (...) {` in one branch only) or declare the same queue, member
    or constant twice with different values, which would be false syntax errors and doubled queues, InitBuffer
    sizes and knobs in the model. After deciding the device configuration, few undecidable branches remain.

    A whole-file pass: it ignores `ctx.lo` and `ctx.hi` (`reprocess` gives up on a window holding a directive)."""
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out

    macros: dict[str, Value] = dict(DEVICE_DEFINES)
    undefined: set[str] = set(DEVICE_UNDEFINED)
    # Per open conditional: (the enclosing text is read, a branch was already chosen, this branch is read).
    stack: list[tuple[bool, bool, bool]] = []
    active = True
    blank_from = 0
    blanked: list[tuple[int, int]] = []
    for m in DIRECTIVE_RE.finditer(src):
        start = src.index(b"#", m.start())
        if opaque.contains(start):
            continue
        kind, rest = m.group(1), m.group(2)
        if kind in (b"define", b"undef"):
            if active:
                if kind == b"define":
                    _define(rest, macros, undefined)
                elif rest.split():
                    name = rest.split()[0].decode("utf-8", "replace")
                    macros.pop(name, None)
                    undefined.add(name)
            out.calls.append((start, m.end()))  # an edit cutting through a (multi-line) #define is not local
            continue
        was_active = active
        if kind in (b"if", b"ifdef", b"ifndef"):
            take = active and _branch_state(kind, rest, macros, undefined) != 0
            stack.append((active, take, take))
            active = take
        elif kind in (b"elif", b"else") and stack:
            out.far_reaching = True  # which branch text is blanked depends on directives anywhere above
            outer, chosen, _ = stack[-1]
            take = outer and not chosen and (kind == b"else" or _branch_state(kind, rest, macros, undefined) != 0)
            stack[-1] = (outer, chosen or take, take)
            active = take
        elif kind == b"endif" and stack:
            active = stack.pop()[0]
        if was_active and not active:
            blank_from = m.end()
        elif active and not was_active:
            blanked.append((blank_from, start))
        end = m.end()
        comment = src.find(b"/*", start, end)
        while comment >= 0:
            if opaque.start_of(comment) == comment and opaque.end_of(comment) > end:
                end = comment  # a `/*` comment running past the directive's line stays a comment
                break
            comment = src.find(b"/*", comment + 2, end)
        blank(buf, start, end)
        out.marks.append(Mark("conditional", kind.decode(), start, m.end()))
    if not active:
        blanked.append((blank_from, len(src)))
    if blanked:
        out.far_reaching = True  # an edit to any directive above can bring a blanked branch back
        for a, b in blanked:
            blank(buf, a, b)
        starts = [a for a, _ in blanked]

        def inactive(pos: int) -> bool:
            k = bisect.bisect_right(starts, pos) - 1
            return k >= 0 and blanked[k][0] <= pos < blanked[k][1]

        # What was neutralised in a branch the device does not compile is not in the operator model either.
        out.marks = [mk for mk in out.marks if mk.kind == "conditional" or not inactive(mk.start)]
