"""The reports' contents: which charts a run's report and a tune's report hold, in what order, under which title.
The CLI writes them as HTML (server/report/html.py); the language server sends the same payloads to its webviews.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from tilewise.analysis.chip import Chip
from tilewise.device.protocol import Measurement
from tilewise.device.trace import TraceError
from tilewise.report.payloads import ChartPayload, ConvergencePayload, ReportPayload
from tilewise.report.roofline import roofline_payload
from tilewise.report.timeline import timeline_payload


def run_charts(m: Measurement, chip: Chip, operator: str) -> tuple[list[ChartPayload], list[str]]:
    """A run's charts: the roofline and pipes first (the verdict), then the timeline (the detail); and notes on
    what could not be drawn. A run that failed before the kernel ran has neither chart."""
    charts: list[ChartPayload] = []
    notes: list[str] = []
    roofline = roofline_payload(m, chip, operator)
    if roofline is not None:
        charts.append(roofline)
    if m.trace_path and Path(m.trace_path).is_file():  # a run that stopped early may have written none
        try:
            charts.append(timeline_payload(m.trace_path, m, operator, m.case))
        except TraceError as exc:  # e.g. a kernel-invocation program's trace: the rest of the report stands
            notes.append(f"no timeline: {exc.one_line()}")
    elif m.time_us is not None:
        notes.append("no timeline: the run wrote no trace")
    return charts, notes


def run_report(m: Measurement, chip: Chip, operator: str) -> tuple[ReportPayload, list[str]]:
    """The run's report, and the notes on what it lacks (the CLI prints them; the page says them too)."""
    status = "ok" if m.ok and m.correct is not False else (m.error.kind if m.error else "wrong output")
    time = f"{m.time_us:.2f} µs" if m.time_us is not None else "no time"
    charts, notes = run_charts(m, chip, operator)
    subtitle = f"case {m.case} on {m.chip or chip.name}: {status}, {time}. {_stamp()}"
    return ReportPayload(title=f"tilewise run: {operator}", subtitle=" ".join([subtitle, *notes]), charts=charts), notes


def tune_report(convergence: ConvergencePayload, best_run: Measurement | None, chip: Chip) -> ReportPayload:
    """The convergence, then the best configuration's run (roofline and timeline) when there is one."""
    gain = ""
    if convergence.best_us and convergence.shipped_us:
        gain = f", best {convergence.best_us:.2f} µs ({convergence.shipped_us / convergence.best_us:.2f}x)"
    charts: list[ChartPayload] = [convergence]
    notes: list[str] = []
    if best_run is not None:
        run, notes = run_charts(best_run, chip, convergence.operator)
        charts.extend(run)
    return ReportPayload(
        title=f"tilewise tune: {convergence.operator}",
        subtitle=(
            f"strategy {convergence.strategy}, {sum(p.status != 'screened' for p in convergence.points)} of "
            f"{convergence.budget} evaluations{gain}. {' '.join([_stamp(), *notes])}"
        ),
        charts=charts,
    )


def _stamp() -> str:
    return datetime.datetime.now().strftime("Made %Y-%m-%d %H:%M")
