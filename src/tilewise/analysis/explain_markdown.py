"""The explanations of `analysis.explain` as Markdown: what an editor shows on hover (an AscendC call, a queue's UB
use, a knob, a tiling field read) and the last run's measured figures for a line.

Plain text in, plain text out, so any front end can show it: the language server's hover
(server/lsp/features/hover.py) only finds what the cursor is on and wraps the text in LSP types. Nothing here turns
an unknown into a number: a size the host computes at run time is shown as its formula and derivation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilewise.analysis.explain import BufferExplanation, CallExplanation, Derivation, explain_buffer, explain_call

if TYPE_CHECKING:
    from tilewise.analysis.model import ApiCall, Knob, QueueDecl, TilingRead
    from tilewise.analysis.rules.base import RuleContext


def _duration(us: float) -> str:
    return f"{us * 1e3:.0f} ns" if us < 0.1 else f"{us:.2f} µs"


def _gibps(value: float) -> str:
    return f"{value:.0f}" if value >= 10 else f"{value:.2g}"


def _derivation_text(d: Derivation, first_case: str | None, per_line: bool = True) -> str:
    """The chain as a Markdown list, then what decides it and how to see figures."""
    items = []
    for step in d.steps:
        more = f" (and {step.more} other assignment{'s' if step.more > 1 else ''})" if step.more else ""
        if step.side == "tiling":
            items.append(f"- `{step.name}`: tiling field, set by the host to `{step.expr}`{more}")
        else:
            items.append(f"- {step.side}: `{step.name} = {step.expr}`{more}")
    if d.truncated:
        items.append("- ...")
    why = list(d.decided_by) + [f"{name} = {value}" for name, value in d.knobs]
    if d.fields and "the input shape" not in d.decided_by:
        why.insert(0, "tiling fields the host computes at run time")
    notes = [f"Decided by {', '.join(why)}." if why else "Not known statically."]
    if first_case:
        seen = "this line's measured figures" if per_line else "the UB peak it reaches"
        notes.append(f"The host computes it when it runs: run case {first_case} on the emulator to see {seen}.")
    else:
        notes.append("Add a case to tilewise.toml, then run it, to see figures.")
    return "\n\n".join(x for x in ("\n".join(items), " ".join(notes)) if x)


def format_call(e: CallExplanation) -> list[str]:
    lines = [f"**{e.api}** ({e.pipe} pipe)", e.doc]
    if e.repeat_cost:
        fp16, fp32 = e.repeat_cost
        lines.append(
            f"cost on {e.chip}: {fp16[0]:g} + {fp16[1]:g} cycles per 256-byte repeat (fp16), "
            f"{fp32[0]:g} + {fp32[1]:g} (fp32)"
        )
    size, elem = e.size, e.element
    if size is not None and size.form == "params":
        lines.append(f"Size: set by the copy parameters `{size.expr}` (blocks of 32 bytes).")
    elif size is not None and size.form == "count":
        unit = f"{elem.bytes} bytes ({elem.type})" if elem else "an element type not known here"
        if size.elements is not None:
            via = f" ({size.via})" if size.via else ""
            if e.copy:
                lines.append(
                    f"for {size.elements:,} elements{via}: {e.copy.nbytes:,} bytes at about "
                    f"{_gibps(e.copy.gibps)} GiB/s, about {_duration(e.copy.us)}"
                )
            elif e.vector:
                r = e.vector.repeats
                lines.append(
                    f"for {size.elements:,} elements{via}: {r:,} repeat{'s' if r > 1 else ''}, about "
                    f"{e.vector.cycles:,.0f} cycles ({_duration(e.vector.us)})"
                )
            else:
                lines.append(f"for {size.elements:,} elements{via}, each of {unit}")
        elif size.derivation is not None:
            verb = "moves" if e.api in ("DataCopy", "DataCopyPad") else "computes"
            if verb == "moves":
                per = f"`{size.expr}` x {elem.bytes} bytes" if elem else f"`{size.expr}` elements ({unit})"
            else:
                per = f"`{size.expr}` elements of {unit}"
            lines.append(f"Size not known before the host runs: {verb} {per} per call, where")
            lines.append(_derivation_text(size.derivation, e.first_case))
    if elem and elem.assumed and size is not None and size.form == "count":
        lines.append(f"Element size: {elem.assumed}.")
    if e.in_loop:
        lines.append("Runs inside a tile loop.")
    return lines


def _range(lo: int, hi: int, unit: str, total: int, calls: int) -> str:
    if lo == hi:
        return f"{lo:,} {unit} each"
    return f"{lo:,} to {hi:,} {unit} per call ({total / max(calls, 1):,.0f} on average)"


def format_measured(run, path: str, line: int, api: str, text: str) -> str:
    """The operator's last run at this line: calls over all blocks and per block, size per call, time on the pipe.
    `text` is the file's current text, to tell when it changed since the run."""
    found = [f for f in run.lines.get((path, line), []) if f.api == api] or run.lines.get((path, line), [])
    head = f"**Last run** (case {run.case})" if run.case else "**Last run**"
    notes = (" (sources changed since)" if run.changed(path, text) else "") + (
        " (the run stopped with an error: calls counted until then)" if run.stopped else ""
    )
    if not found:
        return f"{head}: no calls from this line{notes}."
    parts = []
    for f in found:
        per_block = (
            f"{f.min_calls_per_block:,}"
            if f.min_calls_per_block == f.max_calls_per_block
            else f"{f.min_calls_per_block:,} to {f.max_calls_per_block:,}"
        )
        what = [
            f"{f.calls:,} call{'s' if f.calls != 1 else ''} ({per_block} per block over {f.blocks} "
            f"block{'s' if f.blocks != 1 else ''})"
        ]
        if f.pipe in ("MTE2", "MTE3"):
            what.append(_range(f.min_bytes, f.max_bytes, "bytes", f.bytes, f.calls))
        elif f.pipe == "VECTOR":
            what.append(_range(f.min_repeats, f.max_repeats, "repeats", f.repeats, f.calls))
        what.append(f"{f.pipe} {_duration(f.busy_us)} in total")
        parts.append((f"{f.api}: " if len(found) > 1 else "") + ", ".join(what))
    return f"{head}: " + "; ".join(parts) + notes


