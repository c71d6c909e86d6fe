"""AscendC's own syntax, neutralised for tree-sitter-cpp: function and pointer qualifiers (`__aicore__`, `__gm__`),
the tiling-struct macros, `<<<...>>>` kernel launches, `obj.template F(x)` without template arguments, a code
generator's `{{placeholders}}`, and statement-like macros with control flow (or types) in their arguments.

The first of the passes (see `analysis.preprocess`): each construct is overwritten in place with text of exactly the
same byte length, and what the user wrote is kept as a `Mark` for the operator model.
"""

from __future__ import annotations

import re

from tilewise.analysis.preprocess.context import Mark, Opaque, PassContext, Preprocessed
from tilewise.analysis.preprocess.scan import (
    WORD_BYTES,
    blank,
    match_paren,
    on_continuation_line,
    past_space,
    put,
    split_args,
)

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


def neutralise_ascendc(ctx: PassContext) -> None:
    """The rewrites above, for constructs that start in [ctx.lo, ctx.hi); they may read the text around, and the
    scans for them stop at `ctx.scan_end`."""
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out
    lo, hi, scan_end = ctx.lo, ctx.hi, ctx.scan_end
    marks = out.marks
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
            close = match_paren(src, open_pos, opaque) if src[open_pos : open_pos + 1] == b"(" else -1
            if close < 0 and src[open_pos : open_pos + 1] == b"(":
                out.far_reaching = True  # a `)` typed later would close the arguments
            if close >= 0:
                blank(buf, start, close + 1)
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
        args = split_args(src, m.end(), close, opaque)
        blank(buf, m.start(), close + 3)
        marks.append(Mark("launch", callee.group(1).decode() if callee else "", m.start(), close + 3, args))

    for m in _TEMPLATE_NO_ARGS_RE.finditer(src, lo, scan_end) if b"template" in src else ():
        if m.start() >= hi:
            break
        # `obj.template Method(arg)` without template arguments: Huawei's compiler accepts it, C++ does not
        before = src[max(0, m.start() - 64) : m.start()].rstrip()
        if (before.endswith(b".") or before.endswith(b"->")) and not opaque.contains(m.start()):
            blank(buf, m.start(), m.end())

    for m in opaque.code_matches(_PLACEHOLDER_RE, src, lo, hi, scan_end) if b"{{" in src else ():
        # A code generator's template (`void {{op_name}}_kernel(`): the placeholder glued to a name is part of an
        # identifier, which valid C++ braces never are. It becomes one of the same length.
        start, end = m.span()
        buf[start:end] = b"__" + re.sub(rb"[^\w]", b"_", src[start + 2 : end - 2]) + b"__"

    _neutralise_statement_macros(ctx)


def _neutralise_tiling_macro(src: bytes, buf: bytearray, m: re.Match, opaque: Opaque, out: Preprocessed) -> None:
    name = m.group(1).decode()
    if name == "END_TILING_DATA_DEF":
        blank(buf, m.start(), m.end())
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
    close = match_paren(src, open_pos, opaque)
    if close < 0:
        out.far_reaching = True  # a later `)` would change this
        return
    args = split_args(src, open_pos + 1, close, opaque)
    kind = {
        "BEGIN_TILING_DATA_DEF": "tiling_begin",
        "TILING_DATA_FIELD_DEF": "tiling_field",
        "TILING_DATA_FIELD_DEF_ARR": "tiling_field_arr",
        "TILING_DATA_FIELD_DEF_STRUCT": "tiling_field_struct",
        "REGISTER_TILING_DATA_CLASS": "tiling_register",
    }[name]
    out.marks.append(Mark(kind, name, m.start(), close + 1, args))
    blank(buf, m.start(), close + 1)
    if kind == "tiling_begin" and args:
        # `BEGIN_TILING_DATA_DEF(Name)` -> `struct ... Name {`
        put(buf, m.start(), b"struct")
        put(buf, args[0].start, src[args[0].start : args[0].end])
        buf[close] = ord("{")
    elif kind in ("tiling_field", "tiling_field_arr", "tiling_field_struct") and len(args) >= 2:
        # keep `type` and `name` where they stand: `TYPE   NAME ;` is a plain member declaration
        type_arg, name_arg = args[0], args[-1]
        put(buf, type_arg.start, src[type_arg.start : type_arg.end])
        put(buf, name_arg.start, src[name_arg.start : name_arg.end])
        following = past_space(src, close + 1)
        out.calls.append((m.start(), following + 1))  # the decision below reads up to the next code byte
        if src[following : following + 1] != b";":
            buf[close] = ord(";")  # the macro brings its own `;`, so public code often leaves it out


