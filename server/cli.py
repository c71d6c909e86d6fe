"""The `tilewise` command line: thin adapters from arguments to the rooms below, and from results to text or JSON.

Bad input never ends in a traceback: each problem prints as one line naming the file, the line and what to do,
and the rest of the output still comes out.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from analysis.chip import builtin_chips, load_chip
from analysis.errors import TilewiseError
from analysis.findings import Finding
from analysis.lint import lint
from analysis.model import OperatorModel, Problem
from analysis.operator import Operator, load_operator
from analysis.project import discover

out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def _rel(path: str) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return path


def _problem_line(p: Problem) -> str:
    where = f"{_rel(p.file)}:{p.line}" if p.line else _rel(p.file)
    return f"{where}: error: {p.message}"


# ---- inspect -------------------------------------------------------------------------------------------------
def inspect_json(model: OperatorModel) -> dict:
    data = model.model_dump(mode="json")
    data["kernel"] = {**data["kernel"], "file": _rel(model.kernel.file) if model.kernel.file else None}
    return data


def cmd_inspect(args: argparse.Namespace) -> int:
    try:
        op = load_operator(args.path)
    except TilewiseError as exc:
        err.print(f"error: {exc.one_line()}", markup=False)
        return 2
    for p in op.problems:
        err.print(_problem_line(p), markup=False)
    if args.format == "json":
        print(json.dumps(inspect_json(op.model), indent=2))
    else:
        _print_model(op)
    return 1 if op.problems else 0


def _print_model(op: Operator) -> None:
    m = op.model
    out.print(f"[bold]{m.operator}[/bold]  ({m.layout} layout, {_rel(m.root)})")
    out.print(f"kernel entry: {m.kernel.entry or '-'}  in {_rel(m.kernel.file) if m.kernel.file else '-'}")
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
        out.print(f"  blockDim: {', '.join(e.text for e in tf.block_dim) or '-'}; "
                  f"tiling keys: {', '.join(e.text for e in tf.tiling_keys) or '-'}; "
                  f"workspace: {', '.join(e.text for e in tf.workspace) or '-'}", markup=False)
    if m.tiling_key_branches:
        out.print("kernel tiling-key branches: " + ", ".join(b.key.text for b in m.tiling_key_branches))
    q = Table("queue", "kind", "position", "depth", "InitBuffer (num x bytes)", box=None, pad_edge=False)
    for queue in m.queues:
        ib = next((b for b in m.init_buffers if b.queue == queue.name and b.owner == queue.owner), None)
        q.add_row(queue.name, queue.kind, queue.position or "", str(queue.depth if queue.depth is not None else ""),
                  f"{ib.num.text} x {ib.size.text}" if ib else "")
    out.print(q)
    k = Table("knob", "value", "role", "domain", "where", box=None, pad_edge=False)
    for knob in m.knobs:
        k.add_row(knob.name, str(knob.value), knob.role, str(knob.domain or ""), f"{_rel(knob.file)}:{knob.line}")
    out.print(k)
    out.print(f"{len(m.api_calls)} AscendC API calls, {sum(c.in_loop for c in m.api_calls)} of them in tile loops")


# ---- lint ----------------------------------------------------------------------------------------------------
def finding_json(f: Finding) -> dict:
    d = f.model_dump(mode="json")
    d["file"] = _rel(f.file)
    for fix in d["fixes"]:
        for e in fix["edits"]:
            e["file"] = _rel(e["file"])
    return d


def cmd_lint(args: argparse.Namespace) -> int:
    try:
        chip = load_chip(args.chip)
    except TilewiseError as exc:
        err.print(f"error: {exc.one_line()}", markup=False)
        return 2
    findings: list[Finding] = []
    failed = False
    seen_roots: set[str] = set()
    for path in args.paths:
        try:
            projects = discover(path)
        except TilewiseError as exc:
            err.print(f"error: {exc.one_line()}", markup=False)
            failed = True
            continue
        only = str(Path(path).resolve()) if Path(path).is_file() else None
        for project in projects:
            if str(project.root) in seen_roots and only is None:
                continue
            seen_roots.add(str(project.root))
            try:
                op = load_operator(project.root)
            except TilewiseError as exc:
                err.print(f"error: {exc.one_line()}", markup=False)
                failed = True
                continue
            for p in op.problems:
                if only is None or p.file == only:
                    err.print(_problem_line(p), markup=False)
                    failed = True
            findings.extend(f for f in lint(op, chip) if only is None or f.file == only)
    if args.format == "json":
        print(json.dumps([finding_json(f) for f in findings], indent=2))
    else:
        for f in findings:
            colour = {"error": "red", "warning": "yellow"}.get(f.severity, "cyan")
            out.print(f"{_rel(f.file)}:{f.line}:{f.col}: [{colour}]{f.severity}[/{colour}]: "
                      f"{_escape(f.message)} [dim]\\[{f.rule}][/dim]")
            for fix in f.fixes:
                out.print(f"    fix: {_escape(fix.title)}")
        counts = {s: sum(f.severity == s for f in findings) for s in ("error", "warning", "info")}
        out.print(f"{len(findings)} findings: {counts['error']} errors, {counts['warning']} warnings, "
                  f"{counts['info']} notes")
    return 1 if failed or any(f.severity == "error" for f in findings) else 0


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


# ---- entry point ---------------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tilewise", description="Language server, emulator and tiling "
                                     "optimiser for AscendC operators.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("inspect", help="print the operator model of the operator containing PATH")
    p.add_argument("path")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_inspect)

    p = sub.add_parser("lint", help="report performance and correctness problems; exit 1 on errors")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--chip", default=None, help=f"chip name ({', '.join(builtin_chips())}) or a JSON file")
    p.set_defaults(func=cmd_lint)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        err.print("interrupted")
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
