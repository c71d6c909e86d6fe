"""`tilewise tune`: the host tiling's knobs searched on the device, the best configuration printed or applied.

`--executor ray` measures on a Ray cluster (search/executors.py); everything else, the progress included, is the
same as with the local executor, and the gain analysis, --sensitivity and --apply still run here.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from tilewise.analysis.errors import TilewiseError
from tilewise.analysis.operator import Operator
from tilewise.cli.common import err, escape, out, rel, session_from_args
from tilewise.device.protocol import RunRequest
from tilewise.report.html import charts_bundle

if TYPE_CHECKING:
    from tilewise.report.convergence import ConvergenceRecorder


def cmd_tune(args: argparse.Namespace) -> int:
    from tilewise.report.convergence import ConvergenceRecorder
    from tilewise.search.executors import ExecutorError

    try:
        session, tuner, executor, cache = _prepare(args)
    except (ExecutorError, TilewiseError, ValueError) as exc:
        err.print(f"error: {exc.one_line() if isinstance(exc, TilewiseError) else exc}", markup=False)
        return 2
    if args.golden:
        err.print("note: --golden applies to `tilewise run`; tune uses the manifest's golden or the shipped outputs")
    inert = tuner.prune_inert()  # before the header: the space it prints is the one searched
    if args.format == "text":
        _print_header(args, session, tuner, executor, inert)
    html = getattr(args, "html", None)
    if html:
        try:
            charts_bundle()  # before the search: a missing bundle is said at once
        except TilewiseError as exc:
            err.print(f"error: {exc.one_line()}", markup=False)
            return 2
    op, device = session.op, session.device
    recorder = ConvergenceRecorder(op.model.operator, args.strategy, args.budget, cases=[c.name for c in tuner.cases])
    try:
        _search(args, tuner, recorder)
    finally:
        executor.close()
    result = tuner.result()
    recorder.finish(result)
    gain = _gain(op, tuner, result, device, args)  # before --apply: it compares against the shipped sources
    report = _write_report(html, op, tuner, result, device, recorder) if html else None
    applied = None
    if args.apply and result.best and result.best != result.baseline:
        applied = _apply_best(op, tuner, result, device)
    _print_outcome(args, op, tuner, result, applied, gain, report)
    if cache:
        cache.close()
    return 0 if result.best is not None else 1


def _prepare(args: argparse.Namespace):
    """(session, tuner, executor, results cache or None) from the flags; TilewiseError, ValueError (a strategy) or
    ExecutorError (Ray) with the one line to print otherwise."""
    from tilewise.search.cache import ResultsCache, default_results_path
    from tilewise.session.builder import TuneOptions

    session = session_from_args(args)
    cache = None if args.no_cache else ResultsCache(default_results_path())
    executor = _executor(args, session.device)
    options = TuneOptions(strategy=args.strategy, budget=args.budget, seed=args.seed, workers=args.workers)
    return session, session.tuner(options, cache=cache, executor=executor), executor, cache


def _print_header(args: argparse.Namespace, session, tuner, executor, inert: list) -> None:
    """What is searched, where, and what was left out, before the first measurement."""
    from tilewise.search.executors import RayExecutor

    space = tuner.space
    if inert:
        out.print(
            f"left out {len(inert)} knobs that hand the kernel the shipped tiling on these cases whatever their value: "
            + ", ".join(k.name for k in inert)
        )
    if isinstance(executor, RayExecutor):
        slots, what = executor.slots()
        out.print(
            f"measuring on Ray: {slots} {what} in the cluster, {tuner.workers} measurements in flight (--workers)"
        )
    out.print(
        f"tuning {session.op.model.operator}: {len(space.knobs)} knobs "
        f"({', '.join(f'{k.name} in {k.domain}' for k in space.knobs) or 'none'}), "
        f"{space.size():,} configurations, budget {args.budget}, strategy {args.strategy}, "
        f"cases {', '.join(c.name for c in session.cases)}"
    )


def _search(args: argparse.Namespace, tuner, recorder: ConvergenceRecorder) -> None:
    """The search, with a progress bar on a terminal's stderr and, with -v, every trial; Ctrl-C stops it after the
    measurements in flight (every result is kept)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=args.format == "json" or not err.is_terminal,
    )
    try:
        with progress:
            task = progress.add_task("measuring the shipped tiling", total=args.budget)
            for ev in tuner.events():
                recorder.add(ev)
                if ev.best_us is not None and ev.baseline_us:
                    screened = f", {ev.screened} screened out" if ev.screened else ""
                    progress.update(
                        task, description=f"best {ev.best_us:.2f} µs ({ev.baseline_us / ev.best_us:.2f}x){screened}"
                    )
                progress.update(task, completed=min(ev.evaluations, args.budget))
                if ev.trial is not None and args.format == "text" and args.verbose:
                    err.print(_trial_line(ev.trial), markup=False)
    except KeyboardInterrupt:
        tuner.stop()
        err.print("interrupted: stopping after the measurements in flight; every result is kept")


