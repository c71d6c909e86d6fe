"""Explain one AscendC call, or one queue's UB use, as plain facts an editor formats (hover does, in
server/lsp/features/hover.py): the API, its pipe, what it costs per repeat on the chip, and its size.

A size is a number only when the sources decide it: a constant, or a tiling field the host always sets to one
constant value. When it depends on the input shape, an attribute, the chip, or a field the host computes at run
time, the facts say so and carry the formula instead: the size as written, the chain of assignments it comes
from, and what decides it. No figure is made up from a knob that merely reaches the size (a size computed from
`TILE_NUM = 8` is not 8 elements), nor from a default element size.

Everything here reads the lint rules' context (`analysis.rules.base.RuleContext`) and its data flow; the costs
come from the chip's `TimingConfig`, the same constants the emulator's timing model uses.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from typing import Literal

from tree_sitter import Node

from tilewise.analysis.apis import COPIES, DOCS, VECTOR_BINARY, VECTOR_SCALAR, VECTOR_UNARY, pipe_of
from tilewise.analysis.chip import cost_model
from tilewise.analysis.dtypes import DTYPE_SIZES
from tilewise.analysis.evaluate import TYPE_SIZES, Evaluator, parse_int_literal
from tilewise.analysis.model import ApiCall, InitBufferCall
from tilewise.analysis.rules.base import RuleContext
from tilewise.analysis.source import SourceFile

# Which argument holds the element count, in the count form of each API (other forms: a mask and repeats, or a
# parameter struct).
COUNT_ARG = {**dict.fromkeys(VECTOR_BINARY + VECTOR_SCALAR, 3), **dict.fromkeys(VECTOR_UNARY, 2), "DataCopy": 2}
MAX_STEPS = 6  # derivation lines shown; the rest of the chain is summarised by what decides it

# What decides a value at run time, recognised in the text of the assignments it comes from.
_RUNTIME_SOURCES = (
    (
        re.compile(
            r"\bGet(?:Input|Output|OptionalInput|DynamicInput)Shape\b|\bGet(?:Origin|Storage)Shape\b|"
            r"\bGetShapeSize\b|\bGetDim(?:Num)?\b|\bGetInputTensor\b"
        ),
        "the input shape",
    ),
    (re.compile(r"\bGetAttrs\b|\bGetAttrPointer\b"), "the operator's attributes"),
    (re.compile(r"\bGetCoreNum\w*|\bGetCoreMemSize\b|\bGetPlatformInfo\b"), "the chip's core count or UB size"),
    (re.compile(r"\bGetBlockIdx\b"), "the block index"),
    (re.compile(r"\bGetBlockNum\b"), "the number of blocks"),
)


@dataclass(frozen=True, slots=True)
class Step:
    """One line of a size's derivation: `name = expr` on the kernel or host side, or a tiling field and the
    expression the host sets it to. `more`: further assignments to the same name that were left out."""

    name: str
    expr: str
    side: Literal["kernel", "host", "tiling"]
    more: int = 0


@dataclass(frozen=True, slots=True)
class Derivation:
    """A size decided at run time: as written, how it is computed, and what decides it."""

    expr: str
    steps: tuple[Step, ...]
    truncated: bool  # more of the chain exists than `steps` shows
    knobs: tuple[tuple[str, int], ...]  # knobs in the chain, with their current values
    decided_by: tuple[str, ...]  # "the input shape", "the block index", ...
    fields: tuple[str, ...]  # tiling fields in the chain (the host computes them)


@dataclass(frozen=True, slots=True)
class Element:
    """A tensor's element type. `assumed` says why a size was chosen when the type is a parameter a case binds."""

    type: str
    bytes: int
    assumed: str | None = None


@dataclass(frozen=True, slots=True)
class CopyFigures:
    nbytes: int
    gibps: float
    us: float


@dataclass(frozen=True, slots=True)
class VectorFigures:
    repeats: int
    cycles: float
    us: float


