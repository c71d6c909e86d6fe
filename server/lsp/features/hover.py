"""Hover: an AscendC call (what it does, its pipe, its cost on the chip), a knob (value and search domain), a queue
(depth and UB use), a tiling field (type and the value the host sets)."""

from __future__ import annotations

from lsprotocol import types

from analysis.apis import COPIES, DOCS, VECTOR_BINARY, VECTOR_SCALAR, VECTOR_UNARY, pipe_of
from server.lsp.server import safe


def _at(loc, path: str, offset: int) -> bool:
    return loc is not None and loc.file == path and loc.start <= offset <= loc.end


def _vector_cost(chip, timing, name: str) -> str | None:
    cost = timing.vector.get(name)
    if cost is None:
        return None
    return (f"cost on {chip.name}: {cost.fp16[0]:g} + {cost.fp16[1]:g} cycles per 256-byte repeat (fp16), "
            f"{cost.fp32[0]:g} + {cost.fp32[1]:g} (fp32)")


_COUNT_ARG = {**dict.fromkeys(VECTOR_BINARY + VECTOR_SCALAR, 3), **dict.fromkeys(VECTOR_UNARY, 2), "DataCopy": 2}


def _duration(us: float) -> str:
    return f"{us * 1e3:.0f} ns" if us < 0.1 else f"{us:.2f} µs"


