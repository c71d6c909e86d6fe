"""Neutralise the forms that public AscendC code uses and tree-sitter-cpp misreads, although CANN compiles them.

`ascendc` handles AscendC's own syntax (qualifiers, tiling macros, launches, statement macros). This module
handles what a survey of public operators showed on top of that, each found as a false `syntax-error`:

- `if ASCEND_IS_AIV {`: the macro brings its own `constexpr (...)`, so the condition has no parentheses;
- a macro word standing where a declaration starts (`ACLNN_API aclnnStatus f(...)`, `ASCENDC_EXTERN_C ge::...`,
  `TEMPLATE_DECLARE` on the line before `class K {`), or alone on a line as a statement (`SYNC_ALL` with its `;`
  inside the macro);
- pointer-to-member calls `(obj->*fn)(...)`, which the grammar does not know;
- `= {}` (or `= {1, 2}`) as a parameter's default argument;
- `/* ... */` comments inside a `#define` body, which end the grammar's reading of the body, and a `/` ending one
  of its lines, which moves that end;
- GNU `__attribute__((...))` after a declarator;
- and one form no compiler accepts: a `#` line that is no directive (`# Copyright ...` pasted from a shell or CMake
  file). It stays an error, but one the grammar reports on its own lines: left alone, it threw the grammar's
  recovery off and valid `#include` lines far below were reported instead.

Every rewrite keeps the byte length and line breaks (see `analysis.preprocess`) and is recorded as a `Mark`. Where a
decision reads text beyond the rewritten bytes, that range is recorded in `Preprocessed.calls` so that an
incremental re-preprocessing never cuts through it.
"""

from __future__ import annotations

import re

from tilewise.analysis.preprocess.context import Mark, Opaque, PassContext
from tilewise.analysis.preprocess.scan import (
    WORD_BYTES,
    blank,
    match_paren,
    on_continuation_line,
    past_space,
    put,
    starts_declaration,
)

_BARE_IF_RE = re.compile(rb"\bif(\s+)([A-Z][A-Z0-9_]*[A-Z0-9])(\s*)\{")
_BARE_IF_CALL_RE = re.compile(rb"\bif([ \t]+)([A-Z][A-Z0-9_]*[A-Z0-9])[ \t]*\(")
_MEMBER_PTR_RE = re.compile(rb"->\*|\.\*")
_DEFAULT_BRACES_RE = re.compile(rb"=[ \t]*\{")
_MEMBER_PTR_TYPE_RE = re.compile(rb"\(\s*((?:[A-Za-z_]\w*\s*(?:<[^;{}()]*>)?\s*::\s*)+)\*")
_DEFINE_RE = re.compile(rb"^[ \t]*#[ \t]*define\b", re.M)
_ATTRIBUTE_RE = re.compile(rb"\b__attribute__\s*\(")
_CAPS_LINE_RE = re.compile(rb"^[ \t]*(_*[A-Z][A-Z0-9_]*[A-Z0-9_])\b(?![ \t]*[(<:])", re.M)
# A macro word after these continues an expression, not a declaration.
_NOT_BEFORE_DECL = (b",", b"(", b"[", b"=", b"+", b"-", b"*", b"/", b"%", b"&", b"|", b"^", b"!", b"?", b"\\")
_CONTINUES = b";{.,)=+-*/%<>&|?:[(}"  # what may not follow a statement macro alone on its line
_EMPTY_DEFINE_RE = re.compile(rb"[ \t]+[A-Za-z_]\w*(?:\([^()\n]*\))?([ \t]+)\r?$", re.M)
_SLASH_AT_LINE_END_RE = re.compile(rb"/(?=\\?\r?\n)")
_USING_LIST_RE = re.compile(rb"\busing[ \t]+[\w:]+(?:[ \t]*,[ \t]*[\w:]+)+[ \t]*;")
_NAMED_VARIADIC_RE = re.compile(rb"[A-Za-z_]\w*\s*\(([^()]*?\b[A-Za-z_]\w*)(\.\.\.)\s*\)")
_RETURN_TYPE_RE = re.compile(rb"[A-Za-z_][\w:]*(?:<[^;{}()]*>)?[ \t*&]*")
_NAME_CALL_RE = re.compile(rb"\r?\n[ \t]*[A-Za-z_]\w*[ \t]*\(")
_NOT_A_DIRECTIVE_RE = re.compile(
    rb"^[ \t]*(#)(?![ \t]*(?:include|include_next|define|undef|if|ifdef|ifndef|elif|elifdef|elifndef|else|endif|line"
    rb"|error|warning|pragma|ident|import|assert|unassert)\b|[ \t]*\d)[^\n]*",
    re.M,
)
_SCAN = 512  # how far a context look goes before giving up (comment blocks between a macro and its declaration)


