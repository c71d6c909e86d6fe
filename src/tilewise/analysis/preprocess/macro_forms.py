"""Macro uses in declarations that CANN compiles and tree-sitter-cpp misreads (issue 12), found on public operators:

- an attribute-like macro call among a function's specifiers: `__simt_vf__ __aicore__ LAUNCH_BOUND(256) inline
  void F(...)`;
- a macro call as the type of a using-alias: `using ConstZero = MAKE_CONST(uint8_t, 0);`;
- a macro call standing as a declaration where a statement cannot be (a class body, namespace or file scope) whose
  arguments no parameter list reads: `EXTERN_IMPL_BUFPOOL(Pool, TPosition::VECCALC, 16);`, a tiling-key list
  `ASCENDC_TPL_SEL(SEL3(A, B, C), ...);` built from a local macro;
- template arguments on an operator's name in an explicit specialization: `template <> void operator()<AIC>(...)`;
- a format macro between string literals: `"shape[%" PRId64 "]"`;
- a call, alone on its line and without `;`, of a function-like macro the same file defines as statements.

Each rewrite keeps byte length and line breaks and is recorded as a `Mark` (with the arguments where they go), and
the text each decision read goes into `Preprocessed.calls` (see `dialect`).
"""

from __future__ import annotations

import re

from tilewise.analysis.preprocess.context import Mark, PassContext
from tilewise.analysis.preprocess.scan import blank, declaration_scope, match_paren, split_args

