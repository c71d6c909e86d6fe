"""The kernel entry as the runner calls it: `tw_call_kernel(gm, n)`, generated into the kernel's unit (build.py).

A plain entry is called directly; a templated one (tiling-template programming, ASCENDC_TPL_*) through a table of
the instantiations its ASCENDC_TPL_SEL (else ASCENDC_TPL_ARGS_DECL) combinations allow, one of which the tiling key
selects at run time (tw/tiling/template_kernels.h). `entry_template_params` reads the entry's template parameters
from the source, so that the call can spell each instantiation.
"""

from __future__ import annotations

import json
import re


def entry_template_params(text: str, start: int) -> list[tuple[str, str]] | None:
    """The template parameters (declared type, name) of a kernel entry whose name starts at byte `start` of `text`,
    e.g. [("typename", "DT_X")] or [("uint32_t", "schMode")]; None when the entry is no template."""
    head = text.encode("utf-8")[:start].decode("utf-8", errors="replace")
    m = next(reversed(list(re.finditer(r"\btemplate\s*<", head))), None)  # the last `template <` before the name
    if m is None:
        return None
    depth, i = 1, m.end()
    while i < len(head) and depth:
        depth += {"<": 1, ">": -1}.get(head[i], 0)
        i += 1
    if depth or re.search(r"[;{}]", head[i:]):  # the template belongs to an earlier declaration
        return None
    params = []
    for part in _split_top(head[m.end() : i - 1]):
        part = re.sub(r"=.*$", "", part, flags=re.S).strip()  # default arguments play no part in the call
        words = part.rsplit(None, 1)
        if len(words) == 2:
            kind = "typename" if words[0] in ("typename", "class") else words[0]
            params.append((kind, words[1]))
    return params


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += {"<": 1, "(": 1, ">": -1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [p for p in [*parts, cur] if p.strip()]


def entry_call(
    entry: str, tparams: list[tuple[str, str]] | None, has_sel: bool, file: str = "", line: int = 0
) -> list[str]:
    """`tw_call_kernel`, which the runner calls with the launch's GM pointers: the entry itself, or for a templated
    entry the instantiation the tiling key selects among the ASCENDC_TPL_SEL (else ASCENDC_TPL_ARGS_DECL)
    combinations, compiled in (tw/tiling/template_kernels.h)."""
    if tparams is None:
        return ["void tw_call_kernel(uint8_t** gm, size_t n) { ::tw::invoke_entry(&" + entry + ", gm, n); }"]
    args = []
    for k, (kind, _name) in enumerate(tparams):
        value = f"tw_gen::kTable[I].v[{k}]"
        if kind == "typename":
            args.append(f"::tw::tplargs::dtype_t<{value}>")
        elif kind == "bool":
            args.append(f"({value} != 0)")
        elif kind == "auto":
            args.append(value)
        else:
            args.append(f"static_cast<{kind}>({value})")
    sel = "tw_tpl_sel" if has_sel else "::tw::tplargs::no_sel"
    return [
        "namespace tw_gen {",
        f"constexpr bool kUseSel = {'true' if has_sel else 'false'};",
        f"constexpr size_t kCombos = ::tw::tplargs::combo_count(tw_tpl_decl, {sel}, kUseSel);",
        f"constexpr auto kTable = ::tw::tplargs::combos<kCombos>(tw_tpl_decl, {sel}, kUseSel);",
        f"static_assert(kCombos == 0 || kTable[0].n == {len(tparams)}, \"the kernel entry's template parameters do not "
        'match its ASCENDC_TPL_ARGS_DECL");',
        "struct Caller {",
        "    template <size_t I>",
        f"    static void call(uint8_t** gm, size_t n) {{ ::tw::invoke_entry(&{entry}<{', '.join(args)}>, gm, n); }}",
        "};",
        "}  // namespace tw_gen",
        "void tw_call_kernel(uint8_t** gm, size_t n) { ::tw::tplargs::dispatch<tw_gen::Caller>(tw_gen::kTable, "
        f"tw_tpl_decl, gm, n, {json.dumps(file)}, {line}); }}",
    ]
