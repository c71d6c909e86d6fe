"""Scanning and rewriting helpers the preprocessing passes share: brackets matched and arguments split outside
comments and literals, byte-for-byte blanking, and the few questions several passes ask about a position (is it
on a `#define`'s continuation line, does a declaration start here, do declarations stand in its scope)."""

from __future__ import annotations

import re

from tilewise.analysis.preprocess.context import Arg, Opaque

WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")

_PAREN_RE = re.compile(rb"[()]")
_ARG_RE = re.compile(rb"[()\[\]{},]")


def match_paren(src: bytes, open_pos: int, opaque: Opaque) -> int:
    """Index of the ')' closing the '(' at open_pos, or -1 when the text ends first (a half-typed file)."""
    depth = 0
    pos = open_pos
    while True:
        m = _PAREN_RE.search(src, pos)
        if m is None:
            return -1
        i = m.start()
        skip = opaque.end_of(i)
        if skip != i:
            pos = skip
            continue
        depth += 1 if src[i] == 0x28 else -1
        if depth == 0:
            return i
        pos = i + 1


def split_args(src: bytes, start: int, end: int, opaque: Opaque) -> tuple[Arg, ...]:
    """Split src[start:end] on top-level commas into stripped arguments with their byte ranges."""
    cuts = [start - 1]
    depth, pos = 0, start
    while True:
        m = _ARG_RE.search(src, pos, end)
        if m is None:
            break
        i = m.start()
        skip = opaque.end_of(i)
        if skip != i:
            pos = skip
            continue
        c = src[i]
        if c in (0x28, 0x5B, 0x7B):
            depth += 1
        elif c in (0x29, 0x5D, 0x7D):
            depth -= 1
        elif depth == 0:
            cuts.append(i)
        pos = i + 1
    cuts.append(end)
    args: list[Arg] = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        raw = src[a + 1 : b]
        stripped = raw.strip()
        if stripped:
            s = a + 1 + len(raw) - len(raw.lstrip())
            args.append(Arg(stripped.decode("utf-8", "replace"), s, s + len(stripped)))
    return tuple(args)


_SPACE_RE = re.compile(rb"\s*")


def past_space(src: bytes, pos: int) -> int:
    """The offset of the first non-space byte at or after `pos`."""
    m = _SPACE_RE.match(src, pos)
    return m.end() if m else pos  # `\s*` matches at any position: the fallback only satisfies the type checker


_SPLICE_RE = re.compile(rb"\\(?=\r?\n)")


def blank(buf: bytearray, start: int, end: int) -> None:
    """Overwrite buf[start:end] with spaces, keeping its line breaks (and line-ending backslashes)."""
    chunk = bytes(buf[start:end])
    blanked = re.sub(rb"[^\r\n]", b" ", chunk)
    if b"\\" in chunk:
        # A line-ending backslash stays: inside a #define body (a macro call blanked there) it is what keeps the
        # body going; elsewhere it is a line splice, which the grammar reads as blank.
        keep = bytearray(blanked)
        for m in _SPLICE_RE.finditer(bytes(buf[start : end + 2])):
            if m.start() < len(keep):
                keep[m.start()] = 0x5C
        blanked = bytes(keep)
    buf[start:end] = blanked


def put(buf: bytearray, pos: int, token: bytes) -> None:
    """Write `token` over the bytes at pos (the caller keeps the length)."""
    buf[pos : pos + len(token)] = token


def on_continuation_line(src: bytes, pos: int) -> bool:
    """Whether pos's line continues the one before (a `\\` ends it): a `#define` body, where a macro call or word
    is the body's text, not code to rewrite."""
    line_start = src.rfind(b"\n", 0, pos) + 1
    return line_start > 0 and src[: line_start - 1].rstrip(b"\r").endswith(b"\\")


# Words a declaration can start with (after an export or template-head macro).
_DECL_WORDS = frozenset(
    b"""void static inline extern constexpr class struct template typename bool int float double
    char unsigned signed long short auto virtual explicit friend enum union namespace using typedef const""".split()
)
_WORD_RE = re.compile(rb"[A-Za-z_]\w*")
# `Type name(`, `ns::Type<A, B>* name;`: a type then a declarator, so a macro word before it is an export macro.
_TYPED_DECL_RE = re.compile(rb"[A-Za-z_][\w:]*(?:[ \t]*<[^;{}()\n]*>)?[ \t*&]+[A-Za-z_~][\w:~]*[ \t]*[(;=\[{]")


def starts_declaration(text: bytes, depth: int = 0) -> bool:
    """Whether `text` (a line's rest) reads as the start of a declaration."""
    w = _WORD_RE.match(text)
    if w is None:
        return False
    word = w.group(0)
    if word in (b"const", b"volatile"):  # `DTYPE_X const y = 1;`: a type, then a qualifier, then a name
        return depth < 3 and starts_declaration(text[w.end() :].lstrip(), depth + 1)
    if word in _DECL_WORDS or (word.startswith(b"__") and word.endswith(b"__")):
        return True
    if word.isupper() and depth < 3 and len(word) > 2:
        after = text[w.end() :].lstrip()
        if after and starts_declaration(after, depth + 1):
            return True
    return _TYPED_DECL_RE.match(text) is not None and not text.startswith((b"return", b"delete", b"new"))


_SCOPE_HEAD_RE = re.compile(rb"\b(class|struct|union|namespace)\b[^;{}()]*$|\bextern[ \t]+\"C\"[ \t]*$")
_BRACE_RE = re.compile(rb"[{}]")
SCOPE_SCAN = 16384  # how far back the enclosing `{` is looked for


def declaration_scope(src: bytes, opaque: Opaque, pos: int) -> int | None:
    """Where the scope enclosing pos starts when declarations, not statements, stand there: the head of the class,
    struct, union, namespace or extern "C" block, or -1 at file scope; None in a function body or when unsure."""
    stop = max(0, pos - SCOPE_SCAN)
    depth = 0
    for b in reversed([m.start() for m in _BRACE_RE.finditer(src, stop, pos)]):
        if opaque.contains(b):
            continue
        if src[b] == 0x7D:
            depth += 1
        elif depth:
            depth -= 1
        else:
            head_start = max(src.rfind(b";", 0, b), src.rfind(b"}", 0, b), src.rfind(b"{", 0, b)) + 1
            head = re.sub(rb"//[^\n]*|/\*.*?\*/", b" ", src[head_start:b], flags=re.S).rstrip()
            hm = _SCOPE_HEAD_RE.search(head)
            return head_start + hm.start() if hm else None
    return -1 if stop == 0 and depth == 0 else None