@dataclass(frozen=True, slots=True)
class Size:
    """A call's element count: known (`elements`, and `via` when it came through the tiling data), decided at run
    time (`derivation`), or given in a form this does not size (`form` "params": a copy-parameter struct; "mask":
    mask and repeat arguments)."""

    form: Literal["count", "params", "mask"]
    expr: str | None = None
    elements: int | None = None
    via: str | None = None
    derivation: Derivation | None = None


@dataclass(frozen=True, slots=True)
class CallExplanation:
    api: str
    pipe: str
    doc: str
    in_loop: bool
    chip: str
    repeat_cost: tuple[tuple[float, float], tuple[float, float]] | None  # (startup, per repeat): fp16, fp32
    element: Element | None
    size: Size | None
    copy: CopyFigures | None  # per call, when the size and element type are known
    vector: VectorFigures | None
    first_case: str | None  # the manifest's first case, which a run would measure


@dataclass(frozen=True, slots=True)
class BufferExplanation:
    """A queue's UB use: known bytes (per element size when the type is a parameter), or the formula."""

    bytes: int | None
    formula: str
    per_element_size: tuple[tuple[int, int], ...] = ()  # (element bytes, UB bytes) when only T is unknown
    derivation: Derivation | None = None
    first_case: str | None = None


def explain_call(ctx: RuleContext, call: ApiCall, first_case: str | None = None) -> CallExplanation:
    """The facts about one API call; `first_case` is the name of the manifest's first shape case, if any."""
    to_global = ctx.is_global(call.args[0].text) if call.name in COPIES and call.args else None
    pipe = pipe_of(call.name, receiver_is_global=to_global)
    t = cost_model(ctx.chip)
    cost = t.vector.get(call.name) if pipe == "vector" else None
    element = element_of(ctx, call)
    size = _size(ctx, call)
    copy = vector = None
    if size is not None and size.elements is not None and element is not None:
        clock = ctx.chip.clock_ghz
        if call.name == "DataCopy":
            nbytes = t.datacopy_bytes(size.elements, element.bytes)
            copy = CopyFigures(nbytes, t.dma_gibps(nbytes, clock), t.dma_us(nbytes, clock))
        elif pipe == "vector":
            repeats = t.vector_repeats(size.elements, element.bytes)
            cycles = t.vector_cycles(call.name, element.bytes, repeats)
            vector = VectorFigures(repeats, cycles, cycles / (clock * 1e3))
    return CallExplanation(
        api=call.name,
        pipe=pipe,
        doc=DOCS.get(call.name, ""),
        in_loop=call.in_loop,
        chip=ctx.chip.name,
        repeat_cost=(cost.fp16, cost.fp32) if cost else None,
        element=element,
        size=size,
        copy=copy,
        vector=vector,
        first_case=first_case,
    )


def element_of(ctx: RuleContext, call: ApiCall) -> Element | None:
    """The element type of the call's first tensor argument that has a declared type; None when none has."""
    for arg in call.args[:2]:
        found = ctx.tensor_types.get(arg.text.split("[")[0].strip().replace("this->", ""))
        if found is None:
            continue
        tname = found[1]
        if tname in TYPE_SIZES:
            return Element(tname, TYPE_SIZES[tname])
        for t in ctx.model.inputs + ctx.model.outputs:
            if tname == f"DTYPE_{t.name.upper()}" and t.dtypes and t.dtypes[0] in DTYPE_SIZES:
                others = sorted(set(t.dtypes) - {t.dtypes[0]})
                if not others:
                    return Element(tname, DTYPE_SIZES[t.dtypes[0]])
                return Element(
                    tname,
                    DTYPE_SIZES[t.dtypes[0]],
                    f"{tname} taken as {t.dtypes[0]}, the OpDef's first "
                    f"dtype column (a case may bind {', '.join(others)})",
                )
        first = ctx.model.inputs[0].dtypes[0] if ctx.model.inputs and ctx.model.inputs[0].dtypes else None
        if first in DTYPE_SIZES:
            return Element(
                tname,
                DTYPE_SIZES[first],
                f"{tname} taken as {first}, the first input's first dtype (a case may bind another)",
            )
        return None
    return None