def _trial_line(t) -> str:
    if t.screened:  # not measured: numbered apart from the measurements
        return f"  screened {t.config}: {t.error}"
    status = f"{t.time_us:.2f} µs" if t.ok else f"failed: {t.error}"
    return f"  #{t.index} {t.config}: {status}{' (cached)' if t.cached else ''}"


def _print_outcome(args: argparse.Namespace, op: Operator, tuner, result, applied, gain, report) -> None:
    """The result as JSON, or as text with where the gain comes from and what the knobs cannot reach."""
    from tilewise.search.space import unreachable

    notes = unreachable(op, tuner.space)
    if args.format == "json":
        data = result.model_dump(mode="json")
        data["applied"] = applied
        data["gain"] = asdict(gain) if gain else None
        data["not_reachable_by_knobs"] = notes
        data["report"] = str(report) if report else None
        print(json.dumps(data, indent=2))
        return
    _print_tune(result, applied)
    if gain is not None:
        out.print(f"where the gain comes from: {escape(gain.summary())}")
    for note in notes:
        out.print(f"[dim]not searched[/dim]: {escape(note)}")
    if report:
        out.print(f"report: {rel(str(report))}")


def _write_report(path: str, op: Operator, tuner, result, device, recorder: ConvergenceRecorder) -> Path | None:
    """The tune's HTML report: the convergence, then the best configuration run once more on the largest case with
    a trace (its timeline and roofline). None, with one line said, when the file cannot be written."""
    from tilewise.report.html import write_report
    from tilewise.report.reports import tune_report

    best_run = None
    if result.best is not None:
        case = max(tuner.cases, key=lambda c: c.input_elements)
        with tempfile.TemporaryDirectory(prefix="tilewise-tune-") as scratch:
            best_run = device.run(
                op,
                RunRequest(
                    case,
                    knobs=result.best,
                    seed=tuner.data_seed,
                    inputs=tuner.inputs,
                    trace_path=str(Path(scratch) / "trace.json"),
                    sites=True,
                ),
            )
            report = tune_report(recorder.payload(), best_run, device.chip)  # reads the trace: inside the scratch
    else:
        report = tune_report(recorder.payload(), None, device.chip)
    try:
        return write_report(path, report)
    except OSError as exc:
        err.print(f"error: {path}: cannot write the report ({exc.strerror or exc}): choose a writable path")
        return None


def _executor(args: argparse.Namespace, device):
    """The --executor's; for Ray, the worker makes the same device from the flags (the chip only when one was
    given: without, the emulator may follow the chip the operator registers, on the worker as here)."""
    from tilewise.search.executors import DeviceSpec, make_executor

    if args.ray_address and args.executor != "ray":
        err.print("note: --ray-address applies to --executor ray; measuring on this machine")
    spec = DeviceSpec(
        args.device,
        device.chip if args.chip else None,
        args.timeout,
        cann=os.path.abspath(args.cann) if getattr(args, "cann", None) else None,  # (a worker's cwd is not ours)
        warm_up=getattr(args, "npu_warm_up", None),
        launches=getattr(args, "npu_launches", None),
    )
    return make_executor(args.executor, device, spec, address=args.ray_address)


