"""The edits benchmarks/fuzz_lsp.py (and the Hypothesis test in tests/lsp/test_fuzz.py) make to AscendC sources:
each mutation is a pure function of the text and a seeded `random.Random`, returning one splice (start, end,
new text) in characters, so the same splice can go to the server as a whole document or as a ranged change.

Mutations: random deletions and insertions, truncation at a token, unbalanced braces and quotes, `#if` without
`#endif`, macro storms, binary and non-UTF-8 content, CRLF line ends. `lsp_lines` counts lines as an editor
does (LSP: `\\n`, `\\r\\n` and `\\r` end a line), and `lsp_position` is the position pygls applies a ranged change at.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

TOKEN_RE = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\S")
SNIPPETS = [
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    '"',
    "'",
    "/*",
    "*/",
    "//",
    "\\\n",
    ";",
    "::",
    "<",
    ">",
    "template <typename T>",
    "__aicore__ inline",
    'extern "C" __global__ __aicore__ void k(GM_ADDR x) {',
    "LocalTensor<half> t = inQueue.AllocTensor<half>();",
    "DataCopy(",
    "PipeBarrier<PIPE_ALL>();",
    "for (int i = 0; i < n; i++) {",
    "constexpr int32_t BUFFER_NUM = ",
    "0x",
    "1e309",
    "-2147483649",
    "99999999999999999999999",
    'R"(',
    "#",
    '#include "',
    "#include <kernel_operator.h>\n",
    "#pragma once\n",
    "#undef __aicore__\n",
    "#define __aicore__\n",
    "#line 0\n",
    "#error stop\n",
    "??=",
    "<<<",
    ">>>",
    "\t",
    "\n",
]
WEIRD = ["\x00", "\ufffd", "\ufeff", "\u2028", "\x0c", "\x0b", "\x1b[31m", "\udc80", "\U0001f600", "é", "\r", "\x85"]

Splice = tuple[int, int, str]


def _point(text: str, rng: random.Random) -> int:
    return rng.randint(0, len(text))


def _line_start(text: str, rng: random.Random) -> int:
    starts = [0, *(m.end() for m in re.finditer("\n", text))]
    return rng.choice(starts)


def delete(text: str, rng: random.Random) -> Splice:
    start = _point(text, rng)
    size = rng.choice([1, 1, 2, 5, 20, 200, 2000])
    return start, min(len(text), start + size), ""


def insert(text: str, rng: random.Random) -> Splice:
    at = _point(text, rng)
    words = TOKEN_RE.findall(text[max(0, at - 400) : at + 400]) or ["x"]
    pieces = [rng.choice(SNIPPETS) if rng.random() < 0.6 else rng.choice(words) for _ in range(rng.randint(1, 6))]
    return at, at, " ".join(pieces)


def truncate(text: str, rng: random.Random, token: int | None = None) -> Splice:
    """Cut the text at a token's start (`token`, else a random one): a file half typed, or half written."""
    starts = [m.start() for m in TOKEN_RE.finditer(text)] or [0]
    at = starts[(token if token is not None else rng.randrange(len(starts))) % len(starts)]
    return at, len(text), ""


def unbalance(text: str, rng: random.Random) -> Splice:
    """Add or remove one brace, bracket or quote."""
    marks = [m.start() for m in re.finditer(r"[{}()\"'\[\]<>]", text)]
    if marks and rng.random() < 0.5:
        at = rng.choice(marks)
        return at, at + 1, ""
    at = _point(text, rng)
    return at, at, rng.choice(list("{}()\"'[]<>")) * rng.choice([1, 1, 3, 50])


def open_conditional(text: str, rng: random.Random) -> Splice:
    """An `#if` without its `#endif` (or an `#endif` removed, or an `#else`/`#elif` out of place)."""
    endif = [m for m in re.finditer(r"^[ \t]*#\s*endif[^\n]*\n?", text, re.M)]
    if endif and rng.random() < 0.3:
        m = rng.choice(endif)
        return m.start(), m.end(), ""
    at = _line_start(text, rng)
    line = rng.choice(
        ["#if 0\n", "#if 1\n", "#ifdef ASCEND_FUZZ\n", "#ifndef X\n", "#if defined(\n", "#else\n", "#elif 1\n", "#if\n"]
    )
    return at, at, line * rng.choice([1, 1, 2, 30])


