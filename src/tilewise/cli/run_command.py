"""`tilewise run`: one case on the device, checked against its golden, with the pipe timeline."""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from rich.table import Table

from tilewise.analysis.errors import TilewiseError
from tilewise.analysis.model_error import likely_range
from tilewise.analysis.operator import Operator
from tilewise.cli.common import err, escape, out, rel, session_from_args
from tilewise.device.protocol import RunRequest
from tilewise.report.html import charts_bundle


def cmd_run(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    try:
        session = session_from_args(args, one_case=True)
        device, op, case = session.device, session.op, session.case
        html = getattr(args, "html", None)
        if html:
            charts_bundle()  # before the run: a missing bundle is said at once, not after it
        scratch = tempfile.TemporaryDirectory(prefix="tilewise-run-") if html and not args.trace else None
        trace = str(Path(args.trace).resolve()) if args.trace else None
        if scratch is not None:  # the report needs a trace; the user asked for none to be kept
            trace = str(Path(scratch.name) / "trace.json")
        m = device.run(
            op,
            RunRequest(
                case,
                seed=args.seed,
                golden=args.golden,
                inputs=session.arrays,
                trace_path=trace,
                sites=bool(html),  # the roofline's bytes
            ),
        )
        report = _write_report(html, m, device.chip, op.model.operator) if html else None
        if scratch is not None:
            scratch.cleanup()
            m.trace_path = None
    except TilewiseError as exc:
        err.print(f"error: {exc.one_line()}", markup=False)
        return 2
    except ValidationError as exc:
        first = exc.errors()[0]
        err.print(f"error: {'.'.join(map(str, first['loc']))}: {first['msg']}", markup=False)
        return 2
    data = m.model_dump(mode="json")
    span = likely_range(m.time_us)
    data["time_range_us"] = list(span) if span else None
    if m.error and m.error.file:
        data["error"]["file"] = rel(m.error.file)
    for w in data.get("warnings", []):
        if w["file"]:
            w["file"] = rel(w["file"])
    if report:
        data["report"] = str(report)
    if args.format == "json":
        print(json.dumps(data, indent=2))
    else:
        _print_run(op, m, span)
        if report:
            out.print(f"report: {rel(str(report))}")
    return 0 if m.ok and m.correct is not False else 1


def _write_report(path: str, m, chip, operator: str) -> Path:
    """The run's HTML report (server/report); a failure to write it is the user's to fix, in one line."""
    from tilewise.report.html import write_report
    from tilewise.report.reports import run_report

    report, notes = run_report(m, chip, operator)
    for note in notes:
        err.print(f"note: {note}", markup=False)
    try:
        return write_report(path, report)
    except OSError as exc:
        raise TilewiseError(
            path, 0, f"cannot write the report ({exc.strerror or exc}): choose a writable path"
        ) from exc


def _print_run(op: Operator, m, span: tuple[float, float] | None) -> None:
    status = "[green]ok[/green]" if m.ok and m.correct is not False else "[red]failed[/red]"
    out.print(
        f"{op.model.operator} case {m.case}: {status}  (blockDim {m.block_dim}, tiling key {m.tiling_key}, "
        f"compile {m.compile_s:.2f} s{' cached' if m.cached_build else ''}, run {m.run_s:.2f} s)"
    )
    if m.error:
        where = (
            f"{rel(m.error.file)}:{m.error.line}: "
            if m.error.file and m.error.line
            else (f"{rel(m.error.file)}: " if m.error.file else "")
        )
        out.print(f"{where}[red]error[/red] [{m.error.kind}]: {escape(m.error.message)}")
    for w in m.warnings:  # the device went on, so the run did; the output check below decides
        where = f"{rel(w.file)}:{w.line}: " if w.file and w.line else ""
        times = f" ({w.count} times)" if w.count > 1 else ""
        out.print(f"{where}[yellow]warning[/yellow] {escape(f'[{w.kind}]')}: {escape(w.message)}{times}")
    if m.time_us is not None:
        t = Table("pipe", "busy µs", "ratio", box=None, pad_edge=False)
        for name in ("vector", "mte2", "mte3", "scalar"):
            use = m.pipes.get(name)
            if use:
                mark = "  <- bottleneck" if name == m.bottleneck else ""
                t.add_row(name, f"{use.busy_us:.2f}", f"{use.ratio:.2f}{mark}")
        out.print(
            f"simulated time on {m.chip}: [bold]{m.time_us:.2f} µs[/bold] ({m.cycles:,.0f} cycles + "
            f"{m.launch_us:.1f} µs launch), {m.waves} wave(s), UB peak {m.ub_peak_bytes:,} bytes"
        )
        if span:
            out.print(f"  on hardware, likely {span[0]:.2f}-{span[1]:.2f} µs (the model's typical error on times)")
        out.print(t)
    if m.trace_path:
        out.print(f"pipeline trace: {rel(m.trace_path)} (open it in Perfetto or chrome://tracing)")
    for o in m.outputs:
        verdict = "matches the golden" if o.ok else f"{o.mismatches} mismatches"
        errs = f"max abs err {o.max_abs_err:.3g}, max rel err {o.max_rel_err:.3g}" if o.max_abs_err is not None else ""
        shown = verdict if m.correct is not None else "no golden"
        out.print(f"  output {o.name} {o.dtype}{o.shape}: {shown} {errs}")
