"""The edits that replace an element loop with the vector calls that compute the same thing
(analysis/motifs/_elementwise.py reads the loop, analysis/motifs/_vector_plan.py lowers it).

A loop over a tile of a type parameter (`LocalTensor<T>`) is planned once per type the operator declares for its
tensors (the OpDef's dtypes; half and float when it declares none). When every type gets the same calls they
replace the loop; otherwise each type gets its own `if constexpr (std::is_same<T, half>::value)` branch, and a type
with no faithful lowering keeps the loop in the last `else`, so no instantiation changes meaning.

Temporaries live in one new `TBuf<TPosition::VECCALC>`, declared beside the queue the loop's destination tile
comes from and initialised right after that queue's InitBuffer, with room for the plan's slots of float tiles of
that queue's capacity. A loop whose plan needs no temporary touches nothing but its own lines. The events and full
barriers that stood right around the loop only for the scalar unit's sake (a V->S wait before, an S->V or S->MTE3
one after, `PipeBarrier<PIPE_ALL>`) go with it. The vector work before and after the calls needs no barrier of
ours: operator projects compile with automatic synchronisation, which puts the `PIPE_V` ones in (the fast kernels
this motif is mined from have none); between our own dependent calls one is written, as the reference's example
of dependent vector instructions does.
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache

from tree_sitter import Node

from tilewise.analysis.dtypes import BY_NAME
from tilewise.analysis.findings import TextEdit, edit_range
from tilewise.analysis.model import OperatorModel
from tilewise.analysis.motifs._elementwise import Bin, Conv, Expr, Fn, Load, LoopRead, Scalar, read_loop
from tilewise.analysis.motifs._scalar_types import FLOATS, INTS
from tilewise.analysis.motifs._selects import normalise_read
from tilewise.analysis.motifs._vector_plan import Plan, plan
from tilewise.analysis.motifs.base import indent_at, line_end, line_start
from tilewise.analysis.source import SourceFile
from tilewise.analysis.treeutil import enclosing_function, owner_class

_SYNC_LINE = re.compile(
    r"[ \t]*(?:event_t \w+ = static_cast<event_t>\(GetTPipePtr\(\)->FetchEventID\(HardEvent::(\w+)\)\);"
    r"|SetFlag<HardEvent::(\w+)>\(\w+\);|WaitFlag<HardEvent::(\w+)>\(\w+\);)[ \t]*\n?"
)
_BARRIER_ALL = "PipeBarrier<PIPE_ALL>();"
MAX_COMBOS = 6
_ELEMENT_STORE = re.compile(rb"\w\s*\(\s*[\w+ ]+\)\s*[-+*/]?=[^=]")  # `z(k) = ...`: a store by operator()


@lru_cache(maxsize=64)
def _file_type_names(text: str) -> frozenset[str]:
    names = set(re.findall(r"\bDTYPE_\w+", text))
    names |= set(re.findall(r"\busing\s+(\w+)\s*=", text))
    names |= set(re.findall(r"\btypedef\s+[\w:]+\s+(\w+)\s*;", text))
    return frozenset(names)


def type_parameters(sf: SourceFile, node: Node) -> set[str]:
    """The type names a loop's types may be spelled with that are no concrete type: the template type parameters
    around it, the build's `DTYPE_*` macros, and aliases the file declares."""
    names: set[str] = set(_file_type_names(sf.text))
    n: Node | None = node
    while n is not None:
        if n.type == "template_declaration":
            params = n.child_by_field_name("parameters")
            text = sf.node_text(params) if params is not None else ""
            names |= set(re.findall(r"(?:typename|class)\s+(\w+)", text))
        n = n.parent
    # a method defined outside its class: the class's own template head
    cls = owner_class(sf, node)
    if cls:
        m = re.search(rf"template\s*<([^<>]*)>\s*(?:class|struct)\s+{re.escape(cls)}\b", sf.text)
        if m:
            names |= set(re.findall(r"(?:typename|class)\s+(\w+)", m.group(1)))
    return names


def _generic(read: LoopRead, concrete: frozenset[str]) -> list[str]:
    found: set[str] = set()

    def walk(e: Expr) -> None:
        if isinstance(e, Load | Scalar):
            found.add(e.ctype)
        elif isinstance(e, Conv):
            found.add(e.to)
            walk(e.x)
        elif isinstance(e, Bin):
            walk(e.a)
            walk(e.b)
        elif isinstance(e, Fn):
            for a in e.args:
                walk(a)

    for e in read.stores.values():
        walk(e)
    found |= set(read.dst_types.values())
    return sorted(t for t in found if t not in concrete)


def _candidates(model: OperatorModel) -> list[str]:
    """The kernel types the operator's tensors are declared in (the OpDef), float types first; half and float when
    it declares none."""
    found: list[str] = []
    for t in [*model.inputs, *model.outputs]:
        for name in t.dtypes:
            d = BY_NAME.get(name)
            if d is not None and d.cpp and d.cpp not in found:
                found.append(d.cpp)
    return found or ["half", "float"]


