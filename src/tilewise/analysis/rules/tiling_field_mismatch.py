"""The kernel reads tiling fields the struct lacks (does not compile), or the struct carries fields nobody reads.

Both halves must be proved, since a developer acts on them:
- "missing field" (error) only for a read through a variable bound by GET_TILING_DATA* to a struct whose whole
  definition is known (no base class), of a name that is no field of it nor of any struct nested in it;
- "never read" (info) only for a field of a struct the kernel itself names, whose name occurs nowhere in the
  text the kernel is built from (its files, the headers they include, macro bodies), and only when every use of
  the struct as a whole goes somewhere visible (a helper or a member typed as the struct). A struct handed to a
  macro or function we cannot read, or copied as bytes, may be read there: then nothing is said.
"""

from __future__ import annotations

import re

from tilewise.analysis.findings import Fix, edit_range
from tilewise.analysis.rules._kernel_text import KernelText, kernel_text
from tilewise.analysis.rules.base import Rule, RuleContext, indent_of

# Alignment padding and reserved words are never meant to be read.
_PADDING_RE = re.compile(r"^(reserved?|rsv|rsvd|pad|padding|dummy|placeholder)\w*$", re.I)
_SCALAR_TYPE_RE = re.compile(r"\b(u?int(8|16|32|64)_t|int|unsigned|long|short|char|float|double|bool|half|size_t)\b")
_SKIP_CALLEES = frozenset(
    (
        "GET_TILING_DATA",
        "GET_TILING_DATA_WITH_STRUCT",
        "GET_TILING_DATA_PTR_WITH_STRUCT",
        "GET_TILING_DATA_MEMBER",
        "REGISTER_TILING_DEFAULT",
        "REGISTER_TILING_FOR_TILINGKEY",
        "sizeof",
        "alignof",
        "decltype",
    )
)
_KEYWORDS = frozenset(("if", "while", "for", "switch", "return", "case"))


class TilingFieldMismatch(Rule):
    id = "tiling-field-mismatch"
    severity = "error"
    summary = "tiling fields read by the kernel but missing from the tiling struct, or the reverse"

    def check(self, ctx: RuleContext):
        model = ctx.model
        if not model.tiling.structs or not model.tiling_data_uses:
            return
        yield from self._missing(ctx)
        yield from self._unread(ctx)

    # ---- fields read but not declared ----------------------------------------------------------------------
    def _missing(self, ctx: RuleContext):
        model = ctx.model
        by_name = {s.name: s for s in model.tiling.structs}
        nested = {f.name for s in model.tiling.structs for f in s.fields}
        bound = {u.var: (u.struct or model.tiling.struct or "").split("::")[-1] for u in model.tiling_data_uses}
        reported: set[str] = set()
        for r in model.tiling_reads:
            struct = by_name.get(bound.get(r.var.lstrip("*&"), ""))
            if struct is None or r.field in reported or not _complete(ctx, struct):
                continue
            if r.field in {f.name for f in struct.fields} or r.field in nested or _is_call(ctx, r.loc):
                continue
            reported.add(r.field)
            yield self.finding(
                r.loc,
                (
                    f"the kernel reads '{r.field}' but tiling struct {struct.name} has no such field (does not "
                    "compile); "
                    f"add TILING_DATA_FIELD_DEF(uint32_t, {r.field}); to it and set it in the tiling function."
                ),
                self._add_field(ctx, struct.name, r.field),
            )
        main = by_name.get(model.tiling.struct or "")
        if main is None or not _complete(ctx, main):
            return
        for tf in model.tiling.functions:
            for s in tf.setters:
                if s.field in nested or s.field in reported or not _receiver_is(ctx, s.loc, main.name):
                    continue
                reported.add(s.field)
                yield self.finding(
                    s.loc,
                    (
                        f"the tiling function calls set_{s.field}() but {main.name} has no field "
                        f"'{s.field}' (does not compile); declare it with TILING_DATA_FIELD_DEF."
                    ),
                    self._add_field(ctx, main.name, s.field),
                )

    # ---- fields declared but never read --------------------------------------------------------------------
    def _unread(self, ctx: RuleContext):
        model = ctx.model
        kt = kernel_text(ctx)
        skip: dict[str, list[tuple[int, int]]] = {}
        for s in model.tiling.structs:  # a declaration is no use: leave every tiling struct's and field's out
            skip.setdefault(s.loc.file, []).append((s.loc.start, s.loc.end))
            for f in s.fields:
                skip.setdefault(f.loc.file, []).append((f.loc.start, f.loc.end))
        words = kt.words(skip)
        named = {(u.struct or model.tiling.struct or "").split("::")[-1] for u in model.tiling_data_uses}
        for name in dict.fromkeys(s.name for s in model.tiling.structs):
            if not (name in named or words.get(name)):
                continue
            # The definition the kernel is built with: the one in its own text when the host keeps a copy too.
            defs = [s for s in model.tiling.structs if s.name == name]
            defs = [s for s in defs if s.loc.file in kt.texts] or defs
            if len(defs) != 1 or _opaque_use(kt, name, model):
                continue  # which definition is built is unclear, or the struct escapes where we cannot read
            s = defs[0]
            if not _complete(ctx, s):
                continue  # a class with a base (a host `TilingBaseClass`): not shipped data, members not all known
            if _shared_with_other_ops(ctx, s.name):
                continue  # another operator's kernel, not in this project, may read what this one does not
            for f in s.fields:
                if f.struct_type is not None or words.get(f.name) or _PADDING_RE.match(f.name):
                    continue
                if not _SCALAR_TYPE_RE.search(f.type):
                    continue  # a struct member (`EleBaseTilingData base`): a library template may read it whole
                yield self.finding(
                    f.loc,
                    (
                        f"tiling field '{f.name}' of {s.name} is never read: its name occurs nowhere in the kernel's "
                        "sources or the headers they include, and the struct is only used where its reads are visible. "
                        "The host computes and ships it for nothing: remove it, or read it where it was meant to be "
                        "used."
                    ),
                    severity="info",
                )

    def _add_field(self, ctx: RuleContext, struct_name: str, name: str) -> list[Fix]:
        struct = next((s for s in ctx.model.tiling.structs if s.name == struct_name), None)
        if struct is None or struct.loc.file not in ctx.sources:
            return []
        sf = ctx.sources[struct.loc.file]
        end = next((m for m in sf.pre.marks if m.kind == "tiling_end" and m.start > struct.loc.start), None)
        if end is None:
            return []
        line_start = sf.data.rfind(b"\n", 0, end.start) + 1
        indent = indent_of(sf, struct.fields[-1].loc.start) if struct.fields else "    "
        text = f"{indent}TILING_DATA_FIELD_DEF(uint32_t, {name});\n"
        return [Fix(title=f"Add field '{name}' to {struct.name}", edits=[edit_range(sf, line_start, line_start, text)])]