_SPEC_CALL_RE = re.compile(rb"\b([A-Z][A-Z0-9_]*[A-Z0-9])[ \t]*\(")
_SPEC_AFTER_RE = re.compile(
    rb"\s*(?:inline|void|static|constexpr|__\w+__|[A-Za-z_][\w:]*(?:<[^;{}()]*>)?[\s*&]+"
    rb"[A-Za-z_]\w*\s*\()"
)
_TEMPLATE_HEAD_RE = re.compile(rb"^\s*template\s*<.*>")
_SPECIFIER_WORDS = frozenset({b"static", b"inline", b"constexpr", b"extern", b"virtual", b"friend"})
_USING_CALL_RE = re.compile(rb"\busing[ \t]+[A-Za-z_]\w*[ \t]*=[ \t]*[A-Z][A-Z0-9_]*[A-Z0-9][ \t]*\(")
_DECL_CALL_RE = re.compile(rb"^[ \t]*([A-Z][A-Z0-9_]*[A-Z0-9])[ \t]*\(", re.M)
_NOT_PARAMETER_RE = re.compile(rb"\b\d|\"|\(")  # a literal, a string or a nested call: no parameter list holds it
_OPERATOR_TID_RE = re.compile(rb"\boperator[ \t]*(?:\(\)|\[\]|[-+*/%^&|~!=<>]{1,3})[ \t]*(<)")
_STRING_MACRO_RE = re.compile(rb'"[ \t]*([A-Z][A-Za-z0-9_]*)[ \t]*"')
_LAST_STRING_MACRO_RE = re.compile(rb'"\s*([A-Z][A-Za-z0-9_]*)(?=\s*[,);])')
_CAPS_NAME_RE = re.compile(rb"[A-Z][A-Z0-9_]+")
_FN_DEFINE_RE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(", re.M)


def neutralise_macro_forms(ctx: PassContext) -> None:
    """The rewrites above, for constructs that start in [ctx.lo, ctx.hi); scans stop at `ctx.scan_end`."""
    src = ctx.src
    if b"(" in src:
        _specifier_calls(ctx)
        _declaration_calls(ctx)
        _statement_macro_calls(ctx)
    if b"using" in src:
        _using_calls(ctx)
    if b"operator" in src:
        _operator_template_ids(ctx)
    if b'"' in src:
        _string_macros(ctx)


def _specifier_calls(ctx: PassContext) -> None:
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out
    lo, hi, scan_end = ctx.lo, ctx.hi, ctx.scan_end
    # `__aicore__ LAUNCH_BOUND(N) inline void F(`: only qualifiers (already blanked) or `template <...>` before it
    # on its line, and a declaration after it.
    for m in opaque.code_matches(_SPEC_CALL_RE, src, lo, hi, scan_end):
        line_start = src.rfind(b"\n", 0, m.start()) + 1
        before = _TEMPLATE_HEAD_RE.sub(b" ", bytes(buf[line_start : m.start()])).split()
        if any(w not in _SPECIFIER_WORDS for w in before):
            continue
        close = match_paren(src, m.end() - 1, opaque)
        if close < 0:
            continue  # (the statement-macro pass already marks an unclosed call far-reaching)
        after = _SPEC_AFTER_RE.match(src, close + 1)
        if after is None:
            continue
        out.calls.append((line_start, after.end()))
        blank(buf, m.start(), close + 1)
        out.marks.append(
            Mark("specifier_macro", m.group(1).decode(), m.start(), close + 1, split_args(src, m.end(), close, opaque))
        )


def _using_calls(ctx: PassContext) -> None:
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out
    lo, hi, scan_end = ctx.lo, ctx.hi, ctx.scan_end
    # `using C = MAKE_CONST(T, 0);` -> `using C = MAKE_CONST         ;`: an alias of the macro's name, a type.
    for m in opaque.code_matches(_USING_CALL_RE, src, lo, hi, scan_end):
        close = match_paren(src, m.end() - 1, opaque)
        if close < 0:
            continue
        blank(buf, m.end() - 1, close + 1)
        name = src[m.start() : m.end() - 1].rsplit(b"=", 1)[1].strip().decode()
        out.marks.append(Mark("using_macro", name, m.start(), close + 1, split_args(src, m.end(), close, opaque)))


def _declaration_calls(ctx: PassContext) -> None:
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out
    lo, hi, scan_end = ctx.lo, ctx.hi, ctx.scan_end
    # `NAME(Pool, Pos::VECCALC, 16);` where only declarations may stand: the arguments go, `NAME(   );` stays.
    for m in opaque.code_matches(_DECL_CALL_RE, src, lo, hi, scan_end, group=1):
        close = match_paren(src, m.end() - 1, opaque)
        if close < 0 or src[close + 1 : close + 2] != b";" or buf[m.start(1) : m.end()] != src[m.start(1) : m.end()]:
            continue  # (or an earlier pass rewrote it: a tiling macro)
        if any(buf[i] != src[i] and buf[i] != 0x5F for i in range(m.end(), close)):
            continue  # a statement macro's arguments, already blanked (a type argument's `___` is blanked below)
        inner = src[m.end() : close]
        if b"=" in inner or not any(
            not opaque.contains(m.end() + h.start()) for h in _NOT_PARAMETER_RE.finditer(inner)
        ):
            continue
        scope = declaration_scope(src, opaque, m.start(1))
        if scope is None:
            continue
        if scope < 0:
            out.far_reaching = True  # at file scope: a `{` typed anywhere above would put it in a function
        else:
            out.calls.append((scope, close + 2))
        blank(buf, m.end(), close)
        out.marks.append(
            Mark("decl_macro", m.group(1).decode(), m.start(1), close + 1, split_args(src, m.end(), close, opaque))
        )


def _statement_macro_calls(ctx: PassContext) -> None:
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out
    lo, hi, scan_end = ctx.lo, ctx.hi, ctx.scan_end
    # `#define NotEqual_0() if (i == 0) { ... }` then `NotEqual_0()` alone on a line: the macro brings its own end.
    # (capitalised names are the statement-macro pass's, which needs no #define)
    names = {
        m.group(1)
        for m in _FN_DEFINE_RE.finditer(src)
        if not opaque.contains(m.start(1)) and not _CAPS_NAME_RE.fullmatch(m.group(1))
    }
    if not names:
        return
    call_re = re.compile(rb"^[ \t]*(" + b"|".join(re.escape(n) for n in sorted(names)) + rb")[ \t]*\(", re.M)
    for m in opaque.code_matches(call_re, src, lo, hi, scan_end, group=1):
        close = match_paren(src, m.end() - 1, opaque)
        if close < 0:
            continue
        nl = src.find(b"\n", close)
        rest = src[close + 1 : nl if nl >= 0 else len(src)].strip()
        if rest and not (rest.startswith((b"//", b"/*")) and opaque.contains(src.index(rest[:2], close + 1))):
            continue
        nxt = src[nl:].lstrip()[:1] if nl >= 0 else b""
        if nxt and nxt in b";.,)=+-*/<>&|?:[":
            continue  # continued by an operator: an expression, not a statement
        out.far_reaching = True  # the decision read a #define anywhere in the file
        blank(buf, m.start(1), close + 1)
        out.marks.append(
            Mark("macro_stmt", m.group(1).decode(), m.start(1), close + 1, split_args(src, m.end(), close, opaque))
        )


def _operator_template_ids(ctx: PassContext) -> None:
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out
    lo, hi, scan_end = ctx.lo, ctx.hi, ctx.scan_end
    # `operator()<AscendC::AIC>(params)` -> `operator()                (params)`: the grammar has no template-id
    # for operator names; the arguments only say which specialization this is.
    for m in opaque.code_matches(_OPERATOR_TID_RE, src, lo, hi, scan_end):
        open_pos, depth, i = m.start(1), 0, m.start(1)
        while i < min(len(src), open_pos + 256):
            c = src[i]
            depth += (c == 0x3C) - (c == 0x3E)
            if depth == 0 or c in b";{}":
                break
            i += 1
        if depth or i >= len(src) or src[i] != 0x3E:
            continue
        paren = re.compile(rb"\s*\(").match(src, i + 1)
        if paren is None:
            continue
        out.calls.append((m.start(), paren.end()))
        blank(buf, open_pos, i + 1)
        out.marks.append(
            Mark("operator_template_args", src[open_pos + 1 : i].decode("utf-8", "replace").strip(), open_pos, i + 1)
        )


def _string_macros(ctx: PassContext) -> None:
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out
    lo, hi, scan_end = ctx.lo, ctx.hi, ctx.scan_end
    # `"%" PRId64 "x"`: a macro expanding to a string literal between two literals; the grammar concatenates only
    # literals. The quotes must close one literal and open the next (both are literal bounds, the word is not).
    for m in _STRING_MACRO_RE.finditer(src, lo, scan_end):
        if m.start() >= hi:
            break
        word = m.start(1)
        if opaque.contains(word) or not opaque.contains(m.start()) or not opaque.contains(m.end() - 1):
            continue
        if opaque.end_of(m.start()) != m.start() + 1 or opaque.start_of(m.end() - 1) != m.end() - 1:
            continue
        blank(buf, word, m.end(1))
        out.marks.append(Mark("string_macro", m.group(1).decode(), word, m.end(1)))
    # `LOG("n=%" PRId64, n)`: the macro ends the string; only a literal can stand between `"` and `,`/`)`/`;`
    for m in _LAST_STRING_MACRO_RE.finditer(src, lo, scan_end):
        if m.start() >= hi:
            break
        word = m.start(1)
        if opaque.contains(word) or not opaque.contains(m.start()) or opaque.end_of(m.start()) != m.start() + 1:
            continue
        if buf[word : m.end(1)] != src[word : m.end(1)]:
            continue
        blank(buf, word, m.end(1))
        out.marks.append(Mark("string_macro", m.group(1).decode(), word, m.end(1)))