def _render(p: Plan, tag: str, count: str, indent: str, buf: str | None) -> list[str]:
    lines: list[str] = []
    if p.slots:
        assert buf is not None
        slot = f"{tag}Slot"
        lines.append(f"uint32_t {slot} = (static_cast<uint32_t>({count}) * 4 + 31) / 32 * 32;")
        for i, t in enumerate(p.slots):
            lines.append(f"LocalTensor<{t}> {tag}_{i} = {buf}.GetWithOffset<{t}>({count}, {i} * {slot});")
    for line in p.lines:
        lines.append(re.sub(r"@(\d+)@", lambda m: f"{tag}_{m.group(1)}", line))
    return [indent + line for line in lines]


def vector_edits(model: OperatorModel, sf: SourceFile, loop: Node) -> tuple[list[TextEdit], str] | None:
    """The edits that vectorise the element loop, and the calls in words, or None when the loop is no element loop
    the expression language covers or some instantiation has no faithful lowering needing a temporary that has
    nowhere to live."""
    fn = enclosing_function(loop)
    raw_loop = sf.data[loop.start_byte : loop.end_byte]
    if fn is None or (b"SetValue" not in raw_loop and _ELEMENT_STORE.search(raw_loop) is None):
        return None
    params = type_parameters(sf, loop)
    raw = read_loop(sf, loop, fn, params)
    read = normalise_read(raw) if raw is not None else None
    if read is None or any(_is_global(sf, fn, k) for k in read.stores):
        return None
    concrete = FLOATS | INTS | {"bool"}
    generic = _generic(read, concrete)
    if any(g not in params for g in generic):
        return None
    combos = list(itertools.product(_candidates(model), repeat=len(generic)))[:MAX_COMBOS] if generic else [()]
    plans = [(combo, plan(read, dict(zip(generic, combo, strict=True)))) for combo in combos]
    if all(p is None for _, p in plans):
        return None
    tag = f"twVec{loop.start_point[0] + 1}"
    slots = max(len(p.slots) for _, p in plans if p is not None)
    buf_edits: list[TextEdit] = []
    buf = None
    if slots:
        found = _temp_buffer(model, sf, fn, loop, read, tag, slots)
        if found is None:
            plans = [(c, p if p is not None and not p.slots else None) for c, p in plans]
            if all(p is None for _, p in plans):
                return None
        else:
            buf_edits, buf = found, tag
    indent = indent_at(sf, loop.start_byte)
    inner = indent + "    "
    start, end = _span(sf, loop)
    original = sf.data[line_start(sf, start) : end].decode("utf-8", "replace").rstrip("\n")
    body = _body(original, plans, generic, read.count, tag, indent, inner, buf)
    words = sorted({ln.split("(")[0] for _, p in plans if p for ln in p.lines if not ln.startswith("PipeBarrier")})
    return [edit_range(sf, start, end, body), *buf_edits], ", ".join(words)


def _body(original: str, plans, generic: list[str], count: str, tag: str, indent: str, inner: str, buf) -> str:
    """The text that replaces the loop's lines: the calls, or one branch per type with the original lines (their
    counter, events and barriers too) kept in the last `else` for a type with no lowering."""
    rendered = []
    for combo, p in plans:
        lines = _render(p, tag, count, inner if generic else indent, buf) if p is not None else None
        rendered.append((combo, lines))
    texts = {tuple(lines) for _, lines in rendered if lines is not None}
    if not generic or (len(texts) == 1 and all(lines is not None for _, lines in rendered)):
        lines = next(lines for _, lines in rendered if lines is not None)
        if generic:  # the same calls for every type: unindented, no branches
            lines = [ln[len(inner) - len(indent) :] if ln.startswith(inner) else ln for ln in lines]
        return "\n".join(lines) + "\n"
    out: list[str] = []
    first = True
    for combo, lines in rendered:
        if lines is None:
            continue
        test = " && ".join(f"std::is_same<{g}, {c}>::value" for g, c in zip(generic, combo, strict=True))
        out.append(f"{indent}{'if' if first else '} else if'} constexpr ({test}) {{")
        out += lines
        first = False
    out.append(f"{indent}}} else {{")
    out += ["    " + line if line.strip() else line for line in original.split("\n")]
    out.append(f"{indent}}}")
    return "\n".join(out) + "\n"