def _shared_with_other_ops(ctx: RuleContext, struct: str) -> bool:
    """REGISTER_TILING_DATA_CLASS ties the struct to an operator other than this one (`SwiGluTilingData` registered for
    SwiGlu, SwiGluGrad and DequantSwigluQuant): that operator's kernel lives elsewhere and may read any field.
    `<Op>_<tiling key>` registrations (`BatchNormV3_910000`) are this operator's own."""
    own = ctx.model.opdef.name if ctx.model.opdef else None
    reg = re.compile(rf"\bREGISTER_TILING_DATA_CLASS\s*\(\s*(\w+)\s*,\s*{re.escape(struct)}\s*\)")
    ops = {
        re.sub(r"_\d+$", "", m.group(1))
        for p in ctx.model.host_files
        if (sf := ctx.sources.get(p)) is not None
        for m in reg.finditer(sf.text)
    }
    return len(ops - {own}) > (0 if own else 1)


def _complete(ctx: RuleContext, struct) -> bool:
    """The struct's fields are all known: a BEGIN_TILING_DATA_DEF one, or a plain struct without a base class."""
    sf = ctx.sources.get(struct.loc.file)
    if sf is None:
        return False
    if any(m.kind == "tiling_begin" and m.start == struct.loc.start for m in sf.pre.marks):
        return True
    after = sf.data[struct.loc.end : struct.loc.end + 400].decode("utf-8", "replace")
    head = after.split("{", 1)[0]
    return "{" in after and ":" not in head


def _is_call(ctx: RuleContext, loc) -> bool:
    sf = ctx.sources.get(loc.file)
    return sf is not None and sf.data[loc.end : loc.end + 40].lstrip().startswith(b"(")


def _receiver_is(ctx: RuleContext, loc, struct: str) -> bool:
    """The setter is called on a variable the same file declares as `struct`."""
    sf = ctx.sources.get(loc.file)
    if sf is None:
        return False
    call = sf.data[loc.start : loc.end].decode("utf-8", "replace")
    m = re.match(r"\s*(\w+)\s*(?:\.|->)\s*set_", call)
    return (
        m is not None and re.search(rf"\b{re.escape(struct)}\s*[*&]?\s*{re.escape(m.group(1))}\b", sf.text) is not None
    )


def _opaque_use(kt: KernelText, struct: str, model) -> bool:
    """True when a variable of this struct is used whole somewhere its reads cannot be seen: passed to a function
    or macro the kernel's sources do not define, cast to bytes, or stored into something not typed as the struct."""
    typed = _declared_as(kt, struct)
    # Members and variables typed as any tiling struct: `tilingPtr_(tilingData)` in a constructor stores it there.
    typed_any = set(typed)
    for other in {s.name for s in model.tiling.structs} - {struct}:
        typed_any |= _declared_as(kt, other)
    names = typed | {
        u.var.lstrip("*&")
        for u in model.tiling_data_uses
        if (u.struct or model.tiling.struct or "").split("::")[-1] == struct
    }
    defined = _defined_names(kt)
    todo, done = list(names), set()
    while todo:
        var = todo.pop()
        if var in done or not var.isidentifier():
            continue
        done.add(var)
        for text in kt.texts.values():
            for m in re.finditer(rf"(?<![\w.>:])\b{re.escape(var)}\b", text):
                verdict = _whole_use(text, m.start(), m.end(), typed, typed_any, defined)
                if verdict is True:
                    return True
                if isinstance(verdict, str):  # `auto copy = var;`: follow the copy
                    todo.append(verdict)
    return False


