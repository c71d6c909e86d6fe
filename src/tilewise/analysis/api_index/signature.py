"""A documented AscendC prototype, read into its parts: template parameters, specifiers, return type, name,
parameters and trailing qualifiers.

The API reference writes each form as C++ text (`template <typename T, bool isSetMask = true>` then
`__aicore__ inline void Add(const LocalTensor<T>& dst, ..., const int32_t& count)`). The compile probes
(device/emulator/api_probe.py) need the parts: which template parameters a caller names, the parameter list
without default arguments (a function type allows none), and the return type, to spell the function pointer a
generic caller converts the API to. Only declarations are read, never bodies; what does not parse as one is
None, and the index keeps it as text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Specifiers and annotations that may precede a return type in the reference: never part of a function's type.
_SPECIFIERS = {
    "__aicore__",
    "__simd_callee__",
    "__simd_vf__",
    "__host__",
    "__device__",
    "__global__",
    "inline",
    "static",
    "constexpr",
    "explicit",
    "virtual",
    "extern",
    "friend",
    "__forceinline__",
}
_ANNOTATION = re.compile(r"__(?:inout|in|out)_pipe__\s*\([^)]*\)|__attribute__\s*\(\(.*?\)\)|\[\[[^\]]*\]\]")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_NAME = re.compile(r"(?:[A-Za-z_]\w*\s*::\s*)*(?:operator\s*(?:\(\s*\)|\[\s*\]|[^\s(]+)|~?[A-Za-z_]\w*)\s*$")
_NO_NAME_REST = {"", "const", "volatile", "unsigned", "signed", "long", "short", "struct", "class", "enum", "typename"}


@dataclass(slots=True)
class TemplateParam:
    """One template parameter: `kind` is "type" (typename/class), "value" (a non-type parameter of `type`) or
    "template" (a template template parameter); `pack` for a `...` parameter."""

    kind: str
    name: str
    type: str = ""
    default: str | None = None
    pack: bool = False


@dataclass(slots=True)
class Param:
    """One function parameter: its declaration text without the default argument, the name in it (None when the
    reference leaves it unnamed), and whether it is a parameter pack or C varargs."""

    text: str
    name: str | None
    default: str | None = None
    pack: bool = False
    varargs: bool = False


@dataclass(slots=True)
class Signature:
    """A parsed prototype. `name` is the unqualified name (`Add`, `operator[]`, `~TPipe`), `scope` what qualified
    it in the text (`TilingContext::`), `trailing` the qualifiers after the parameter list (`const`, `noexcept`)."""

    name: str
    scope: str
    return_type: str
    params: list[Param]
    template: list[TemplateParam] = field(default_factory=list)
    trailing: str = ""
    specifiers: list[str] = field(default_factory=list)

    @property
    def is_const(self) -> bool:
        return bool(re.search(r"\bconst\b", self.trailing))

    @property
    def variadic(self) -> bool:
        return any(p.pack for p in self.params) or any(t.pack for t in self.template)

    def param_types(self) -> list[str]:
        """The parameters' declarations with names removed: the part of a form that tells overloads apart."""
        out = []
        for p in self.params:
            if p.varargs:
                out.append("...")
            elif p.name is None:
                out.append(p.text)
            else:
                out.append(_drop_name(p.text, p.name))
        return out


def squash(text: str) -> str:
    """Whitespace runs as one blank, none beside brackets and commas: one spelling per declaration."""
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s*([<>(),\[\]&*])\s*", r"\1", text)
    text = re.sub(r",", ", ", text)
    text = re.sub(r"([&*]+)(?=[A-Za-z_])", r"\1 ", text)
    text = re.sub(r">(?=[A-Za-z_])", "> ", text)
    return text


def _drop_name(text: str, name: str) -> str:
    m = re.search(rf"\b{re.escape(name)}\b(?=\s*(\[[^\]]*\]\s*)*$)", text)
    if m is None:
        return squash(text)
    return squash(text[: m.start()] + text[m.end() :])


def split_top(text: str, sep: str = ",") -> list[str]:
    """`text` cut at each `sep` outside (), [], {} and template brackets."""
    out: list[str] = []
    cur: list[str] = []
    depth = angle = 0
    prev = ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "<" and (prev.isalnum() or prev in "_: >"):
            angle += 1
        elif ch == ">" and angle > 0 and prev != "-":
            angle -= 1
        if ch == sep and depth == 0 and angle == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        if not ch.isspace():
            prev = ch
    out.append("".join(cur))
    return [s.strip() for s in out if s.strip()]


def _split_default(text: str) -> tuple[str, str | None]:
    """`const uint32_t count = 0` -> ("const uint32_t count", "0"); an `=` inside brackets is not a default."""
    depth = angle = 0
    prev = ""
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "<" and (prev.isalnum() or prev in "_: "):
            angle += 1
        elif ch == ">" and angle > 0:
            angle -= 1
        elif ch == "=" and depth == 0 and angle == 0 and text[i + 1 : i + 2] != "=" and prev not in "=!<>":
            return text[:i].strip(), text[i + 1 :].strip()
        if not ch.isspace():
            prev = ch
    return text.strip(), None


