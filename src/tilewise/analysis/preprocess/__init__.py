"""Make AscendC digestible for tree-sitter-cpp without moving a single byte.

tree-sitter-cpp reads standard C++. AscendC adds function/pointer qualifiers (`__aicore__`, `__gm__`), the
tiling-struct macros, `<<<...>>>` kernel launches, and (in public code) statement-like macros with control flow in
their arguments. Each of these is *neutralised*: overwritten in place with text of exactly the same byte length
(spaces, or a token that keeps the C++ well formed). Byte offsets, lines and columns therefore map 1:1 between the
user's text and the parsed text, and what the user wrote is kept as `Mark`s for the operator model.

The work is a sequence of passes, one module each, over one `PassContext` (`context`), with the scanning helpers
they share in `scan`:

- `ascendc`: AscendC's own syntax (qualifiers, tiling macros, launches, statement macros);
- `dialect`: forms public code uses on top of that (`if ASCEND_IS_AIV {`, export macros, `->*`, `= {}` defaults,
  attributes, `#define` bodies, `using a, b;`, `#` lines that are no directive);
- `macro_forms`: macro calls in declarations (specifier calls, using-aliases, declaration macros, `"%" PRId64`);
- `decl_specifiers`: unknown macro words among a declaration's specifiers, explicit operator calls, chain ends;
- `conditionals`: the `#if` branches the device does not compile, blanked (a whole-file pass, last).

Order matters: a later pass skips what an earlier one rewrote (it compares `ctx.buf` with `ctx.src`). Before them
all, a line splice written with blanks after its backslash (which the compilers accept) is spelled the way the
grammar reads one (`context.spell_splices`), so every pass and the grammar agree on where a `#define` ends.
"""

from __future__ import annotations

from collections.abc import Callable

from tilewise.analysis.preprocess.ascendc import neutralise_ascendc
from tilewise.analysis.preprocess.conditionals import DIRECTIVE_RE, neutralise_conditionals
from tilewise.analysis.preprocess.context import (
    OPAQUE_RE,
    Arg,
    Mark,
    Opaque,
    PassContext,
    Preprocessed,
    spell_splices,
    splice_may_cross,
)
from tilewise.analysis.preprocess.decl_specifiers import neutralise_specifier_macros
from tilewise.analysis.preprocess.dialect import neutralise_dialect
from tilewise.analysis.preprocess.macro_forms import neutralise_macro_forms

__all__ = ["Arg", "Mark", "Preprocessed", "preprocess", "reprocess"]

# Every pass but the conditionals, in order: they handle constructs that start in [ctx.lo, ctx.hi), so `reprocess`
# can run them on a window.
_LOCAL_PASSES: tuple[Callable[[PassContext], None], ...] = (
    neutralise_ascendc,
    neutralise_dialect,
    neutralise_macro_forms,
    neutralise_specifier_macros,
)


def preprocess(src: bytes) -> Preprocessed:
    """Neutralise AscendC-only syntax in `src`; the result has exactly the same length and line structure."""
    ctx = PassContext.whole(src)
    for step in _LOCAL_PASSES:
        step(ctx)
    neutralise_conditionals(ctx)
    out = ctx.out
    out.text = bytes(ctx.buf)
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
    if splice_may_cross(src, lo) or splice_may_cross(src, new_hi):
        return None  # a splice `spell_splices` moves would be cut (the caller's whole lines never are)
    src = spell_splices(src)
    if any(
        a < lo < b or a < hi < b for ranges in (old.opaque, old.calls, [m[2:4] for m in old.marks]) for a, b in ranges
    ):
        return None  # a comment, a macro's arguments or a neutralised construct cross the window's edge
    window_opaque = []
    for m in OPAQUE_RE.finditer(src, lo):
        if m.start() >= new_hi:
            break
        if m.end() > new_hi:
            return None  # e.g. a `/*` typed without its `*/`: everything after it changed
        window_opaque.append(m.span())
    head = [r for r in old.opaque if r[1] <= lo]
    tail = [(a + delta, b + delta) for a, b in old.opaque if a >= hi]
    opaque = Opaque(src, head + window_opaque + tail)
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
    ctx = PassContext(src, bytearray(src), opaque, Preprocessed(b"", [], opaque.ranges), lo, new_hi, scan_end)
    for step in _LOCAL_PASSES:
        step(ctx)
    buf, out = ctx.buf, ctx.out
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