def neutralise_dialect(ctx: PassContext) -> None:
    """The rewrites above, for constructs that start in [ctx.lo, ctx.hi); scans stop at `ctx.scan_end`."""
    _bare_conditions(ctx)
    _member_pointers(ctx)
    _default_braces(ctx)
    _attributes(ctx)
    _macro_words(ctx)
    _defines(ctx)
    _using_lists(ctx)
    if b"#" in ctx.src:
        _invalid_directives(ctx)


def _bare_conditions(ctx: PassContext) -> None:
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out
    lo, hi, scan_end = ctx.lo, ctx.hi, ctx.scan_end
    # `if ASCEND_IS_AIV {` -> `if(ASCEND_IS_AIV){`: the `(` goes where the blank before the word is (there is one:
    # `ifASCEND_IS_AIV` would be one word); the `)` on the blank after it, else over the word's last letter.
    if b"if" not in src:
        return
    for m in opaque.code_matches(_BARE_IF_RE, src, lo, hi, scan_end):
        if m.start() and src[m.start() - 1] in WORD_BYTES:
            continue
        buf[m.end(1) - 1] = ord("(")
        buf[m.start(3) if m.end(3) > m.start(3) else m.end(2) - 1] = ord(")")
        out.marks.append(Mark("bare_condition", m.group(2).decode(), m.start(), m.end()))
    # `if TILING_KEY_IS (KEY) {`: a macro call as the whole condition; the parentheses go on the blanks around it
    for m in opaque.code_matches(_BARE_IF_CALL_RE, src, lo, hi, scan_end):
        if m.start() and src[m.start() - 1] in WORD_BYTES:
            continue
        close = match_paren(src, m.end() - 1, opaque)
        brace = re.compile(rb"([ \t]+)\{").match(src, close + 1) if close >= 0 else None
        if brace is None:
            continue
        out.calls.append((m.start(), brace.end()))
        buf[m.end(1) - 1] = ord("(")
        buf[brace.end(1) - 1] = ord(")")
        out.marks.append(Mark("bare_condition", m.group(2).decode(), m.start(), brace.end()))


def _member_pointers(ctx: PassContext) -> None:
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out
    lo, hi, scan_end = ctx.lo, ctx.hi, ctx.scan_end
    # `(obj->*fn)(x)` -> `(obj-> fn)(x)`: a member call, which is what the model needs to see. A parenthesised
    # pointer (`(obj->*(table[k]))(x)`) cannot follow `->`: there `->*` becomes a comma, keeping both operands.
    if b".*" not in src and b"->*" not in src and b"::*" not in src:
        return
    for m in opaque.code_matches(_MEMBER_PTR_RE, src, lo, hi, scan_end):
        if m.group(0) == b".*":
            word = re.search(rb"([A-Za-z_]\w*|\)|\])$", src[max(0, m.start() - 64) : m.start()])
            if word is None or src[max(0, m.start() - 2) : m.start()] == b"::":
                continue  # `1.*x` is a literal times x; `C::*` a member-pointer type (below)
        if re.compile(rb"\s*\(").match(src, m.end()):
            blank(buf, m.start(), m.end())
            buf[m.start()] = ord(",")
            out.calls.append((m.start(), m.end() + 1))
        else:
            buf[m.end() - 1] = ord(" ")
        out.marks.append(Mark("member_pointer", m.group(0).decode(), m.start(), m.end()))
    if b"::*" not in src:
        return
    # `uint32_t (K::*hook)(void*) const;`, `using F = void (K::*)(int);`: the grammar reads a pointer-to-member
    # declarator only as a parameter; without `K::` it is a plain function pointer, the same shape for the model.
    for m in opaque.code_matches(_MEMBER_PTR_TYPE_RE, src, lo, hi, scan_end, group=1):
        blank(buf, m.start(1), m.end(1))
        out.marks.append(Mark("member_pointer_type", src[m.start(1) : m.end(1)].decode().strip(), m.start(1), m.end(1)))


