"""Compile probes of the documented AscendC API against the emulator's headers: for each form of the API index
(analysis/api_index), a few lines of C++ that call it with arguments of the documented types and take its address
with the documented template arguments, both as a plain function pointer and as a template argument of
function-pointer type (what generic code such as a Foreach over `Sub`, `Mul`, `Max` does):

    namespace AscendC { namespace twp_12 {  // template<typename> AscendC::Add(const LocalTensor<T>&, ...)
    using T = half;
    void tw_call(const LocalTensor<T>& dst, ..., const int32_t& count) { ::AscendC::Add<T>(dst, ..., count); }
    using TwFn = void (*)(const LocalTensor<T>& dst, ..., const int32_t& count);
    [[maybe_unused]] TwFn tw_address = &::AscendC::Add<T>;
    [[maybe_unused]] ::tw_probe::Take<TwFn, &::AscendC::Add<T>> tw_taken;
    }}

A member is probed from a struct derived from its class (so the class's own names, PrimType, read as in its
declaration), its address as a pointer to a member of that class; a type by its size or, for a template, by naming
it, a field by its declared type, a macro by a use (api_probe_hints.MACRO_USES) or by being defined. The probes
of one header are compiled as one unit with the emulator's own flags and include folders (api_compile.py), and
each error is traced to the probe it belongs to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tilewise.analysis.api_index import Api, Form
from tilewise.analysis.api_index.signature import Signature, TemplateParam, parse_declaration, split_top
from tilewise.device.emulator.api_probe_hints import (
    DTYPE_PARAMS,
    MACRO_USES,
    OWNERS,
    TYPE_ARGS,
    VALUE_DEFAULTS,
    hint_for,
)

PRELUDE = """namespace tw_probe {
template <class F, F f> struct Take {};
template <template <class...> class X> struct TakeTemplate {};
}  // namespace tw_probe
"""


@dataclass(slots=True)
class Probe:
    """The C++ of one form's probe (`lines`, each tagged with the check it makes), or why there is none."""

    api: Api
    form: Form
    lines: list[tuple[str, str]]  # (check, text): "call", "address", "template-arg", "type", "macro", "" (frame)
    skip: str = ""


def _dtype(api: Api, name: str) -> str:
    """The data type a template parameter is probed with: the A2's list for it (half before float before the
    rest), else the list for T."""
    listed = api.dtypes.get(name) or (api.dtypes.get("T") if name in DTYPE_PARAMS else None) or []
    for pick in ("half", "float"):
        if pick in listed:
            return pick
    return listed[0] if listed else "half"


def _bindings(api: Api, tparams: list[TemplateParam], text: str, static: bool) -> tuple[list[str], list[str], str]:
    """The declarations that bind a form's template parameters to what it is probed with, the explicit template
    arguments a caller names (the leading parameters without a default), and why it cannot be probed ("")."""
    lines: list[str] = []
    targs: list[str] = []
    explicit = True
    const = "static constexpr" if static else "constexpr"
    for tp in tparams:
        if tp.kind == "template":
            return [], [], "a template template parameter"
        used = bool(tp.name) and re.search(rf"\b{re.escape(tp.name)}\b", text) is not None
        if tp.pack and used:
            return [], [], "a template parameter pack that a parameter's type expands"
        if tp.pack or not tp.name:
            explicit = False
            continue
        hint = hint_for(api, tp.name)
        if tp.default is not None and hint is None:
            explicit = False
            if used:
                lines.append(
                    f"using {tp.name} = {tp.default};"
                    if tp.kind == "type"
                    else f"{const} {_value_decl(tp)} = {tp.default};"
                )
            continue
        if tp.kind == "type":
            lines.append(f"using {tp.name} = {hint or _dtype(api, tp.name)};")
        else:
            value = hint or VALUE_DEFAULTS.get(
                re.sub(r"^const\s+|\s*&$", "", tp.type).split("::")[-1], f"{tp.type}{{}}"
            )
            lines.append(f"{const} {_value_decl(tp)} = {value};")
        if explicit:
            targs.append(tp.name)
    return lines, targs, ""


def _used_text(sig: Signature) -> str:
    """What a probe spells of a form: its return type and the parameters it declares (not a pack's)."""
    return " ".join([sig.return_type, *(p.text for p in sig.params if not p.pack)])