def _sized_cost(ctx, t, call) -> str | None:
    """The call's cost for its size, where the element count is known: a constant, or the one tile knob that
    reaches it (followed through the tiling data into the host). `ctx` is the rules' view, `t` the chip's timing."""
    index = _COUNT_ARG.get(call.name)
    if index is None or len(call.args) != index + 1:
        return None  # mask/repeat forms: the count is not one argument
    chip = ctx.chip
    found = ctx.node(call.loc)
    if found is None:
        return None
    sf, node = found
    args = [a for a in node.child_by_field_name("arguments").named_children if a.type != "comment"]
    count, via = ctx.evaluator(sf).value(args[index]), ""
    if count is None:
        knobs = ctx.flow.knobs_reaching(ctx.flow.kernel_names(sf, args[index]), role="tile")
        if len(knobs) != 1:
            return None
        count, via = knobs[0].value, f" (with {knobs[0].name} = {knobs[0].value})"
    elem = ctx.elem_size(call, call.args[0].text) or ctx.elem_size(call, call.args[1].text) or 2
    nbytes = count * elem
    if call.name == "DataCopy":
        gibps = t.dma_peak_gibps * nbytes / (t.dma_half_bytes + nbytes)
        us = nbytes / (gibps * 2**30) * 1e6 + t.dma_startup_cycles / (chip.clock_ghz * 1e3)
        return f"for {count:,} elements{via}: {nbytes:,} bytes at about {gibps:.0f} GiB/s, about {_duration(us)}"
    cost = t.vector.get(call.name)
    startup, slope = (cost.fp16 if elem <= 2 else cost.fp32) if cost else t.vector_default
    repeats = -(-nbytes // 256)
    cycles = startup + slope * repeats
    return (f"for {count:,} elements{via}: {repeats:,} repeat{'s' if repeats > 1 else ''}, about {cycles:,.0f} "
            f"cycles ({_duration(cycles / (chip.clock_ghz * 1e3))})")


def _ub_estimate(analysis, ib) -> str | None:
    """A queue's UB bytes when its size depends on a run-time tile length: with the tile knob's current value
    and each element size the operator's dtypes allow."""
    from analysis.evaluate import DTYPE_SIZES, Evaluator

    ctx = analysis.context
    found = ctx.node(ib.size.loc)
    if found is None:
        return None
    sf, node = found
    env = dict(ctx.kernel_env)
    free = {n for n in ctx.flow.kernel.names_in(sf, node) if n not in env and n not in ("T", "sizeof")}
    knobs = ctx.flow.knobs_reaching(ctx.flow.kernel_names(sf, node), role="tile")
    if len(free) != 1 or len(knobs) != 1:
        return None  # only the simple, common case: one run-time length decided by one tile knob
    env[free.pop()] = knobs[0].value
    sizes = sorted({DTYPE_SIZES[d] for t in analysis.op.model.inputs for d in t.dtypes if d in DTYPE_SIZES}) or [2]
    out = []
    for size in sizes:
        ev = Evaluator(sf.node_text, env, {"T": size, "DTYPE": size})
        one, num = ev.value(node), ib.num.value or ctx.kernel_env.get(ib.num.text)
        if one is None or num is None:
            return None
        out.append(f"{num * one:,} bytes for {size}-byte elements")
    return f"with {knobs[0].name} = {knobs[0].value}: " + "; ".join(out)


def describe(analysis, path: str, offset: int) -> str | None:
    from analysis.chip import timing_config

    model, ctx = analysis.op.model, analysis.context
    for c in model.api_calls:
        name_end = c.loc.start + len((c.receiver + ".") if c.receiver else "") + len(c.name) + 40
        if _at(c.loc, path, offset) and offset <= name_end:
            to_global = ctx.is_global(c.args[0].text) if c.name in COPIES and c.args else None
            pipe = pipe_of(c.name, receiver_is_global=to_global)
            lines = [f"**{c.name}** ({pipe} pipe)", DOCS.get(c.name, "")]
            timing = timing_config(ctx.chip)
            cost = _vector_cost(ctx.chip, timing, c.name) if pipe == "vector" else None
            if cost:
                lines.append(cost)
            sized = _sized_cost(ctx, timing, c)
            if sized:
                lines.append(sized)
            if c.in_loop:
                lines.append("Runs inside a tile loop.")
            return "\n\n".join(x for x in lines if x)
    for k in model.knobs:
        if _at(k.literal, path, offset) or (k.file == path and _line_of(analysis, path, offset) == k.line):
            domain = f"search domain {k.domain}" if k.domain else "no search domain (tune infers one from its role)"
            return f"**knob {k.name}** = {k.value} ({k.role}, {k.side} side)\n\n{domain}"
    for q in model.queues:
        if _at(q.loc, path, offset):
            ib = next((b for b in model.init_buffers if b.queue == q.name and b.owner == q.owner), None)
            ub = f"{ib.bytes:,} bytes of UB" if ib and ib.bytes else (
                f"UB: {ib.num.text} x {ib.size.text}" if ib else "never initialised")
            estimate = _ub_estimate(analysis, ib) if ib and not ib.bytes else None
            if estimate:
                ub += f"\n\n{estimate}"
            depth = f", depth {q.depth}" if q.depth is not None else ""
            return f"**{q.kind} {q.name}** ({q.position}{depth})\n\n{ub}"
    for r in model.tiling_reads:
        if _at(r.loc, path, offset):
            field = next((f for f in model.tiling.fields if f.name == r.field), None)
            setters = [s.expr.text for tf in model.tiling.functions for s in tf.setters if s.field == r.field]
            if field is None:
                return f"**{r.field}**: not a field of {model.tiling.struct}"
            text = (f"**tiling field {field.type} {field.name}** of {model.tiling.struct}\n\n"
                    f"set by the host as: {', '.join(setters) or '(never set)'}")
            found = ctx.node(r.loc)
            knobs = ctx.flow.knobs_reaching(ctx.flow.kernel_names(*found)) if found else []
            if knobs:
                text += "\n\ndecided by " + "; ".join(
                    f"{k.name} = {k.value}" + (f", search domain {k.domain}" if k.domain else "") for k in knobs)
            return text
    return None


def _line_of(analysis, path: str, offset: int) -> int:
    return analysis.op.sources[path].line_col(offset)[0]


def register(server) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @safe(None)
    async def hover(ls, params: types.HoverParams):
        at = await ls.analysis_at(params.text_document.uri, params.position)
        text = describe(*at) if at else None
        if text is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))