def _neutralise_statement_macros(ctx: PassContext) -> None:
    """Macros such as `OP_CHECK(cond, LOG(..), return ge::GRAPH_FAILED);` carry statements in their arguments;
    macros such as `ALIGN_UP(n, float)` take types. Plain C++ can't read either, the real compiler can."""
    src, buf, opaque, out = ctx.src, ctx.buf, ctx.opaque, ctx.out
    pos, hi, scan_end = ctx.lo, ctx.hi, ctx.scan_end
    while True:
        m = _CAPS_CALL_RE.search(src, pos, scan_end)
        if not m or m.start() >= hi:
            return
        pos = m.end()
        if m.start() and (src[m.start() - 1] in WORD_BYTES):
            continue  # inside a longer word (the pattern has no leading \b: it scans three times faster without)
        name = m.group(0)[: m.group(0).index(b"(")].rstrip()
        if opaque.contains(m.start()) or name in (b"TILING_KEY_IS", b"GET_TILING_DATA"):
            continue
        if _TILING_MACRO_RE.fullmatch(name):
            continue
        open_pos = m.end() - 1
        close = match_paren(src, open_pos, opaque)
        if close < 0:
            out.far_reaching = True  # a `)` typed later would make this a macro to neutralise
            continue
        out.calls.append((m.start(), close + 1))
        inner = src[open_pos + 1 : close]
        before = src[max(0, m.start() - 80) : m.start()].rstrip()
        if name in _VANISHING and before[-1:].isalnum() | before.endswith((b"_", b")")):
            # `x = n ASSERT(n != 0);` compiles because ASSERT expands to nothing in the NPU build
            blank(buf, m.start(), close + 1)
            out.marks.append(Mark("macro_stmt", name.decode(), m.start(), close + 1))
            pos = close + 1
            continue
        if _alone_on_its_lines(src, m.start(), close, opaque) and not on_continuation_line(src, m.start()):
            # `DECLARE_KERNELS(half)` on a line of its own, no `;`: expands to declarations; plain C++ can't read it
            # (not in a `#define` body, where the call is the body's text: blanking would take its continuations)
            blank(buf, m.start(), close + 1)
            out.marks.append(
                Mark("macro_stmt", name.decode(), m.start(), close + 1, split_args(src, open_pos + 1, close, opaque))
            )
            pos = close + 1
            continue
        if _has_code_outside_opaque(_CONTROL_IN_ARGS_RE, inner, open_pos + 1, opaque) or _EMPTY_ARG_RE.search(
            _without_comments(inner, open_pos + 1, opaque)
        ):
            args = split_args(src, open_pos + 1, close, opaque)
            blank(buf, open_pos + 1, close)
            out.marks.append(Mark("macro_stmt", name.decode(), m.start(), close + 1, args))
            pos = close + 1
            continue
        for arg in split_args(src, open_pos + 1, close, opaque):
            words = arg.text.split()
            if words and all(w.encode() in _TYPE_KEYWORDS or w == "*" for w in words):
                for i in range(arg.start, arg.end):
                    if buf[i] not in b" \t\n*":
                        buf[i] = ord("_")
                out.marks.append(Mark("macro_type_arg", name.decode(), arg.start, arg.end, (arg,)))


def _alone_on_its_lines(src: bytes, start: int, close: int, opaque: Opaque) -> bool:
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


def _without_comments(inner: bytes, base: int, opaque: Opaque) -> bytes:
    """`inner` (which starts at `base`) with its comments blanked: `ARGS(a, // note` ends in an empty argument."""
    if b"/" not in inner:
        return inner
    out = bytearray(inner)
    for i in range(len(inner) - 1):
        if inner[i : i + 2] in (b"//", b"/*") and opaque.contains(base + i) and opaque.start_of(base + i) == base + i:
            end = min(opaque.end_of(base + i) - base, len(inner))
            out[i:end] = b" " * (end - i)
    return bytes(out)


def _has_code_outside_opaque(regex: re.Pattern, inner: bytes, base: int, opaque: Opaque) -> bool:
    return any(not opaque.contains(base + hit.start()) for hit in regex.finditer(inner))