def known_values(ctx: RuleContext) -> dict[str, int]:
    """Names whose value the sources decide: the knobs, and each tiling field the host always sets to one constant
    (every setter evaluates, to the same value) when every kernel assignment to that name only passes the field on.
    """
    env = dict(ctx.kernel_env)
    by_field: dict[str, set[int | None]] = {}
    for tf in ctx.model.tiling.functions:
        for s in tf.setters:
            by_field.setdefault(s.field, set()).add(s.expr.value)
    for name, values in by_field.items():
        value = next(iter(values))  # (never empty: a field is only there with a setter)
        if len(values) != 1 or value is None or name in env:
            continue
        if all(_passes_on(_def_text(d), name) for d in ctx.flow.kernel.defs(name)):
            env[name] = value
    return env


def _passes_on(text: str, name: str) -> bool:
    """An assignment that only hands a field on: `tileLength`, `this->tileLength`, `tiling.tileLength`, or the
    member's zero default."""
    text = text.strip()
    return text in ("0", "{}") or re.fullmatch(rf"(?:[\w\->.]*(?:\.|->))?{re.escape(name)}", text) is not None


def _def_text(d: tuple[SourceFile, int, int]) -> str:
    sf, start, end = d
    return sf.data[start:end].decode("utf-8", "replace")


def _size(ctx: RuleContext, call: ApiCall) -> Size | None:
    index = COUNT_ARG.get(call.name)
    if index is None:
        return None
    if len(call.args) != index + 1:
        return Size(form="mask")
    text = call.args[index].text.strip()
    if call.name == "DataCopy" and (text in ctx.param_vars or text.startswith("{")):
        return Size(form="params", expr=text)
    found = ctx.node(call.loc)
    if found is None:
        return Size(form="count", expr=text)
    sf, node = found
    arguments = node.child_by_field_name("arguments")
    args = [a for a in arguments.named_children if a.type != "comment"] if arguments is not None else []
    if len(args) != index + 1:
        return Size(form="count", expr=text)
    arg = args[index]
    direct = ctx.evaluator(sf).value(arg)
    if direct is not None:
        return Size(form="count", expr=text, elements=direct)
    env = known_values(ctx)
    value = Evaluator(sf.node_text, env, ctx.evaluator(sf).type_sizes).value(arg)
    if value is not None:
        return Size(form="count", expr=text, elements=value, via=_via(ctx, sf, arg, env))
    return Size(form="count", expr=text, derivation=derive(ctx, sf, arg))


def _via(ctx: RuleContext, sf: SourceFile, node: Node, env: dict[str, int]) -> str | None:
    """How a count known through the tiling data got its value: `tileLength = TILE_LENGTH = 8192, set by the host`."""
    parts = []
    for name in dict.fromkeys(ctx.flow.kernel.names_in(sf, node)):
        if name in ctx.kernel_env or name not in env:
            continue
        setters = {s.expr.text for tf in ctx.model.tiling.functions for s in tf.setters if s.field == name}
        how = next(iter(setters)) if len(setters) == 1 else None
        shown = f"{how} = {env[name]:,}" if how and parse_int_literal(how) is None else f"{env[name]:,}"
        parts.append(f"tiling field {name}, which the host sets to {shown}")
    return "; ".join(parts) or None


