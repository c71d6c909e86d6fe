"""Make AscendC digestible for tree-sitter-cpp without moving a single byte.

tree-sitter-cpp reads standard C++. AscendC adds function/pointer qualifiers (`__aicore__`, `__gm__`), the
tiling-struct macros, `<<<...>>>` kernel launches, and (in public code) statement-like macros with control flow in
their arguments. Each of these is *neutralised*: overwritten in place with text of exactly the same byte length
(spaces, or a token that keeps the C++ well formed). Byte offsets, lines and columns therefore map 1:1 between the
user's text and the parsed text, and what the user wrote is kept as `Mark`s for the operator model.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from tilewise.analysis.conditionals import DIRECTIVE_RE, neutralise_conditionals

QUALIFIERS = (
    b"__aicore__",
    b"__global__",
    b"__gm__",
    b"__ubuf__",
    b"__inline__",
    b"__cbuf__",
    b"__ca__",
    b"__cb__",
    b"__cc__",
    b"__fbuf__",
    b"__sync_alias__",
    b"__sync_in__",
    b"__sync_out__",
    b"__in_pipe__",
    b"__out_pipe__",
    # kernel kinds and memory spaces of newer CANN releases, and compiler hints public kernels carry
    b"__vector__",
    b"__cube__",
    b"__mix__",
    b"__inout_pipe__",
    b"__simd_callee__",
    b"__simd_vf__",
    b"__simt_vf__",
    b"__simt_callee__",
    b"__simt_gm__",
    b"__ssbuf__",
    b"__biasbuf__",
    b"__kfc_workspace__",
    b"__local_mem__",
    b"__no_simd_vf_fusion__",
    b"__sync_noalias__",
    b"__check_sync_alias__",
    b"__host_aicore__",
    b"__forceinline__",
    b"__launch_bounds__",
    b"__tiling_data_ptr__",
    b"__aicpu__",
)
# These take arguments: `__mix__(1, 2)`, `__in_pipe__(V)`, `__launch_bounds__(256)`; the arguments go too.
_QUALIFIERS_WITH_ARGS = frozenset({"__mix__", "__in_pipe__", "__out_pipe__", "__inout_pipe__", "__launch_bounds__"})
_QUALIFIER_RE = re.compile(rb"__(" + b"|".join(q[2:-2] for q in QUALIFIERS) + rb")__(?!\w)|__restrict(?!\w)")
# `#define __aicore__` / `#ifndef __aicore__`: there the qualifier is a macro's name, which must stay.
_DIRECTIVE_NAME_RE = re.compile(rb"(#[ \t]*(define|undef|ifdef|ifndef)|\bdefined)[ \t(]*$")
_TILING_MACRO_RE = re.compile(
    rb"\b(BEGIN_TILING_DATA_DEF|TILING_DATA_FIELD_DEF_ARR|TILING_DATA_FIELD_DEF_STRUCT|TILING_DATA_FIELD_DEF"
    rb"|END_TILING_DATA_DEF|REGISTER_TILING_DATA_CLASS)\b"
)
_LAUNCH_RE = re.compile(rb"<<<")
_TEMPLATE_NO_ARGS_RE = re.compile(rb"template(?=\s+[A-Za-z_]\w*\s*\()")
_CAPS_CALL_RE = re.compile(rb"[A-Z][A-Z0-9_][A-Z0-9_]++\s*+\(")
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_CONTROL_IN_ARGS_RE = re.compile(rb"\b(return|break|continue|goto|throw)\b|;")
_VANISHING = {b"ASSERT", b"ASCENDC_ASSERT", b"ASCENDC_DEBUG_ASSERT", b"ASSERT_MSG"}
_EMPTY_ARG_RE = re.compile(rb",\s*(,|$)")
_PLACEHOLDER_RE = re.compile(rb"(?<=\w)\{\{ *[A-Za-z_][\w.]* *\}\}|\{\{ *[A-Za-z_][\w.]* *\}\}(?=\w)")
# Words tree-sitter-cpp reads as a primitive type (it counts the fixed-width typedefs among them), which no
# expression may be: a macro argument made only of them is a type (`CASE(DT_INT8, int8_t)`, `ALIGN_UP(n, float)`).
_TYPE_KEYWORDS = {
    b"float",
    b"double",
    b"int",
    b"char",
    b"bool",
    b"short",
    b"long",
    b"unsigned",
    b"signed",
    b"void",
    b"size_t",
    b"ssize_t",
    b"ptrdiff_t",
    b"intptr_t",
    b"uintptr_t",
    b"char8_t",
    b"char16_t",
    b"char32_t",
} | {f"{u}int{n}_t".encode() for u in ("", "u") for n in (8, 16, 32, 64)}


class Arg(NamedTuple):
    text: str
    start: int
    end: int


class Mark(NamedTuple):
    """Something AscendC-specific that was neutralised, with what it said. (A tuple: a 3000-line kernel has
    hundreds of qualifiers, and a tuple is made several times faster than a frozen dataclass.)"""

    kind: str  # qualifier | tiling_begin | tiling_field | tiling_end | tiling_register | launch | macro_stmt | ...
    name: str
    start: int
    end: int
    args: tuple[Arg, ...] = ()


@dataclass
class Preprocessed:
    text: bytes
    marks: list[Mark] = field(default_factory=list)
    # For `reprocess`: the comment and literal ranges, and whether anything made the result depend on text far
    # away (a `#else` branch blanked, a macro's parentheses or a launch's `>>>` never closed).
    opaque: list[tuple[int, int]] = field(default_factory=list)
    calls: list[tuple[int, int]] = field(default_factory=list)  # every macro-like call looked at, neutralised or not
    far_reaching: bool = False

    def marks_of(self, kind: str) -> list[Mark]:
        return [m for m in self.marks if m.kind == kind]


_OPAQUE_RE = re.compile(
    rb'//[^\n]*|/\*.*?(?:\*/|\Z)|"(?:\\.|[^"\\\n])*(?:"|$)|\'(?:\\.|[^\'\\\n])*(?:\'|$)',
    re.S | re.M,
)


def opaque_ranges(src: bytes) -> list[tuple[int, int]]:
    """Byte ranges of comments, string and character literals, where no rewrite may happen."""
    return [m.span() for m in _OPAQUE_RE.finditer(src)]


class _Opaque:
    def __init__(self, src: bytes, ranges: list[tuple[int, int]] | None = None):
        self._ranges = opaque_ranges(src) if ranges is None else ranges
        self._starts = [r[0] for r in self._ranges]

    def contains(self, pos: int) -> bool:
        k = bisect.bisect_right(self._starts, pos) - 1
        return k >= 0 and self._ranges[k][0] <= pos < self._ranges[k][1]

    def end_of(self, pos: int) -> int:
        """End of the opaque range containing pos (pos itself when none does)."""
        k = bisect.bisect_right(self._starts, pos) - 1
        if k >= 0 and self._ranges[k][0] <= pos < self._ranges[k][1]:
            return self._ranges[k][1]
        return pos

    def code_matches(
        self, regex: re.Pattern, src: bytes, lo: int, hi: int, scan_end: int, group: int = 0
    ) -> Iterator[re.Match]:
        """The matches of `regex` in src[lo:scan_end] whose `group` starts in code (not in a comment or literal)
        before `hi`: what every neutralising pass scans (the window may end mid-match, hence scan_end)."""
        for m in regex.finditer(src, lo, scan_end):
            start = m.start(group)
            if start >= hi:
                return
            if not self.contains(start):
                yield m

    def start_of(self, pos: int) -> int:
        """Start of the opaque range containing pos (pos itself when none does)."""
        k = bisect.bisect_right(self._starts, pos) - 1
        if k >= 0 and self._ranges[k][0] <= pos < self._ranges[k][1]:
            return self._ranges[k][0]
        return pos


_PAREN_RE = re.compile(rb"[()]")
_ARG_RE = re.compile(rb"[()\[\]{},]")


def _match_paren(src: bytes, open_pos: int, opaque: _Opaque) -> int:
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


def _split_args(src: bytes, start: int, end: int, opaque: _Opaque) -> tuple[Arg, ...]:
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


def _blank(buf: bytearray, start: int, end: int) -> None:
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


_SPLICE_RE = re.compile(rb"\\(?=\r?\n)")


def _put(buf: bytearray, pos: int, token: bytes) -> None:
    buf[pos : pos + len(token)] = token


def preprocess(src: bytes) -> Preprocessed:
    """Neutralise AscendC-only syntax in `src`; the result has exactly the same length and line structure."""
    buf = bytearray(src)
    opaque = _Opaque(src)
    out = Preprocessed(b"", [], opaque._ranges)
    _neutralise(src, buf, opaque, out, 0, len(src))
    neutralise_conditionals(src, buf, opaque, out)
    out.text = bytes(buf)
    out.marks.sort(key=lambda mk: mk.start)
    return out


def reprocess(old: Preprocessed, src: bytes, lo: int, hi: int, delta: int) -> Preprocessed | None:
    """`preprocess(src)` after an edit, redoing only the window [lo, hi) of the old text (the edit grew or shrank
    it by `delta` bytes). The caller picks a window that starts and ends between declarations and has some
    unchanged text on either side of the edit; this checks everything else that could make the result differ
    from a full pass, and returns None when in doubt."""
    new_hi = hi + delta
    if old.far_reaching or new_hi < lo or hi > len(old.text) or new_hi > len(src):
        return None
    if any(
        a < lo < b or a < hi < b for ranges in (old.opaque, old.calls, [m[2:4] for m in old.marks]) for a, b in ranges
    ):
        return None  # a comment, a macro's arguments or a neutralised construct cross the window's edge
    window_opaque = []
    for m in _OPAQUE_RE.finditer(src, lo):
        if m.start() >= new_hi:
            break
        if m.end() > new_hi:
            return None  # e.g. a `/*` typed without its `*/`: everything after it changed
        window_opaque.append(m.span())
    head = [r for r in old.opaque if r[1] <= lo]
    tail = [(a + delta, b + delta) for a, b in old.opaque if a >= hi]
    opaque = _Opaque(src, head + window_opaque + tail)
    for m in DIRECTIVE_RE.finditer(src, lo, new_hi):
        if opaque.contains(src.index(b"#", m.start())):
            continue
        # `#if` nesting, and what a #define decides in a later `#if` or at a macro's call sites (macro_forms), are
        # the whole file's business
        return None
    # Scans stop a little after the window instead of running to the end of the file; a match that starts in the
    # window never needs more than a few bytes after it, unless the next `_LOOKAHEAD` bytes are all blank.
    scan_end = min(len(src), new_hi + _LOOKAHEAD)
    if scan_end < len(src) and not src[new_hi:scan_end].strip():
        return None
    buf = bytearray(src)
    out = Preprocessed(b"", [], opaque._ranges)
    _neutralise(src, buf, opaque, out, lo, new_hi, scan_end)
    if out.far_reaching or any(m.end > new_hi for m in out.marks) or buf[new_hi:] != src[new_hi:]:
        return None
    out.marks.sort(key=lambda mk: mk.start)
    out.marks = (
        [m for m in old.marks if m.end <= lo] + out.marks + [_moved(m, delta) for m in old.marks if m.start >= hi]
    )
    out.calls = (
        [c for c in old.calls if c[1] <= lo] + out.calls + [(a + delta, b + delta) for a, b in old.calls if a >= hi]
    )
    out.text = old.text[:lo] + bytes(buf[lo:new_hi]) + old.text[hi:]
    return out


_LOOKAHEAD = 4096


def _moved(mark: Mark, delta: int) -> Mark:
    kind, name, start, end, args = mark
    if args:
        args = tuple(Arg(a.text, a.start + delta, a.end + delta) for a in args)
    return _new_tuple(Mark, (kind, name, start + delta, end + delta, args))  # Mark(...) without its Python __new__


_new_tuple = tuple.__new__


def _neutralise(
    src: bytes, buf: bytearray, opaque: _Opaque, out: Preprocessed, lo: int, hi: int, scan_end: int | None = None
) -> None:
    """Every rewrite but the conditionals, for constructs that start in [lo, hi); they may read the text around,
    and the scans for them stop at `scan_end`."""
    marks = out.marks
    scan_end = len(src) if scan_end is None else scan_end
    for m in opaque.code_matches(_QUALIFIER_RE, src, lo, hi, scan_end):
        start, end = m.span()
        line_start = src.rfind(b"\n", max(0, start - 200), start) + 1
        if _DIRECTIVE_NAME_RE.search(src, line_start, start):
            continue
        name = m.group(0).decode()
        if name in _QUALIFIERS_WITH_ARGS:
            open_pos = end
            while open_pos < len(src) and src[open_pos] in b" \t":
                open_pos += 1
            close = _match_paren(src, open_pos, opaque) if src[open_pos : open_pos + 1] == b"(" else -1
            if close < 0 and src[open_pos : open_pos + 1] == b"(":
                out.far_reaching = True  # a `)` typed later would close the arguments
            if close >= 0:
                _blank(buf, start, close + 1)
                marks.append(Mark("qualifier", name, start, close + 1))
                continue
        buf[start:end] = b" " * (end - start)  # a qualifier is one word: no line break to keep
        marks.append(Mark("qualifier", name, start, end))

    for m in opaque.code_matches(_TILING_MACRO_RE, src, lo, hi, scan_end) if b"TILING_DATA" in src else ():
        _neutralise_tiling_macro(src, buf, m, opaque, out)

    for m in opaque.code_matches(_LAUNCH_RE, src, lo, hi, scan_end) if b"<<<" in src else ():
        close = src.find(b">>>", m.end())
        if close < 0:
            out.far_reaching = True  # a `>>>` typed later would make this a launch
            continue
        out.calls.append((m.start(), close + 3))  # what decided it, neutralised or not (see reprocess)
        if b";" in src[m.end() : close]:
            continue
        callee = re.search(rb"([A-Za-z_]\w*)\s*(<[^<>;]*>)?\s*$", src[max(0, m.start() - 200) : m.start()])
        args = _split_args(src, m.end(), close, opaque)
        _blank(buf, m.start(), close + 3)
        marks.append(Mark("launch", callee.group(1).decode() if callee else "", m.start(), close + 3, args))

    for m in _TEMPLATE_NO_ARGS_RE.finditer(src, lo, scan_end) if b"template" in src else ():
        if m.start() >= hi:
            break
        # `obj.template Method(arg)` without template arguments: Huawei's compiler accepts it, C++ does not
        before = src[max(0, m.start() - 64) : m.start()].rstrip()
        if (before.endswith(b".") or before.endswith(b"->")) and not opaque.contains(m.start()):
            _blank(buf, m.start(), m.end())

    for m in opaque.code_matches(_PLACEHOLDER_RE, src, lo, hi, scan_end) if b"{{" in src else ():
        # A code generator's template (`void {{op_name}}_kernel(`): the placeholder glued to a name is part of an
        # identifier, which valid C++ braces never are. It becomes one of the same length.
        start, end = m.span()
        buf[start:end] = b"__" + re.sub(rb"[^\w]", b"_", src[start + 2 : end - 2]) + b"__"

    _neutralise_statement_macros(src, buf, opaque, out, lo, hi, scan_end)
    from tilewise.analysis.dialect import neutralise_dialect  # (dialect builds on this module's helpers)

    neutralise_dialect(src, buf, opaque, out, lo, hi, scan_end)


def _neutralise_tiling_macro(src: bytes, buf: bytearray, m: re.Match, opaque: _Opaque, out: Preprocessed) -> None:
    name = m.group(1).decode()
    if name == "END_TILING_DATA_DEF":
        _blank(buf, m.start(), m.end())
        buf[m.start()] = ord("}")
        following = past_space(src, m.end())
        out.calls.append((m.start(), following + 1))  # the decision below reads up to the next code byte
        if src[following : following + 1] != b";":
            buf[m.start() + 1] = ord(";")  # the macro brings the struct's `};`, so public code may leave it out
        out.marks.append(Mark("tiling_end", name, m.start(), m.end()))
        return
    open_pos = m.end()
    while open_pos < len(src) and src[open_pos] in b" \t":
        open_pos += 1
    if open_pos >= len(src) or src[open_pos] != 0x28:
        return
    close = _match_paren(src, open_pos, opaque)
    if close < 0:
        out.far_reaching = True  # a later `)` would change this
        return
    args = _split_args(src, open_pos + 1, close, opaque)
    kind = {
        "BEGIN_TILING_DATA_DEF": "tiling_begin",
        "TILING_DATA_FIELD_DEF": "tiling_field",
        "TILING_DATA_FIELD_DEF_ARR": "tiling_field_arr",
        "TILING_DATA_FIELD_DEF_STRUCT": "tiling_field_struct",
        "REGISTER_TILING_DATA_CLASS": "tiling_register",
    }[name]
    out.marks.append(Mark(kind, name, m.start(), close + 1, args))
    _blank(buf, m.start(), close + 1)
    if kind == "tiling_begin" and args:
        # `BEGIN_TILING_DATA_DEF(Name)` -> `struct ... Name {`
        _put(buf, m.start(), b"struct")
        _put(buf, args[0].start, src[args[0].start : args[0].end])
        buf[close] = ord("{")
    elif kind in ("tiling_field", "tiling_field_arr", "tiling_field_struct") and len(args) >= 2:
        # keep `type` and `name` where they stand: `TYPE   NAME ;` is a plain member declaration
        type_arg, name_arg = args[0], args[-1]
        _put(buf, type_arg.start, src[type_arg.start : type_arg.end])
        _put(buf, name_arg.start, src[name_arg.start : name_arg.end])
        following = past_space(src, close + 1)
        out.calls.append((m.start(), following + 1))  # the decision below reads up to the next code byte
        if src[following : following + 1] != b";":
            buf[close] = ord(";")  # the macro brings its own `;`, so public code often leaves it out


def _neutralise_statement_macros(
    src: bytes,
    buf: bytearray,
    opaque: _Opaque,
    out: Preprocessed,
    lo: int = 0,
    hi: int | None = None,
    scan_end: int | None = None,
) -> None:
    """Macros such as `OP_CHECK(cond, LOG(..), return ge::GRAPH_FAILED);` carry statements in their arguments;
    macros such as `ALIGN_UP(n, float)` take types. Plain C++ can't read either, the real compiler can."""
    pos = lo
    hi = len(src) if hi is None else hi
    scan_end = len(src) if scan_end is None else scan_end
    while True:
        m = _CAPS_CALL_RE.search(src, pos, scan_end)
        if not m or m.start() >= hi:
            return
        pos = m.end()
        if m.start() and (src[m.start() - 1] in _WORD_BYTES):
            continue  # inside a longer word (the pattern has no leading \b: it scans three times faster without)
        name = m.group(0)[: m.group(0).index(b"(")].rstrip()
        if opaque.contains(m.start()) or name in (b"TILING_KEY_IS", b"GET_TILING_DATA"):
            continue
        if _TILING_MACRO_RE.fullmatch(name):
            continue
        open_pos = m.end() - 1
        close = _match_paren(src, open_pos, opaque)
        if close < 0:
            out.far_reaching = True  # a `)` typed later would make this a macro to neutralise
            continue
        out.calls.append((m.start(), close + 1))
        inner = src[open_pos + 1 : close]
        before = src[max(0, m.start() - 80) : m.start()].rstrip()
        if name in _VANISHING and before[-1:].isalnum() | before.endswith((b"_", b")")):
            # `x = n ASSERT(n != 0);` compiles because ASSERT expands to nothing in the NPU build
            _blank(buf, m.start(), close + 1)
            out.marks.append(Mark("macro_stmt", name.decode(), m.start(), close + 1))
            pos = close + 1
            continue
        if _alone_on_its_lines(src, m.start(), close, opaque) and not _continues_a_line(src, m.start()):
            # `DECLARE_KERNELS(half)` on a line of its own, no `;`: expands to declarations; plain C++ can't read it
            _blank(buf, m.start(), close + 1)
            out.marks.append(
                Mark("macro_stmt", name.decode(), m.start(), close + 1, _split_args(src, open_pos + 1, close, opaque))
            )
            pos = close + 1
            continue
        if _has_code_outside_opaque(_CONTROL_IN_ARGS_RE, inner, open_pos + 1, opaque) or _EMPTY_ARG_RE.search(
            _without_comments(inner, open_pos + 1, opaque)
        ):
            args = _split_args(src, open_pos + 1, close, opaque)
            _blank(buf, open_pos + 1, close)
            out.marks.append(Mark("macro_stmt", name.decode(), m.start(), close + 1, args))
            pos = close + 1
            continue
        for arg in _split_args(src, open_pos + 1, close, opaque):
            words = arg.text.split()
            if words and all(w.encode() in _TYPE_KEYWORDS or w == "*" for w in words):
                for i in range(arg.start, arg.end):
                    if buf[i] not in b" \t\n*":
                        buf[i] = ord("_")
                out.marks.append(Mark("macro_type_arg", name.decode(), arg.start, arg.end, (arg,)))


