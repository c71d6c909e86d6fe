"""`tilewise inspect`: the operator model as a table or as JSON."""

from __future__ import annotations

import argparse
import json

from rich.table import Table

from tilewise.analysis.errors import TilewiseError
from tilewise.analysis.model import OperatorModel, model_json
from tilewise.analysis.operator import Operator, load_operator
from tilewise.cli.common import err, escape, out, problem_line, rel


def inspect_json(model: OperatorModel) -> dict:
    data = model_json(model)
    data["kernel"] = {**data["kernel"], "file": rel(model.kernel.file) if model.kernel.file else None}
    return data


def cmd_inspect(args: argparse.Namespace) -> int:
    try:
        op = load_operator(args.path)
    except TilewiseError as exc:
        err.print(f"error: {exc.one_line()}", markup=False)
        return 2
    for p in op.problems:
        err.print(problem_line(p), markup=False)
    if args.format == "json":
        print(json.dumps(inspect_json(op.model), indent=2))
    else:
        _print_model(op)
    return 1 if op.problems else 0


def _print_model(op: Operator) -> None:
    m = op.model
    out.print(f"[bold]{m.operator}[/bold]  ({m.layout} layout, {rel(m.root)})")
    out.print(f"kernel entry: {m.kernel.entry or '-'}  in {rel(m.kernel.file) if m.kernel.file else '-'}")
    t = Table("tensor", "kind", "dtypes", "formats", box=None, pad_edge=False)
    for kind, items in (("input", m.inputs), ("output", m.outputs)):
        for x in items:
            t.add_row(x.name, kind, ", ".join(x.dtypes), ", ".join(x.formats))
    out.print(t)
    if m.attrs:
        out.print("attrs: " + ", ".join(f"{a.name}:{a.type}={a.default}" for a in m.attrs))
    out.print(f"tiling struct: {m.tiling.struct or '-'}  function: {m.tiling.function or '-'}")
    for f in m.tiling.fields:
        suffix = f"[{f.array_len}]" if f.array_len else ""
        out.print(f"  {f.type} {f.name}{suffix}", markup=False)
    for tf in m.tiling.functions:
        out.print(
            f"  blockDim: {', '.join(e.text for e in tf.block_dim) or '-'}; "
            f"tiling keys: {', '.join(e.text for e in tf.tiling_keys) or '-'}; "
            f"workspace: {', '.join(e.text for e in tf.workspace) or '-'}",
            markup=False,
        )
    if m.tiling_key_branches:
        out.print("kernel tiling-key branches: " + ", ".join(b.key.text for b in m.tiling_key_branches))
    q = Table("queue", "kind", "position", "depth", "InitBuffer (num x bytes)", box=None, pad_edge=False)
    for queue in m.queues:
        ib = next((b for b in m.init_buffers if b.queue == queue.name and b.owner == queue.owner), None)
        q.add_row(
            queue.name,
            queue.kind,
            queue.position or "",
            str(queue.depth if queue.depth is not None else ""),
            f"{ib.num.text} x {ib.size.text}" if ib else "",
        )
    out.print(q)
    k = Table("knob", "value", "role", "domain", "where", box=None, pad_edge=False)
    for knob in m.knobs:
        k.add_row(knob.name, str(knob.value), knob.role, str(knob.domain or ""), f"{rel(knob.file)}:{knob.line}")
    out.print(k)
    if m.tiling_knobs:  # the tiling function's own: what it asks the platform, and its decisive literals
        t = Table("tiling-function knob", "value", "role", "where", "in", box=None, pad_edge=False)
        for knob in m.tiling_knobs:
            value = "the chip's" if knob.kind == "platform" else str(knob.value)
            t.add_row(knob.name, value, knob.role, f"{rel(knob.file)}:{knob.line}", escape(knob.context))
        out.print(t)
    out.print(f"{len(m.api_calls)} AscendC API calls, {sum(c.in_loop for c in m.api_calls)} of them in tile loops")