def format_buffer(b: BufferExplanation) -> str:
    if b.bytes is not None:
        return f"{b.bytes:,} bytes of UB"
    if b.per_element_size:
        return f"UB: {b.formula}: " + "; ".join(
            f"{ub:,} bytes for {size}-byte elements" for size, ub in b.per_element_size
        )
    text = f"UB: {b.formula}"
    if b.derivation is not None:
        text += ", where\n\n" + _derivation_text(b.derivation, b.first_case, per_line=False)
    return text


def call_markdown(ctx: RuleContext, call: ApiCall, first_case: str | None = None) -> list[str]:
    """One API call explained (pipe, cost on the chip, size and the facts used), as Markdown paragraphs."""
    return format_call(explain_call(ctx, call, first_case))


def knob_markdown(k: Knob) -> str:
    domain = f"search domain {k.domain}" if k.domain else "no search domain (tune infers one from its role)"
    return f"**knob {k.name}** = {k.value} ({k.role}, {k.side} side)\n\n{domain}"


def queue_markdown(ctx: RuleContext, q: QueueDecl, first_case: str | None = None) -> str:
    """A queue: its kind, position and depth, and the UB its InitBuffer takes."""
    model = ctx.model
    ib = next((b for b in model.init_buffers if b.queue == q.name and b.owner == q.owner), None)
    ub = format_buffer(explain_buffer(ctx, ib, first_case)) if ib else "never initialised"
    depth = f", depth {q.depth}" if q.depth is not None else ""
    return f"**{q.kind} {q.name}** ({q.position}{depth})\n\n{ub}"


def tiling_read_markdown(ctx: RuleContext, r: TilingRead) -> str:
    """A kernel read of a tiling field: the field's type, what the host sets it to, and the knobs that decide it."""
    model = ctx.model
    field = next((f for f in model.tiling.fields if f.name == r.field), None)
    setters = [s.expr.text for tf in model.tiling.functions for s in tf.setters if s.field == r.field]
    if field is None:
        return f"**{r.field}**: not a field of {model.tiling.struct}"
    text = (
        f"**tiling field {field.type} {field.name}** of {model.tiling.struct}\n\n"
        f"set by the host as: {', '.join(setters) or '(never set)'}"
    )
    found = ctx.node(r.loc)
    knobs = ctx.flow.knobs_reaching(ctx.flow.kernel_names(*found)) if found else []
    if knobs:
        text += "\n\ndecided by " + "; ".join(
            f"{k.name} = {k.value}" + (f", search domain {k.domain}" if k.domain else "") for k in knobs
        )
    return text