def _continues_a_line(src: bytes, pos: int) -> bool:
    """Whether pos's line continues the one before (a `\\` ends it): a `#define` body, where a macro call is the
    body's text, not a statement to blank (blanking would also take the body's own line continuations)."""
    line_start = src.rfind(b"\n", 0, pos) + 1
    return line_start > 0 and src[: line_start - 1].rstrip(b"\r").endswith(b"\\")


def _alone_on_its_lines(src: bytes, start: int, close: int, opaque: _Opaque) -> bool:
    line_start = src.rfind(b"\n", 0, start) + 1
    if src[line_start:start].strip():
        return False
    line_end = src.find(b"\n", close)
    line_end = len(src) if line_end < 0 else line_end
    if src[close + 1 : line_end].strip() and not opaque.contains(
        close + 1 + len(src[close + 1 : line_end]) - len(src[close + 1 : line_end].lstrip())
    ):
        return False
    pos = line_end
    while True:  # the next code, past blanks and comments (`// 3D kernels` before the next macro line)
        rest = src[pos:].lstrip()
        pos = len(src) - len(rest)
        if rest[:2] in (b"//", b"/*") and opaque.contains(pos):
            pos = opaque.end_of(pos)
            continue
        return not rest[:1] or rest[:1] not in b";{.,)=+-*/<>&|?:"


def _without_comments(inner: bytes, base: int, opaque: _Opaque) -> bytes:
    """`inner` (which starts at `base`) with its comments blanked: `ARGS(a, // note` ends in an empty argument."""
    if b"/" not in inner:
        return inner
    out = bytearray(inner)
    for i in range(len(inner) - 1):
        if inner[i : i + 2] in (b"//", b"/*") and opaque.contains(base + i) and opaque.start_of(base + i) == base + i:
            end = min(opaque.end_of(base + i) - base, len(inner))
            out[i:end] = b" " * (end - i)
    return bytes(out)


def _has_code_outside_opaque(regex: re.Pattern, inner: bytes, base: int, opaque: _Opaque) -> bool:
    return any(not opaque.contains(base + hit.start()) for hit in regex.finditer(inner))