def _span(sf: SourceFile, loop: Node) -> tuple[int, int]:
    """The loop's whole lines, widened over what stood around it for the scalar unit only: the event triples (V->S
    before, S->V or S->MTE3 after), full barriers, and a while loop's counter declaration."""
    start, end = line_start(sf, loop.start_byte), line_end(sf, loop.end_byte)
    if sf.data[start : loop.start_byte].strip() or sf.data[loop.end_byte : end].strip():
        return loop.start_byte, loop.end_byte
    counter = None
    if loop.type == "while_statement":
        m = re.match(r"while\s*\(\s*(\w+)", sf.node_text(loop))
        counter = m.group(1) if m else None
    changed = True
    while changed:
        changed = False
        above = sf.data[:start].decode("utf-8", "replace").splitlines(keepends=True)
        if above and above[-1].strip() == _BARRIER_ALL:
            start -= len(above[-1].encode())
            changed = True
        elif (
            counter
            and above
            and re.fullmatch(rf"\s*(?:u?int\d*_t|int|unsigned|size_t)\s+{counter}\s*=\s*[^;]+;\s*", above[-1])
        ):
            start -= len(above[-1].encode())
            counter = None
            changed = True
        elif len(above) >= 3 and _events(above[-3:]) == {"V_S"}:
            start -= len("".join(above[-3:]).encode())
            changed = True
    below = sf.data[end:].decode("utf-8", "replace").splitlines(keepends=True)
    if below and below[0].strip() == _BARRIER_ALL:
        end += len(below[0].encode())
        below = below[1:]
    if len(below) >= 3 and _events(below[:3]) in ({"S_V"}, {"S_MTE3"}):
        end += len("".join(below[:3]).encode())
    return start, end


def _events(lines: list[str]) -> set[str] | None:
    found = [_SYNC_LINE.fullmatch(line) for line in lines]
    if not all(found):
        return None
    return {g for m in found if m for g in m.groups() if g}


def _is_global(sf: SourceFile, fn: Node, key: str) -> bool:
    base = re.split(r"[\[.]", key.replace("this->", ""))[0].strip()
    return re.search(rf"GlobalTensor\s*<[^>]*>\s*&?\s*{re.escape(base)}\b", sf.text) is not None


def _temp_buffer(
    model: OperatorModel, sf: SourceFile, fn: Node, loop: Node, read: LoopRead, tag: str, slots: int
) -> list[TextEdit] | None:
    """A TBuf for `slots` float tiles: declared beside the queue the first stored tile comes from, initialised
    after that queue's InitBuffer; None when that queue, its InitBuffer or its declaration cannot be found in the
    loop's class."""
    fn_text = sf.node_text(fn)
    for key in [*read.stores, *_loaded(read)]:
        base = re.split(r"[\[.]", key.replace("this->", ""))[0].strip()
        m = re.search(rf"\b{re.escape(base)}\s*=\s*(?:this->)?(\w+)\s*(?:\.|->)\s*(?:AllocTensor|DeQue|Get)\b", fn_text)
        if m is None:
            continue
        queue = m.group(1)
        elem = read.dst_types.get(key) or _elem_of(read, key)
        if elem is None:
            continue
        cls = owner_class(sf, loop)
        init = next((b for b in model.init_buffers if b.queue.replace("this->", "") == queue), None)
        decl = next((q for q in model.queues if q.name == queue and q.owner == cls), None)
        if init is None or decl is None or init.loc.file != sf.path and decl.loc.file != init.loc.file:
            continue
        isf = sf if init.loc.file == sf.path else None
        if isf is None or decl.loc.file != sf.path:
            continue
        stmt_text = sf.data[init.loc.start : init.loc.end].decode("utf-8", "replace")
        pipe = re.match(r"\s*(.*?)\s*(?:\.|->)\s*InitBuffer\b", stmt_text)
        if pipe is None:
            continue
        arrow = "->" if re.search(r"->\s*InitBuffer", stmt_text) else "."
        size = init.size.text.strip()
        at = line_end(sf, init.loc.end)
        ind = indent_at(sf, init.loc.start)
        init_line = f"{ind}{pipe.group(1)}{arrow}InitBuffer({tag}, {slots} * (({size}) / sizeof({elem}) * 4 + 32));\n"
        dat = line_end(sf, decl.loc.end)
        member = f"{indent_at(sf, decl.loc.start)}TBuf<TPosition::VECCALC> {tag};\n"
        return [edit_range(sf, at, at, init_line), edit_range(sf, dat, dat, member)]
    return None


def _loaded(read: LoopRead) -> list[str]:
    out: list[str] = []

    def walk(e: Expr) -> None:
        if isinstance(e, Load):
            out.append(e.tensor)
        elif isinstance(e, Conv):
            walk(e.x)
        elif isinstance(e, Bin):
            walk(e.a)
            walk(e.b)
        elif isinstance(e, Fn):
            for a in e.args:
                walk(a)

    for e in read.stores.values():
        walk(e)
    return out


def _elem_of(read: LoopRead, tensor: str) -> str | None:
    found: list[str] = []

    def walk(e: Expr) -> None:
        if isinstance(e, Load) and e.tensor == tensor:
            found.append(e.ctype)
        elif isinstance(e, Conv):
            walk(e.x)
        elif isinstance(e, Bin):
            walk(e.a)
            walk(e.b)
        elif isinstance(e, Fn):
            for a in e.args:
                walk(a)

    for e in read.stores.values():
        walk(e)
    return found[0] if found else None