def _default_braces(ctx: PassContext) -> None:
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out
    lo, hi, scan_end = ctx.lo, ctx.hi, ctx.scan_end
    # `const Shape& s = {}` -> `const Shape& s = 0 `: a default argument the grammar reads. Only in a parameter
    # list (the innermost open bracket is a `(`): `int a[2] = {1, 2}, b;` keeps its values for the model.
    if b"{" not in src:
        return
    for m in opaque.code_matches(_DEFAULT_BRACES_RE, src, lo, hi, scan_end):
        brace = m.end() - 1
        close = _match_brace(src, brace, opaque, scan_end)
        if close < 0:
            if brace + _SCAN > scan_end and scan_end < len(src):
                out.far_reaching = True  # the decision needs text past the scan
            out.calls.append((m.start(), min(scan_end, brace + _SCAN)))
            continue
        after = re.compile(rb"\s*[,)]").match(src, close + 1)
        if after is None or b";" in src[brace:close]:
            out.calls.append((m.start(), min(len(src), past_space(src, close + 1) + 1)))
            continue
        opener, in_parens = _innermost_open(src, opaque, m.start())
        out.calls.append((opener, after.end()))  # the decision read back to the opening bracket
        if not in_parens:
            continue
        end = close + 1
        blank(buf, brace, end)
        buf[brace] = ord("0")
        out.marks.append(Mark("default_braces", "", m.start(), end))


def _match_brace(src: bytes, open_pos: int, opaque: Opaque, stop: int) -> int:
    """Index of the `}` closing the `{` at open_pos (outside comments and literals), -1 before `stop`/_SCAN."""
    depth = 0
    for i in range(open_pos, min(stop, open_pos + _SCAN)):
        c = src[i]
        if c not in b"{}" or opaque.contains(i):
            continue
        depth += 1 if c == 0x7B else -1
        if depth == 0:
            return i
    return -1


def _innermost_open(src: bytes, opaque: Opaque, pos: int) -> tuple[int, bool]:
    """Offset of the innermost unclosed `(` or `{` before pos, or of a `;` at pos's level, whichever comes first
    going back (the scan's limit when none does), and whether it is a `(`: pos is in a parameter list."""
    depth = 0
    for i in range(pos - 1, max(-1, pos - _SCAN), -1):
        c = src[i]
        if c not in b"(){};" or opaque.contains(i):
            continue
        if c in b")}":
            depth += 1
        elif depth and c in b"({":
            depth -= 1
        elif depth == 0:
            return i, c == 0x28
    return max(0, pos - _SCAN), False


def _attributes(ctx: PassContext) -> None:
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out
    lo, hi, scan_end = ctx.lo, ctx.hi, ctx.scan_end
    # `name __attribute__((used, section(".x"))) = {...}`: the grammar takes attributes only before a declarator.
    if b"__attribute__" not in src:
        return
    for m in opaque.code_matches(_ATTRIBUTE_RE, src, lo, hi, scan_end):
        line_start = src.rfind(b"\n", 0, m.start()) + 1
        if src[line_start : m.start()].lstrip().startswith(b"#") or on_continuation_line(src, m.start()):
            # `#define ACLNN_API __attribute__((...))`: a macro body is the grammar's opaque text already, and
            # blanking it left a body-less define whose trailing blanks made the grammar read on into the next line
            continue
        close = match_paren(src, m.end() - 1, opaque)
        if close < 0:
            out.far_reaching = True  # a `)` typed later would close it
            continue
        blank(buf, m.start(), close + 1)
        out.marks.append(Mark("attribute", "__attribute__", m.start(), close + 1))