def _value_decl(tp: TemplateParam) -> str:
    typ = tp.type if tp.type.startswith("const") or not tp.type.endswith("&") else f"const {tp.type}"
    return f"{typ} {tp.name}"


def _params(sig: Signature) -> tuple[list[str], list[str]]:
    """The probe's parameter declarations (named, defaults dropped, packs left empty) and the argument names."""
    decls, args = [], []
    for i, p in enumerate(sig.params):
        if p.pack or p.varargs:
            continue
        name = p.name or f"tw_p{i}"
        decls.append(p.text if p.name else _name_param(p.text, name))
        args.append(name)
    return decls, args


def _name_param(text: str, name: str) -> str:
    m = re.match(r"^(.*?)((?:\[[^\]]*\])*)$", text)
    assert m is not None
    return f"{m.group(1)} {name}{m.group(2)}"


def _fn_params(sig: Signature) -> str:
    parts = [p.text for p in sig.params if not p.pack]
    if any(p.varargs for p in sig.params):
        parts = [p for p in parts if p != "..."] + ["..."]
    return ", ".join(parts)


def _scope(api: Api) -> tuple[str, str]:
    """The namespace a probe sits in (the API's, so that unqualified documented types resolve as in the API's
    own declarations) and the qualified name's prefix before the class or function."""
    parts = api.qualified.split("::")
    tail = 2 if api.owner else 1
    return "::".join(parts[:-tail]), "::".join(parts[:-1])


def make_probe(api: Api, form: Form, n: int) -> Probe:
    """The probe of one form (see the module doc); `n` names its namespace."""
    if form.kind == "macro":
        return _macro(api, form, n)
    if form.kind in ("type", "field"):
        return _type(api, form, n)
    sig = parse_declaration(form.signature, form.template)
    if sig is None:
        return Probe(api, form, [], skip="the prototype does not parse")
    if api.owner:
        return _member(api, form, sig, n)
    return _free(api, form, sig, n)


def _wrap(ns: str, n: int, key: str, body: list[tuple[str, str]]) -> list[tuple[str, str]]:
    opening = f"namespace {ns} {{ namespace twp_{n} {{" if ns else f"namespace twp_{n} {{"
    closing = "}}" if ns else "}"
    return [("", f"{opening}  // {key[:200]}"), *body, ("", closing)]


def _free(api: Api, form: Form, sig: Signature, n: int) -> Probe:
    ns, prefix = _scope(api)
    binds, targs, why = _bindings(api, sig.template, _used_text(sig), static=False)
    if why:
        return Probe(api, form, [], skip=why)
    callee = f"::{api.qualified}" + (f"<{', '.join(targs)}>" if targs else "")
    caller = f"::{api.qualified}" + (f"<{', '.join(targs)}>" if targs and not _deducible(sig) else "")
    decls, args = _params(sig)
    body: list[tuple[str, str]] = [("", b) for b in binds]
    body.append(("call", f"void tw_call({', '.join(decls)}) {{ {caller}({', '.join(args)}); }}"))
    if _addressable(sig):
        body.append(("", f"using TwFn = {sig.return_type} (*)({_fn_params(sig)});"))
        body.append(("address", f"[[maybe_unused]] TwFn tw_address = &{callee};"))
        body.append(("template-arg", f"[[maybe_unused]] ::tw_probe::Take<TwFn, &{callee}> tw_taken;"))
    return Probe(api, form, _wrap(ns, n, form.key, body))


def _deducible(sig: Signature) -> bool:
    """Whether a call can leave the template arguments to deduction, as most callers do: every template parameter
    without a default appears in a parameter's type. The address check names them all the same."""
    types = " ".join(p.text for p in sig.params)
    return all(t.default is not None or t.pack or re.search(rf"\b{re.escape(t.name)}\b", types) for t in sig.template)


def _addressable(sig: Signature) -> bool:
    """Whether a function pointer of the documented type can be spelled: a return type that is not deduced, and
    no parameter pack."""
    return bool(sig.return_type) and "auto" not in sig.return_type.split() and not sig.variadic


def _owner(api: Api) -> tuple[str, list[str]]:
    """The concrete class a member is probed on and the bindings of the class template's parameters."""
    hint = OWNERS.get(api.owner)
    ns, prefix = _scope(api)
    if hint is None:
        return f"::{prefix}", []
    spelling, binds = hint
    return spelling, [f"using {k} = {v};" if not k.startswith("constexpr ") else f"static {k} = {v};" for k, v in binds]