def _gain(op: Operator, tuner, result, device, args: argparse.Namespace):
    """The best's gain taken apart on the largest case: the kernel body's share, and with --sensitivity the
    timing constants it rests on (search/robustness.py). None without a gain."""
    from tilewise.device.registry import make_device
    from tilewise.search.robustness import explain_gain

    if not result.best or not result.speedup or result.speedup <= 1.0:
        return None
    case = max(tuner.cases, key=lambda c: c.input_elements)

    def device_for(chip):
        return make_device(args.device, chip=chip, timeout_s=args.timeout)

    return explain_gain(
        op,
        device,
        device_for if args.sensitivity else None,
        case,
        result.baseline,
        result.best,
        seed=tuner.data_seed,
    )


def _apply_best(op: Operator, tuner, result, device) -> dict:
    """Rewrite the knob literals in the sources, then prove the operator still builds and passes."""
    from tilewise.analysis.findings import Fix
    from tilewise.analysis.operator import load_operator as reload
    from tilewise.analysis.rewrite import apply_fix, changed_knobs, tuned_edits
    from tilewise.search.space import platform_figures

    platform = platform_figures(device.chip)  # a platform knob below the chip's figure becomes a clamp
    cases = [c.name for c in tuner.cases]
    edits = tuned_edits(op.model, op.sources, result.best, platform=platform, cases=cases)
    apply_fix(Fix(title="apply tuned tiling", edits=edits), write=True)
    fresh = reload(op.project.root)
    failures = []
    for case in tuner.cases:
        m = device.run(fresh, RunRequest(case, seed=tuner.data_seed, inputs=tuner.inputs))
        if not m.ok or m.correct is False:
            failures.append(f"{case.name}: {m.error.message if m.error else 'wrong output'}")
    return {
        "files": sorted({e.file for e in edits}),
        "edits": len(changed_knobs(op.model, result.best))
        + sum(1 for name, full in platform.items() if result.best.get(name, full) < full),
        "verified": not failures,
        "failures": failures,
    }


def _print_tune(result, applied) -> None:
    if result.baseline_us is None:
        out.print(
            "[red]the shipped configuration does not run correctly[/red]: "
            f"{result.trials[0].error if result.trials else ''}"
        )
    else:
        out.print(f"shipped tiling: {result.baseline_us:.2f} µs  {result.baseline}")
    if result.best and result.speedup:
        out.print(
            f"best found:     [bold]{result.best_us:.2f} µs[/bold]  {result.best}  ([bold]{result.speedup:.2f}x[/bold])"
        )
        if result.uncertain:
            out.print(f"[yellow]note[/yellow]: {escape(result.uncertain)}")
    elif result.best and result.best_us is not None:
        no_time = "(the shipped tiling has no time to compare)"
        out.print(f"best found:     [bold]{result.best_us:.2f} µs[/bold]  {result.best}  {no_time}")
    if result.dtype_checks:
        out.print(f"checked on the OpDef's other dtype paths: {escape(', '.join(result.dtype_checks))}")
    for name, why in result.dtype_broken.items():
        out.print(f"[yellow]note[/yellow]: the shipped tiling fails the dtype path {escape(name)} too: {escape(why)}")
    if result.best and len(result.per_case_speedup) > 1:
        out.print(
            "per case:       " + ", ".join(f"{escape(name)} {x:.2f}x" for name, x in result.per_case_speedup.items())
        )
    if result.slower_cases:
        slower = ", ".join(f"{escape(n)} ({result.per_case_speedup[n]:.2f}x)" for n in result.slower_cases)
        out.print(f"[yellow]note[/yellow]: the best configuration is slower than the shipped one on {slower}")
    out.print(
        f"{result.evaluations} evaluations ({result.cached} from the cache), {len(result.failed)} failed, "
        f"{result.screened} screened out before measuring (not in the budget)"
        + (", stopped early" if result.stopped else "")
    )
    for t in result.failed[:5]:
        out.print(f"  failed {t.config}: {escape(t.error or '')}")
    for t in result.screened_trials[:3]:
        out.print(f"  screened {t.config}: {escape(t.error or '')}")
    if applied:
        verdict = "[green]still builds and passes[/green]" if applied["verified"] else "[red]FAILS[/red]"
        out.print(f"applied to {', '.join(rel(f) for f in applied['files'])}: {verdict}")