def _macro_words(ctx: PassContext) -> None:
    """A capitalised word with no parentheses at the start of a line: blanked when a declaration follows it on
    its line (`ACLNN_API aclnnStatus f(...)`) or on the next code line (`TEMPLATE_DECLARE` / `class K {`), or
    when it stands alone between statements (a macro that carries its own `;`)."""
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out
    lo, hi, scan_end = ctx.lo, ctx.hi, ctx.scan_end
    for m in opaque.code_matches(_CAPS_LINE_RE, src, lo, hi, scan_end, group=1):
        start, end = m.span(1)
        if on_continuation_line(src, start) or buf[start:end] != src[start:end]:
            continue  # (or an earlier pass rewrote it: `END_TILING_DATA_DEF` is already `};`)
        line_end = src.find(b"\n", end)
        line_end = len(src) if line_end < 0 else line_end
        rest = src[end:line_end].strip()
        if rest:
            if rest.startswith((b"//", b"/*")) and opaque.contains(src.index(rest[:2], end)):
                rest = b""  # only a comment follows
            elif starts_declaration(rest, 0):
                blank(buf, start, end)
                out.marks.append(Mark("macro_word", m.group(1).decode(), start, end))
                continue
            elif _RETURN_TYPE_RE.fullmatch(rest) and (name := _NAME_CALL_RE.match(src, line_end)):
                # `ACLNN_API aclnnStatus` with the function's name on the next line
                out.calls.append((start, name.end()))
                blank(buf, start, end)
                out.marks.append(Mark("macro_word", m.group(1).decode(), start, end))
                continue
            else:
                continue
        prev = _prev_code(src, opaque, start)
        nxt = _next_code(src, opaque, line_end, scan_end)
        if nxt is None:
            if scan_end < len(src):
                out.far_reaching = True  # the decision needs text past the scan
            continue
        out.calls.append((max(prev, 0), min(nxt + 1, len(src))))
        before = src[prev : prev + 1] if prev >= 0 else b";"
        after_line = src[nxt : src.find(b"\n", nxt) if src.find(b"\n", nxt) >= 0 else len(src)]
        if starts_declaration(after_line, 0):
            ok = before not in _NOT_BEFORE_DECL
        else:  # a statement macro: between statements, and no operator or `(` continues it
            ok = before in (b";", b"}", b"\n") or (before == b"{" and _block_opens_statements(src, prev))
            ok = ok and (src[nxt] in b"{}" or src[nxt] not in _CONTINUES)  # `__VEC_SCOPE__ {`: a block
        if ok:
            blank(buf, start, end)
            out.marks.append(Mark("macro_word", m.group(1).decode(), start, end))


def _block_opens_statements(src: bytes, brace: int) -> bool:
    """Whether the `{` at `brace` opens a statement block (after `)`, `else`, `do`), not an enum or initializer."""
    head = src[max(0, brace - 64) : brace].rstrip()
    return head.endswith((b")", b"else", b"do", b"try"))


def _prev_code(src: bytes, opaque: Opaque, pos: int) -> int:
    """Offset of the last code byte before pos (skipping blanks, comments and directive lines); -1 at the start,
    and the newline ending a directive line when one comes first (a directive ends like a `;`)."""
    i = pos - 1
    stop = max(0, pos - _SCAN)
    while i >= stop:
        c = src[i]
        if c in b" \t\r\n":
            i -= 1
            continue
        if opaque.contains(i):
            i = opaque.start_of(i) - 1
            continue
        line_start = src.rfind(b"\n", 0, i) + 1
        if src[line_start : i + 1].lstrip().startswith(b"#"):
            return src.find(b"\n", i)  # a directive line: its newline counts as `;`
        return i
    return -1


def _next_code(src: bytes, opaque: Opaque, pos: int, scan_end: int) -> int | None:
    """Offset of the next code byte at or after pos (skipping blanks and comments), None past the scan."""
    i = pos
    stop = min(scan_end, pos + _SCAN)
    while i < stop:
        if src[i] in b" \t\r\n":
            i += 1
            continue
        if opaque.contains(i):
            i = opaque.end_of(i)
            continue
        return i
    return None