def macro_storm(text: str, rng: random.Random) -> Splice:
    """Macros defined in terms of each other (an exponential expansion), recursive ones, and ones that redefine
    the AscendC qualifiers and keywords, with their uses."""
    at = _line_start(text, rng)
    kind = rng.randrange(5)
    depth = rng.randint(2, 40)
    if kind == 0:
        lines = ["#define M0 x"] + [f"#define M{i} M{i - 1} M{i - 1}" for i in range(1, depth)]
        body = "\n".join(lines) + f"\nint storm = M{depth - 1};\n"
    elif kind == 1:
        body = "#define F(x) F(x) + G(x)\n#define G(x) F(x)\nint r = F(1);\n"
    elif kind == 2:
        word = rng.choice(["__aicore__", "__global__", "GM_ADDR", "inline", "class", "{", "for", "if", "template"])
        body = f"#define {word} {rng.choice(['', '{', '}', '(', word, 'x x'])}\n"
    elif kind == 3:
        body = "".join(f"#define D{i}(a, b) D{i}(b, a) ## a ## #b\n" for i in range(depth)) + "D0(1, 2)\n"
    else:  # values the preprocessor's arithmetic squares at every level
        lines = ["#define P0 3"] + [f"#define P{i} (P{i - 1} * P{i - 1} + 1)" for i in range(1, depth)]
        body = "\n".join(lines) + f"\n#if P{depth - 1} > 2\n#endif\n"
    return at, at, body


def binary(text: str, rng: random.Random) -> Splice:
    """Bytes that are not UTF-8 text, as an editor that decoded them hands them over: NULs, control characters,
    replacement characters, lone surrogates, Latin-1 decoded bytes, odd line separators."""
    at = _point(text, rng)
    if rng.random() < 0.5:
        raw = bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
        return at, at, raw.decode("latin-1")
    return at, at, "".join(rng.choice(WEIRD) for _ in range(rng.randint(1, 12)))


def crlf(text: str, rng: random.Random) -> Splice:
    """Windows line ends for the whole file (or a lone carriage return)."""
    if rng.random() < 0.7:
        return 0, len(text), text.replace("\r\n", "\n").replace("\n", "\r\n")
    at = _point(text, rng)
    return at, at, "\r"


MUTATIONS: dict[str, Callable[[str, random.Random], Splice]] = {
    "delete": delete,
    "insert": insert,
    "truncate": truncate,
    "unbalance": unbalance,
    "open-if": open_conditional,
    "macro-storm": macro_storm,
    "binary": binary,
    "crlf": crlf,
}
WEIGHTS = {
    "delete": 5,
    "insert": 5,
    "truncate": 2,
    "unbalance": 3,
    "open-if": 2,
    "macro-storm": 1,
    "binary": 1,
    "crlf": 1,
}


def pick(rng: random.Random) -> str:
    return rng.choices(list(WEIGHTS), weights=list(WEIGHTS.values()))[0]


def apply(text: str, splice: Splice) -> str:
    start, end, new = splice
    return text[:start] + new + text[end:]


def lsp_lines(text: str) -> int:
    """Lines as an editor counts them (LSP: `\\r\\n`, `\\r` and `\\n` end one); an empty text has one."""
    return len(re.findall(r"\r\n|\r|\n", text)) + 1


def lsp_position(text: str, offset: int) -> tuple[int, int]:
    """(line, UTF-16 column) of a character offset, as pygls reads a ranged change (`str.splitlines`)."""
    line = 0
    start = 0
    for piece in text.splitlines(True):
        if start + len(piece) > offset:
            break
        start += len(piece)
        line += 1
    return line, sum(2 if ord(c) > 0xFFFF else 1 for c in text[start:offset])


def big_file(text: str, lines: int) -> str:
    """A file of `lines` lines: `text`'s own lines repeated, so it is real code the passes must read."""
    body = text.splitlines() or ["int x;"]
    return "\n".join((body * (lines // len(body) + 1))[:lines]) + "\n"