def parse_template(text: str) -> list[TemplateParam] | None:
    """`template <typename T, bool isSetMask = true>` into its parameters; None when it is not a template head."""
    m = re.match(r"\s*template\s*<(.*)>\s*$", text, re.S)
    if m is None:
        return None
    out: list[TemplateParam] = []
    for part in split_top(m.group(1)):
        decl, default = _split_default(part)
        pack = "..." in decl
        decl = decl.replace("...", " ").strip()
        tm = re.match(r"template\s*<.*>\s*(?:class|typename)\s+(\w+)$", decl, re.S)
        if tm:
            out.append(TemplateParam("template", tm.group(1), default=default, pack=pack))
            continue
        words = decl.split()
        if words and words[0] in ("typename", "class") and len(words) <= 2:
            out.append(TemplateParam("type", words[1] if len(words) == 2 else "", default=default, pack=pack))
            continue
        nm = re.search(r"([A-Za-z_]\w*)\s*$", decl)
        if nm is None or nm.start() == 0:
            out.append(TemplateParam("value", "", type=decl, default=default, pack=pack))
        else:
            out.append(TemplateParam("value", nm.group(1), type=decl[: nm.start()].strip(), default=default, pack=pack))
    return out


def _param(text: str) -> Param:
    if text.strip() == "...":
        return Param("...", None, varargs=True)
    decl, default = _split_default(text)
    pack = "..." in _outside_angles(decl)  # `const Addrs&... addrs`, not `const tuple<Tps...>& t`
    ref = re.search(r"\(\s*[&*]\s*([A-Za-z_]\w*)\s*\)\s*(?:\[[^\]]*\]\s*)+$", decl)  # `T (&list)[N]`
    if ref is not None:
        return Param(squash(decl), ref.group(1), default, pack=pack)
    m = re.search(r"([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)$", decl)
    name = None
    if m is not None:
        rest = decl[: m.start()].strip()
        if (
            rest not in _NO_NAME_REST
            and not rest.endswith("::")
            and not rest.endswith("<")
            and rest.split()[-1:] != ["unsigned"]
        ):
            name = m.group(1)
        if m.group(2) and name is None:
            name = None
    return Param(squash(decl), name, default, pack=pack)


def _outside_angles(text: str) -> str:
    out, depth = [], 0
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def _strip_annotations(text: str) -> str:
    return _ANNOTATION.sub(" ", text)


def _last_group(text: str) -> tuple[int, int] | None:
    """The span of the parameter list: the last top-level (...) before any trailing `-> type`, qualifiers or `;`."""
    end = len(text.rstrip().rstrip(";").rstrip())
    body = text[:end]
    arrow = None
    depth = 0
    for i, ch in enumerate(body):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "-" and body[i + 1 : i + 2] == ">" and depth == 0:
            arrow = i
            break
    if arrow is not None:
        body = body[:arrow]
    close = body.rstrip()
    close = re.sub(r"(\s*(\bconst\b|\bnoexcept\b|\boverride\b|\bfinal\b|&&?|=\s*(default|delete|0)))*\s*$", "", close)
    if not close.endswith(")"):
        return None
    depth = 0
    for i in range(len(close) - 1, -1, -1):
        if close[i] == ")":
            depth += 1
        elif close[i] == "(":
            depth -= 1
            if depth == 0:
                return i, len(close)
    return None


def parse_declaration(decl: str, template: str = "") -> Signature | None:
    """A function declaration's parts, or None when `decl` is not one (a macro call, a statement, a type)."""
    text = re.sub(r"\s+", " ", _strip_annotations(decl)).strip().rstrip(";").strip()
    tparams: list[TemplateParam] = []
    if template:
        parsed = parse_template(template)
        if parsed is None:
            return None
        tparams = parsed
    span = _last_group(text)
    if span is None:
        return None
    start, stop = span
    head, params_text, tail = text[:start], text[start + 1 : stop - 1], text[stop:].strip()
    m = _NAME.search(head)
    if m is None:
        return None
    qualified = re.sub(r"\s+", "", m.group(0)) if "operator" not in m.group(0) else m.group(0).strip()
    scope, _, name = qualified.rpartition("::") if "::" in qualified else ("", "", qualified)
    name = re.sub(r"operator\s*", "operator", name)
    rest = head[: m.start()].strip()
    words = rest.split()
    specifiers = [w for w in words if w in _SPECIFIERS]
    ret = " ".join(w for w in words if w not in _SPECIFIERS)
    trailing_return = re.search(r"->\s*(.+?)\s*$", tail)
    if trailing_return:
        ret = trailing_return.group(1)
        tail = tail[: trailing_return.start()].strip()
    params = [] if params_text.strip() in ("", "void") else [_param(p) for p in split_top(params_text)]
    return Signature(
        name=name,
        scope=scope + "::" if scope else "",
        return_type=squash(ret),
        params=params,
        template=tparams,
        trailing=tail,
        specifiers=specifiers,
    )


def form_key(qualified_name: str, sig: Signature | None, text: str) -> str:
    """The text that identifies a form among its API's overloads: the qualified name, the template head and the
    parameter types (names and defaults dropped); a form that does not parse is its squashed text."""
    if sig is None:
        return f"{qualified_name}: {squash(text)}"
    head = ""
    if sig.template:
        head = "template<" + ", ".join(_tparam_key(t) for t in sig.template) + "> "
    cv = " const" if sig.is_const else ""
    return f"{head}{qualified_name}({', '.join(sig.param_types())}){cv}"


def _tparam_key(t: TemplateParam) -> str:
    dots = "..." if t.pack else ""
    if t.kind == "type":
        return f"typename{dots}"
    if t.kind == "template":
        return f"template{dots}"
    return squash(t.type) + dots
