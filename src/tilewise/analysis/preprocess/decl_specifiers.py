"""Unknown macros among a declaration's specifiers, and explicit operator calls (issue 13).

Public AscendC code puts export, inlining and placement macros wherever a specifier may stand, and the project
cannot know every project's names. `dialect` blanks a capitalised word at the start of a line; this pass
covers what it leaves, in a general way (no list of names):

- a macro word after other specifiers or macros on its line: `static FORCE_INLINE void f()`, `DEMO_VISIBLE
  DEMO_API aclnnStatus f(...)`, `__aicore__ __force_inline__ uint64_t f()` (an unknown `__word__`);
- a macro word before a constructor or destructor, which has no return type for the declaration test to see:
  `FORCE_INLINE_AICORE Collectives(int rank) : rank(rank) {}`;
- a function-like macro before a variable declaration: `DEMO_ALIGN(32) float buf[8];`;
- a lower-case word right before a specifier or builtin type (`aifunc void Init(...)`): no type or name can stand
  there, so it is a macro whatever its case;
- an operator named in a call: `axes->operator[](i)`, `a.operator()(x)`, which the grammar reads only as a name;
- a macro call that ends a call chain and brings the chain's `;` (`REG_OP(X)` / `.INPUT(...)` /
  `.OP_END_FACTORY_REG(X)` in graph prototypes): the call becomes that `;`.

A word is blanked only when everything before it on its line is a specifier (or already blanked) and what
follows reads as a declaration, so an all-caps type (`DTYPE_X x = 0;`) or a macro inside an expression stays.
Rewrites keep byte length and line breaks, are recorded as `Mark`s, and the text each decision read goes into
`Preprocessed.calls` (see `dialect`).
"""

from __future__ import annotations

import re

from tilewise.analysis.preprocess.context import Mark, Opaque, PassContext
from tilewise.analysis.preprocess.scan import (
    SCOPE_SCAN,
    blank,
    declaration_scope,
    match_paren,
    on_continuation_line,
    split_args,
    starts_declaration,
)

# A macro-like word: capitalised (`FORCE_INLINE`), or wrapped in double underscores (`__force_inline__`).
_MACRO_WORD_RE = re.compile(rb"\b(?=[A-Z_])(?<![.>:])(_*[A-Z][A-Z0-9_]*[A-Z0-9]|__[a-z][a-z0-9_]*__)\b")
_SPECIFIERS = frozenset(
    {
        b"static",
        b"inline",
        b"constexpr",
        b"extern",
        b"virtual",
        b"friend",
        b"explicit",
        b'"C"',
        b"public:",
        b"private:",
        b"protected:",
    }
)
_NOT_MACROS = frozenset(
    {
        b"__attribute__",
        b"__declspec",
        b"__restrict__",
        b"__VA_ARGS__",
        b"__FILE__",
        b"__LINE__",
        b"__func__",
        b"__FUNCTION__",
    }
)
# What may stand right before a specifier macro: a line break, a specifier's last letter, `"C"`'s quote, a template
# head's `>`, an access label's `:`.
_MAY_PRECEDE = frozenset(b'\r\n">:abcdefghijklmnopqrstuvwxyz')
_TEMPLATE_HEAD_RE = re.compile(rb"\btemplate\s*<[^;{}]*>")
_CTOR_RE = re.compile(rb"\s*((?:[A-Za-z_]\w*\s*::\s*)*~?[A-Za-z_]\w*)\s*\(")
_CTOR_TAIL_RE = re.compile(rb"\s*(?:(?:const|noexcept|override|final)\b\s*)*(?::(?!:)|\{|;|=\s*(?:default|delete))")
_CLASS_NAME_RE = re.compile(rb"\b(?:class|struct)\s+(?:\w+\s+)*?([A-Za-z_]\w*)\s*(?:final\b)?\s*(?::[^{]*)?$")
_OPERATOR_CALL_RE = re.compile(rb"(?:\.|->)\s*(template\s+)?operator\s*(\(\)|\[\]|[-+*/%^&|~!=<>]{1,3})(?=\s*[(<])")
_CHAIN_END_RE = re.compile(rb"(\.[ \t]*([A-Z][A-Z0-9_]*[A-Z0-9])[ \t]*\()")
# A word followed by a word only a declaration's start can have: the first one must be a macro.
_LOWER_MACRO_RE = re.compile(
    rb"\b([a-z_][a-z0-9_]*)[ \t]+(?=(?:void|static|inline|constexpr|virtual|explicit|bool|int"
    rb"|float|double|char|unsigned|signed|__[a-z]\w*__)\b)"
)
_KEYWORDS = frozenset(
    b"""alignas alignof and asm auto bool break case catch char class co_await co_return co_yield
    concept const consteval constexpr constinit const_cast continue decltype default delete do double dynamic_cast
    else enum explicit export extern false float for friend goto if inline int long mutable namespace new noexcept not
    operator or private protected public register reinterpret_cast requires return short signed sizeof static
    static_assert static_cast struct switch template this thread_local throw true try typedef typeid typename union
    unsigned using virtual void volatile while""".split()
)
_CALL_SCAN = 2048  # how far a macro call's `)` is looked for