def _member(api: Api, form: Form, sig: Signature, n: int) -> Probe:
    ns, _ = _scope(api)
    self_type, class_binds = _owner(api)
    binds, targs, why = _bindings(api, sig.template, _used_text(sig), static=True)
    if why:
        return Probe(api, form, [], skip=why)
    decls, args = _params(sig)
    name = sig.name
    ta = f"<{', '.join(targs)}>" if targs else ""
    body: list[tuple[str, str]] = [("", f"using TwSelf = {self_type};"), ("", "struct TwScope : TwSelf {")]
    body += [("", b) for b in class_binds + binds]
    if form.kind == "constructor":
        body.append(
            ("call", f"static void tw_call({', '.join(decls)}) {{ TwSelf tw_obj({', '.join(args)}); (void)tw_obj; }}")
        )
        body.append(("", "};"))
        return Probe(api, form, _wrap(ns, n, form.key, body))
    static = "static" in sig.specifiers
    target = f"TwSelf::{name}{ta}"
    if static:
        cta = "" if _deducible(sig) else ta
        body.append(("call", f"static void tw_call({', '.join(decls)}) {{ TwSelf::{name}{cta}({', '.join(args)}); }}"))
    else:
        obj = "const TwSelf& tw_obj" if sig.is_const else "TwSelf& tw_obj"
        sep = ", " if decls else ""
        cta = "" if _deducible(sig) else ta
        call = f"tw_obj.{'template ' if cta else ''}{name}{cta}({', '.join(args)})"
        body.append(("call", f"static void tw_call({obj}{sep}{', '.join(decls)}) {{ {call}; }}"))
    if _addressable(sig) and not name.startswith("operator") or name in ("operator[]", "operator()"):
        cv = " const" if sig.is_const else ""
        pointer = "(*)" if static else "(TwSelf::*)"
        body.append(("", f"using TwFn = {sig.return_type} {pointer}({_fn_params(sig)}){cv};"))
        # As a pointer to a member of the class itself: the class's own members and its bases' convert to it alike.
        # No template-argument check: a constant expression takes no base-to-derived conversion, and members are
        # declared in base classes (TQue's in its TQueBind) by the reference's own design.
        body.append(("address", f"static void tw_address() {{ [[maybe_unused]] TwFn tw_f = &{target}; }}"))
    body.append(("", "};"))
    return Probe(api, form, _wrap(ns, n, form.key, body))


def _type(api: Api, form: Form, n: int) -> Probe:
    ns, prefix = _scope(api)
    if form.kind == "field":
        owner, _ = _owner(api)
        return Probe(api, form, _wrap(ns, n, form.key, [("type", f"using TwField = decltype({owner}::{api.name});")]))
    qualified = f"::{api.qualified}"
    tparams = []
    if form.template:
        m = re.match(r"\s*(template\s*<.*>)", form.template, re.S)
        tparams = [t for t in split_top(m.group(1)[m.group(1).index("<") + 1 : -1])] if m else []
    if not tparams:
        return Probe(
            api,
            form,
            _wrap(ns, n, form.key, [("type", f"[[maybe_unused]] constexpr auto tw_size = sizeof({qualified});")]),
        )
    if api.name in TYPE_ARGS:
        check = f"[[maybe_unused]] constexpr auto tw_size = sizeof({qualified}<{TYPE_ARGS[api.name]}>);"
    elif all(re.match(r"(typename|class)\b", t) for t in tparams):
        check = f"[[maybe_unused]] ::tw_probe::TakeTemplate<{qualified}> tw_template;"
    else:
        return Probe(api, form, [], skip="a class template with non-type parameters and no probe arguments")
    return Probe(api, form, _wrap(ns, n, form.key, [("type", check)]))


def _macro(api: Api, form: Form, n: int) -> Probe:
    use = MACRO_USES.get(api.name)
    if use is not None:
        return Probe(api, form, [("macro", line) for line in use.format(n=n).strip().splitlines()])
    return Probe(
        api, form, [("macro", f"#ifndef {api.name}"), ("macro", f'#error "{api.name} is not defined"'), ("", "#endif")]
    )
