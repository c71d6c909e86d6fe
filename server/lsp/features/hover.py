"""Hover: an AscendC call (what it does, its pipe, its cost on the chip), a knob (value and search domain), a queue
(depth and UB use), a tiling field (type and the value the host sets)."""

from __future__ import annotations

from lsprotocol import types

from analysis.apis import DOCS, pipe_of
from server.lsp.server import safe
from server.lsp.state import uri_to_path


def _at(loc, path: str, offset: int) -> bool:
    return loc is not None and loc.file == path and loc.start <= offset <= loc.end


def _vector_cost(ls, name: str) -> str | None:
    from analysis.chip import load_chip
    from device.emulator.timing import timing_config

    chip = load_chip(ls.state.settings.chip)
    cost = timing_config(chip).vector.get(name)
    if cost is None:
        return None
    return (f"cost on {chip.name}: {cost.fp16[0]:g} + {cost.fp16[1]:g} cycles per 256-byte repeat (fp16), "
            f"{cost.fp32[0]:g} + {cost.fp32[1]:g} (fp32)")


def describe(ls, analysis, path: str, offset: int) -> str | None:
    model = analysis.op.model
    for c in model.api_calls:
        name_end = c.loc.start + len((c.receiver + ".") if c.receiver else "") + len(c.name) + 40
        if _at(c.loc, path, offset) and offset <= name_end:
            pipe = pipe_of(c.name)
            lines = [f"**{c.name}** ({pipe} pipe)", DOCS.get(c.name, "")]
            cost = _vector_cost(ls, c.name) if pipe == "vector" else None
            if cost:
                lines.append(cost)
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
            depth = f", depth {q.depth}" if q.depth is not None else ""
            return f"**{q.kind} {q.name}** ({q.position}{depth})\n\n{ub}"
    for r in model.tiling_reads:
        if _at(r.loc, path, offset):
            field = next((f for f in model.tiling.fields if f.name == r.field), None)
            setters = [s.expr.text for tf in model.tiling.functions for s in tf.setters if s.field == r.field]
            if field is None:
                return f"**{r.field}**: not a field of {model.tiling.struct}"
            return (f"**tiling field {field.type} {field.name}** of {model.tiling.struct}\n\n"
                    f"set by the host as: {', '.join(setters) or '(never set)'}")
    return None


def _line_of(analysis, path: str, offset: int) -> int:
    return analysis.op.sources[path].line_col(offset)[0]


def register(server) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @safe(None)
    async def hover(ls, params: types.HoverParams):
        analysis = await ls.analysis_for(params.text_document.uri)
        path = uri_to_path(params.text_document.uri)
        if analysis is None or path not in analysis.op.sources:
            return None
        offset = analysis.op.sources[path].offset_of_lsp(params.position.line, params.position.character)
        text = describe(ls, analysis, path, offset)
        if text is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))