def neutralise_specifier_macros(ctx: PassContext) -> None:
    """The rewrites above, for constructs that start in [ctx.lo, ctx.hi); scans stop at `ctx.scan_end`."""
    _macro_specifiers(ctx)
    _lower_case_specifiers(ctx)
    if b"operator" in ctx.src:
        _operator_calls(ctx)
    if b"." in ctx.src:
        _chain_end_macros(ctx)


def _macro_specifiers(ctx: PassContext) -> None:
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out
    lo, hi, scan_end = ctx.lo, ctx.hi, ctx.scan_end
    for m in opaque.code_matches(_MACRO_WORD_RE, src, lo, hi, scan_end, group=1):
        start, end = m.span(1)
        word = m.group(1)
        if word in _NOT_MACROS or buf[start:end] != src[start:end]:
            continue  # (or an earlier pass rewrote it)
        k = start - 1
        while k >= 0 and buf[k] in b" \t":
            k -= 1
        if k >= 0 and buf[k] not in _MAY_PRECEDE:
            continue  # after `(`, `,`, `=`, an operator...: inside an expression or a parameter list
        line_start = src.rfind(b"\n", 0, start) + 1
        if not _only_specifiers_before(buf, line_start, start) or on_continuation_line(src, start):
            continue
        line_end = src.find(b"\n", end)
        line_end = len(src) if line_end < 0 else line_end
        call_end = end
        paren = re.compile(rb"[ \t]*\(").match(src, end)
        if paren is not None:  # `DEMO_ALIGN(32) float buf[8];`: the call goes with the word
            close = match_paren(src, paren.end() - 1, opaque)
            if close < 0 or close - start > _CALL_SCAN or buf[start : close + 1] != src[start : close + 1]:
                continue
            call_end = close + 1
            nl = src.find(b"\n", call_end)
            line_end = len(src) if nl < 0 else nl
        rest = src[call_end:line_end].strip()
        if not rest:
            continue  # a word alone on its line is `dialect`'s (it looks at the next line)
        read_to = line_end
        if starts_declaration(rest, 0):
            pass
        elif paren is None and (ctor := _constructor(src, opaque, call_end)) is not None:
            read_to, read_from, is_ctor = ctor
            if not is_ctor:
                out.calls.append((min(line_start, read_from), read_to))  # (a class renamed later would change it)
                continue
            line_start = min(line_start, read_from)  # the class's name was read there
        else:
            continue
        out.calls.append((line_start, read_to))
        blank(buf, start, call_end)
        args = split_args(src, paren.end(), call_end - 1, opaque) if paren is not None else ()
        out.marks.append(Mark("specifier_macro", word.decode(), start, call_end, args))


def _lower_case_specifiers(ctx: PassContext) -> None:
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out
    lo, hi, scan_end = ctx.lo, ctx.hi, ctx.scan_end
    for m in opaque.code_matches(_LOWER_MACRO_RE, src, lo, hi, scan_end, group=1):
        start, end = m.span(1)
        word = m.group(1)
        if word in _KEYWORDS or buf[start:end] != src[start:end] or (start and src[start - 1] in b".>:"):
            continue
        line_start = src.rfind(b"\n", 0, start) + 1
        if not _only_specifiers_before(buf, line_start, start) or on_continuation_line(src, start):
            continue
        line_end = src.find(b"\n", end)
        out.calls.append((line_start, len(src) if line_end < 0 else line_end))
        blank(buf, start, end)
        out.marks.append(Mark("specifier_macro", word.decode(), start, end))