def _defines(ctx: PassContext) -> None:
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out
    lo, hi, scan_end = ctx.lo, ctx.hi, ctx.scan_end
    # tree-sitter ends a `#define` body at a `/* */` comment, so the rest of the body became code.
    if b"define" not in src:
        return
    for m in opaque.code_matches(_DEFINE_RE, src, lo, hi, scan_end):
        end = m.end()
        while True:  # the logical line: physical lines joined by a trailing backslash
            nl = src.find(b"\n", end)
            if nl < 0:
                end = len(src)
                break
            if opaque.contains(nl) and src[opaque.start_of(nl) : opaque.start_of(nl) + 2] == b"/*":
                end = opaque.end_of(nl)  # a block comment running over the line break (always past `nl`)
                continue
            last = nl - 1 if nl > 0 and src[nl - 1] == 0x0D else nl  # `\r\n` line ends
            if last == 0 or src[last - 1] != 0x5C:  # no trailing backslash: the logical line ends here
                end = nl
                break
            end = nl + 1
        out.calls.append((m.start(), end))
        empty = _EMPTY_DEFINE_RE.match(src, m.end(), end)
        if empty is not None and not opaque.contains(empty.start(1)):
            # `#define DEBUG  ` with trailing blanks and no body: the grammar then reads the next line as the
            # body. A `//` in the blanks (or a `;` body in a single one) ends it where the compiler does.
            a = empty.start(1)
            put(buf, a, b"//" if empty.end(1) - a >= 2 else b";")
            out.marks.append(Mark("define_blank", "", a, empty.end(1)))
        variadic = _NAMED_VARIADIC_RE.match(src, past_space(src, m.end()), end)
        if variadic is not None:  # `#define LOG(fmt, args...)`: GNU's named variadic parameter
            blank(buf, variadic.start(2), variadic.end(2))
            out.marks.append(Mark("define_variadic", "", variadic.start(2), variadic.end(2)))
        for slash in _SLASH_AT_LINE_END_RE.finditer(src, m.end(), min(len(src), end + 1)):
            # `a /\` (a division split over two lines), `// see dir/`: the grammar reads a body's `/` together
            # with the byte after it, so a line end there is no longer the body's end (the body ran on into the
            # next declaration, or stopped short before its continuation). The body is opaque text to the model.
            put(buf, slash.start(), b" ")
            out.marks.append(Mark("define_slash", "", slash.start(), slash.end()))
        i = src.find(b"/*", m.end(), end)
        while i >= 0:
            c_end = opaque.end_of(i)
            if c_end == i:  # not a comment (inside a string)
                i = src.find(b"/*", i + 2, end)
                continue
            blank(buf, i, c_end)
            out.marks.append(Mark("define_comment", "", i, c_end))
            i = src.find(b"/*", c_end, end)


def _using_lists(ctx: PassContext) -> None:
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out
    lo, hi, scan_end = ctx.lo, ctx.hi, ctx.scan_end
    # C++17 `using A::x, A::y;` -> `using A::x; A::y;` (the grammar knows one name per using-declaration).
    if b"using" not in src:
        return
    for m in opaque.code_matches(_USING_LIST_RE, src, lo, hi, scan_end):
        for i in range(m.start(), m.end()):
            if src[i] == ord(","):
                buf[i] = ord(";")
        out.marks.append(Mark("using_list", "", m.start(), m.end()))


def _invalid_directives(ctx: PassContext) -> None:
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out
    lo, hi, scan_end = ctx.lo, ctx.hi, ctx.scan_end
    # `# ----` / `# Copyright (c) ...`: `#` -> `@` and the rest blanked, one ERROR node the grammar keeps to these
    # lines (the compiler stops at the same place: an invalid preprocessing directive).
    for m in opaque.code_matches(_NOT_A_DIRECTIVE_RE, src, lo, hi, scan_end, group=1):
        if on_continuation_line(src, m.start(1)):
            continue  # a `#` (stringizing) at the start of a #define body's continuation line
        blank(buf, m.start(1), m.end())
        if not src[m.start(1) + 1 : m.end()].strip():  # `#` alone: the null directive, valid (now blank)
            out.marks.append(Mark("null_directive", "", m.start(1), m.end()))
            continue
        buf[m.start(1)] = ord("@")
        out.marks.append(
            Mark("invalid_directive", src[m.start(1) : m.end()].decode("utf-8", "replace")[:40], m.start(1), m.end())
        )