def _declared_as(kt: KernelText, struct: str) -> set[str]:
    """Names the kernel declares with this struct as their type (`const Foo* __restrict t`, `Foo tiling_{}`)."""
    decl_re = re.compile(
        rf"\b{re.escape(struct)}\b(?:\s*<[^<>;]*>)?\s*(?:const\s+)?(?:__gm__\s+)?[*&]*\s*"
        r"(?:const\s+)?(?:__restrict(?:__)?\s+)?(\w+)\s*(?=[;,)=\[{(])"
    )
    return {m.group(1) for text in kt.texts.values() for m in decl_re.finditer(text)}


def _whole_use(text: str, start: int, end: int, typed: set[str], typed_any: set[str], defined: set[str]) -> bool | str:
    """Is this occurrence of a struct variable an opaque use (True), harmless (False), or a copy to follow (name)?"""
    after = text[end : end + 40].lstrip()
    if after.startswith((".", "->", "[", "::")) or re.match(r"=(?!=)", after):
        return False  # a field read (or a member of an array of structs), or the variable being assigned
    before = text[max(0, start - 200) : start]
    if re.search(r"\w\s*[*&]*\s*$", before) and not re.search(r"\b(return|case)\s*[*&]*\s*$", before):
        return False  # its declaration (`Foo tiling`, `const Foo* __restrict t`), or `struct Foo` spelled out
    stripped = before.rstrip().rstrip("&*").rstrip()
    if stripped.endswith(")") and re.search(r"\(\s*[\w:\s<>]*[*&]\s*\)\s*[&*]?\s*$", before):
        return True  # a C cast to a pointer: the bytes go somewhere
    if re.search(r"_cast\s*<[^<>]*>\s*\(\s*[&*]?\s*$", before):
        return True
    callee = _enclosing_callee(text, start)
    if callee is not None:
        if callee in _SKIP_CALLEES or callee in typed_any:
            return False  # sizeof, GET_TILING_DATA, or a member initialiser `tiling_(tiling)`
        return callee not in defined  # a helper or macro we can read: its reads are words of the kernel text
    stmt_start = max(text.rfind(";", 0, start), text.rfind("{", 0, start), text.rfind("}", 0, start)) + 1
    stmt = text[stmt_start:start]
    m = re.search(r"(?:\bauto\s*[*&]?\s*(\w+)|([\w.>\-\]\[]+))\s*=\s*[*&]?\s*$", stmt)
    if m is None:
        return True  # returned, compared or something else we do not follow
    if m.group(1):
        return m.group(1)
    target = re.findall(r"\w+", m.group(2))
    return not target or target[-1] not in typed_any


def _enclosing_callee(text: str, pos: int) -> str | None:
    """The function or macro whose argument list holds `pos`, within the statement; None when not in a call."""
    depth = 0
    i = pos - 1
    while i >= 0:
        c = text[i]
        if c == ")":
            depth += 1
        elif c == "(":
            if depth == 0:
                head = text[max(0, i - 200) : i]
                m = re.search(r"(\w+)\s*(?:<[^<>()]*>)?\s*$", head)
                # `Kernel<T> op(&pipe, &tiling);` constructs a Kernel: its constructor is the callee
                ctor = re.search(r"(\w+)\s*(?:<[^;{}()]*>)?\s+\w+\s*$", head)
                if ctor and ctor.group(1) not in _KEYWORDS | {"return", "const", "auto"}:
                    return ctor.group(1)
                if m and m.group(1) not in _KEYWORDS:
                    return m.group(1)
                if m:  # `if (tiling)`, `while (...)`: the struct is not passed anywhere
                    return "sizeof"
            else:
                depth -= 1
        elif c in ";{}" and depth == 0:
            return None
        i -= 1
    return None


def _defined_names(kt: KernelText) -> set[str]:
    """Functions and function-like macros the kernel's sources define (their bodies are part of the text)."""
    names: set[str] = set()
    for text in kt.texts.values():
        names.update(re.findall(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(", text, re.M))
        names.update(re.findall(r"\b(?:class|struct)\s+(\w+)[^;{]*\{", text))  # constructors live in the body
        names.update(
            m.group(1)
            for m in re.finditer(
                r"\b(\w+)\s*\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)\s*(?:const\s*)?(?:override\s*)?(?:noexcept\s*)?\{",
                text,
            )
        )
    return names - _KEYWORDS