def _only_specifiers_before(buf: bytearray, line_start: int, pos: int) -> bool:
    """Whether the line holds only specifiers (or blanked text, or a template head) before pos."""
    before = _TEMPLATE_HEAD_RE.sub(b" ", bytes(buf[line_start:pos]))
    return all(w in _SPECIFIERS or w == b"extern" for w in before.split())


def _constructor(src: bytes, opaque: Opaque, pos: int) -> tuple[int, int, bool] | None:
    """Whether a constructor or destructor declarator starts at pos (`Name(`, `~Name(`, `K::K(`), with the range of
    text that decided it (its end, its start); None when the shape is not even a function head. A plain `Name(`
    counts only as the enclosing class's own name."""
    m = _CTOR_RE.match(src, pos)
    if m is None:
        return None
    parts = [p.strip() for p in m.group(1).split(b"::")]
    close = match_paren(src, m.end() - 1, opaque)
    if close < 0 or close - pos > _CALL_SCAN:
        return None
    tail = _CTOR_TAIL_RE.match(src, close + 1)
    if tail is None:
        return None
    name = parts[-1].lstrip(b"~")
    if len(parts) >= 2:
        return tail.end(), pos, parts[-2] == name  # `K::K(` or `K::~K(`, outside its class
    scope = declaration_scope(src, opaque, pos)
    if scope is None or scope < 0:
        return tail.end(), max(0, pos - SCOPE_SCAN), False  # (how far the scope look went back)
    head = src[scope : src.find(b"{", scope)]
    cls = _CLASS_NAME_RE.search(re.sub(rb"//[^\n]*|/\*.*?\*/", b" ", head, flags=re.S))
    return tail.end(), scope, cls is not None and cls.group(1) == name


def _operator_calls(ctx: PassContext) -> None:
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out
    lo, hi, scan_end = ctx.lo, ctx.hi, ctx.scan_end
    # `axes->operator[](i)` -> `axes->operator__(i)`: one member name, which the grammar calls.
    # (`.template operator()<T>(x)`: the `template` goes too; the `<T>` is `macro_forms`' operator template-id)
    for m in opaque.code_matches(_OPERATOR_CALL_RE, src, lo, hi, scan_end, group=2):
        start, end = m.span(2)
        buf[start:end] = b"_" * (end - start)
        if m.group(1):
            blank(buf, m.start(1), m.end(1))
        out.marks.append(Mark("operator_call", m.group(2).decode(), m.start(1) if m.group(1) else start, end))


def _chain_end_macros(ctx: PassContext) -> None:
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out
    lo, hi, scan_end = ctx.lo, ctx.hi, ctx.scan_end
    # `    .OP_END_FACTORY_REG(Data)` and then `}` or a new declaration, no `;`: the macro's expansion ends the
    # statement, so the call is blanked to a `;` (its argument only repeats the name). Only where declarations
    # stand: in a function body a chain without `;` is the author's error.
    for m in opaque.code_matches(_CHAIN_END_RE, src, lo, hi, scan_end, group=1):
        if not m.start() or src[m.start() - 1] not in b") \t\r\n":
            continue  # `a.B(` or `1.E(`: not a chain's next call
        close = match_paren(src, m.end() - 1, opaque)
        if close < 0 or buf[m.start(1) : close + 1] != src[m.start(1) : close + 1]:
            continue
        nxt = re.compile(rb"(?:\s|//[^\n]*|/\*.*?\*/)*(.)", re.S).match(src, close + 1)
        read_to = nxt.end() if nxt else close + 1
        if nxt is not None and nxt.group(1) in b";.,)=+-*/<>&|?:[(":
            out.calls.append((m.start(1), read_to))
            continue  # the chain goes on, or the statement has its own end
        scope = declaration_scope(src, opaque, m.start(1))
        if scope is None:
            out.far_reaching = True  # (a function body's chain without `;`: an error the author will fix)
            continue
        if scope < 0:
            out.far_reaching = True  # at file scope: a `{` typed anywhere above would put it in a function
        else:
            out.calls.append((scope, read_to))
        blank(buf, m.start(1), close + 1)
        buf[m.start(1)] = ord(";")
        out.marks.append(
            Mark("chain_end_macro", m.group(2).decode(), m.start(1), close + 1, split_args(src, m.end(), close, opaque))
        )