def derive(ctx: RuleContext, sf: SourceFile, node: Node) -> Derivation:
    """How a kernel expression's run-time value is computed: its assignments breadth-first (kernel, then through
    tiling fields into the host), the knobs on the way, and what decides it (input shape, attributes, chip, block
    index). The chain is the data flow's coarse one (by name), so it may show more than one path."""
    flow = ctx.flow
    knobs = {k.name: k.value for k in ctx.model.knobs}
    setters: dict[str, list] = {}
    for tf in ctx.model.tiling.functions:
        for s in tf.setters:
            setters.setdefault(s.field, []).append(s)
    steps: list[Step] = []
    truncated = False
    used_knobs: dict[str, int] = {}
    decided: dict[str, None] = {}
    fields: dict[str, None] = {}
    work: deque[tuple[Literal["kernel", "host"], str]] = deque(("kernel", n) for n in flow.kernel.names_in(sf, node))
    _decided_by(sf.node_text(node), decided)
    seen: set[tuple[str, str]] = set()
    while work and len(seen) < 200:
        side, name = work.popleft()
        if (side, name) in seen:
            continue
        seen.add((side, name))
        if name in knobs:
            used_knobs.setdefault(name, knobs[name])
            continue
        if side == "kernel" and name in setters:
            fields[name] = None
            texts = list(dict.fromkeys(s.expr.text for s in setters[name]))
            truncated |= not _add(steps, Step(name, texts[0], "tiling", len(texts) - 1))
            for s in setters[name]:
                found = ctx.node(s.expr.loc)
                if found is not None:
                    _decided_by(s.expr.text, decided)
                    work.extend(("host", n) for n in flow.host.names_in(*found))
            continue
        _decided_by(name, decided)
        defs = [
            d for d in (flow.kernel if side == "kernel" else flow.host).defs(name) if not _passes_on(_def_text(d), name)
        ]
        if not defs or all(parse_int_literal(_def_text(d)) is not None for d in defs):
            continue  # a loop counter, or a value set through a call's out-parameter: nothing to show
        texts = list(dict.fromkeys(" ".join(_def_text(d).split()) for d in defs))
        truncated |= not _add(steps, Step(name, texts[0], side, len(texts) - 1))
        for text in texts:
            _decided_by(text, decided)
        for dsf, start, end in defs:
            names = (flow.kernel if side == "kernel" else flow.host).names_between(dsf, start, end)
            work.extend((side, n) for n in names)
    return Derivation(
        expr=sf.node_text(node),
        steps=tuple(steps),
        truncated=truncated,
        knobs=tuple(used_knobs.items()),
        decided_by=tuple(decided),
        fields=tuple(fields),
    )


def _add(steps: list[Step], step: Step) -> bool:
    if len(steps) >= MAX_STEPS:
        return False
    steps.append(step)
    return True


def _decided_by(text: str, into: dict[str, None]) -> None:
    for pattern, what in _RUNTIME_SOURCES:
        if pattern.search(text):
            into.setdefault(what, None)


def explain_buffer(ctx: RuleContext, ib: InitBufferCall, first_case: str | None = None) -> BufferExplanation:
    """A queue's UB bytes: `num x size` when both are known (through constant tiling fields too), per element size
    when only the element type is a parameter, else the formula and how its run-time part is computed."""
    formula = f"{ib.num.text} x {ib.size.text}"
    if ib.bytes:
        return BufferExplanation(ib.bytes, formula)
    found = ctx.node(ib.size.loc)
    if found is None:
        return BufferExplanation(None, formula, first_case=first_case)
    sf, node = found
    env = known_values(ctx)
    base = ctx.evaluator(sf).type_sizes
    num = ib.num.value if ib.num.value is not None else env.get(ib.num.text.replace("this->", ""))
    one = Evaluator(sf.node_text, env, base).value(node)
    if num is not None and one is not None:
        return BufferExplanation(num * one, formula)
    if num is not None:
        # Only the element type may be missing (`tileLength * sizeof(T)`): one figure per size the OpDef allows.
        sizes = sorted({DTYPE_SIZES[d] for t in ctx.model.inputs for d in t.dtypes if d in DTYPE_SIZES})
        per = []
        for size in sizes:
            v = Evaluator(sf.node_text, env, {**base, "T": size}).value(node)
            if v is None:
                break
            per.append((size, num * v))
        if per and len(per) == len(sizes):
            return BufferExplanation(None, formula, per_element_size=tuple(per))
    return BufferExplanation(None, formula, derivation=derive(ctx, sf, node), first_case=first_case)
