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
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from analysis.chip import builtin_chips, load_chip
from analysis.errors import TilewiseError
from analysis.findings import Finding
from analysis.lint import lint
from analysis.model import OperatorModel, Problem, model_json
from analysis.operator import Operator, load_operator
from analysis.project import discover
from device.registry import DEVICES

if TYPE_CHECKING:
    from search.verify_fix import FixVerdict

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
    data = model_json(model)
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
        k.add_row(knob.name, str(knob.value), knob.role, str(knob.domain or ""), f"{_rel(knob.file)}:{knob.line}")
    out.print(k)
    out.print(f"{len(m.api_calls)} AscendC API calls, {sum(c.in_loop for c in m.api_calls)} of them in tile loops")


# ---- lint ----------------------------------------------------------------------------------------------------
def finding_json(f: Finding, verdicts: dict | None = None) -> dict:
    d = f.model_dump(mode="json")
    d["file"] = _rel(f.file)
    for fix, raw in zip(f.fixes, d["fixes"], strict=True):
        for e in raw["edits"]:
            e["file"] = _rel(e["file"])
        verdict = (verdicts or {}).get((id(f), fix.title))
        if verdict is not None:
            raw["verified"] = {
                "correct": verdict.correct,
                "checked": verdict.checked,
                "speedup": verdict.speedup,
                "message": verdict.message(),
            }
    return d


def cmd_lint(args: argparse.Namespace) -> int:
    try:
        chip = load_chip(args.chip)
    except TilewiseError as exc:
        err.print(f"error: {exc.one_line()}", markup=False)
        return 2
    findings: list[Finding] = []
    verdicts: dict[tuple[int, str], FixVerdict] = {}  # (id of finding, fix title) -> its verdict, with --verify
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
            facts = _lint_facts(args, op) if args.cases else None
            found = [f for f in lint(op, chip, facts=facts) if only is None or f.file == only]
            if args.verify:
                verdicts.update(_verify_fixes(args, op, found))
            findings.extend(found)
    if args.format == "json":
        print(json.dumps([finding_json(f, verdicts) for f in findings], indent=2))
    else:
        for f in findings:
            colour = {"error": "red", "warning": "yellow"}.get(f.severity, "cyan")
            out.print(
                f"{_rel(f.file)}:{f.line}:{f.col}: [{colour}]{f.severity}[/{colour}]: "
                f"{_escape(f.message)} [dim]\\[{f.rule}][/dim]"
            )
            for fix in f.fixes:
                verdict = verdicts.get((id(f), fix.title))
                kind = (
                    "fix"
                    if fix.safe
                    else "fix (verify on the emulator: --verify)"
                    if verdict is None
                    else "fix (verified)"
                    if verdict.correct
                    else "fix (BREAKS)"
                )
                out.print(f"    {kind}: {_escape(fix.title)}")
                if verdict is not None:
                    out.print(f"      {_escape(verdict.message())}")
        counts = {s: sum(f.severity == s for f in findings) for s in ("error", "warning", "info")}
        out.print(
            f"{len(findings)} findings: {counts['error']} errors, {counts['warning']} warnings, {counts['info']} notes"
        )
    return 1 if failed or any(f.severity == "error" for f in findings) else 0


def _lint_facts(args: argparse.Namespace, op):
    """--cases: run the manifest's cases once each for the facts rules prove premises with (device/facts.py). A
    case that fails costs only its facts, said in one line; without cases lint stays static."""
    from device.emulator import EmulatorDevice
    from device.facts import case_facts

    cases = list(op.manifest.cases) if op.manifest else []
    if not cases:
        err.print(f"{_rel(op.model.root)}: no manifest cases to run: lint reads the sources only", markup=False)
        return None
    problems: list[str] = []
    facts = case_facts(EmulatorDevice(chip=args.chip), op, cases, problems)
    for line in problems:
        err.print(f"{_rel(op.model.root)}: {line}; lint goes on without it", markup=False)
    return facts


def _verify_fixes(args: argparse.Namespace, op, findings: list[Finding]) -> dict[tuple[int, str], object]:
    """--verify: try every fix a rule could not prove safe on the manifest's cases (search/verify_fix.py)."""
    from device.emulator import EmulatorDevice
    from search.verify_fix import verify_fix

    todo = [(f, fix) for f in findings for fix in f.fixes if not fix.safe]
    if not todo:
        return {}
    cases = list(op.manifest.cases) if op.manifest else []
    device = EmulatorDevice(chip=args.chip)
    return {(id(f), fix.title): verify_fix(op, fix, device, cases) for f, fix in todo}


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


# ---- run ----------------------------------------------------------------------------------------------------
def _device(args: argparse.Namespace):
    """The --device the command names (the emulator today); an unknown name is a one-line error naming the flag."""
    from device.registry import make_device

    try:
        return make_device(args.device, chip=args.chip, timeout_s=args.timeout)
    except ValueError as exc:
        raise TilewiseError("--device", 0, str(exc)) from None


def cmd_run(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from server.cases import build_case, input_arrays, load_arrays

    try:
        device = _device(args)
        op = load_operator(args.path)
        for p in op.problems:
            err.print(_problem_line(p), markup=False)
        arrays = load_arrays(args.input)
        case = build_case(op, args, arrays)
        trace = str(Path(args.trace).resolve()) if args.trace else None
        m = device.run(op, case, seed=args.seed, golden=args.golden, inputs=input_arrays(arrays), trace_path=trace)
    except TilewiseError as exc:
        err.print(f"error: {exc.one_line()}", markup=False)
        return 2
    except ValidationError as exc:
        first = exc.errors()[0]
        err.print(f"error: {'.'.join(map(str, first['loc']))}: {first['msg']}", markup=False)
        return 2
    data = m.model_dump(mode="json")
    if m.error and m.error.file:
        data["error"]["file"] = _rel(m.error.file)
    for w in data.get("warnings", []):
        if w["file"]:
            w["file"] = _rel(w["file"])
    if args.format == "json":
        print(json.dumps(data, indent=2))
    else:
        _print_run(op, m)
    return 0 if m.ok and m.correct is not False else 1


def _print_run(op: Operator, m) -> None:
    status = "[green]ok[/green]" if m.ok and m.correct is not False else "[red]failed[/red]"
    out.print(
        f"{op.model.operator} case {m.case}: {status}  (blockDim {m.block_dim}, tiling key {m.tiling_key}, "
        f"compile {m.compile_s:.2f} s{' cached' if m.cached_build else ''}, run {m.run_s:.2f} s)"
    )
    if m.error:
        where = (
            f"{_rel(m.error.file)}:{m.error.line}: "
            if m.error.file and m.error.line
            else (f"{_rel(m.error.file)}: " if m.error.file else "")
        )
        out.print(f"{where}[red]error[/red] [{m.error.kind}]: {_escape(m.error.message)}")
    for w in m.warnings:  # the device went on, so the run did; the output check below decides
        where = f"{_rel(w.file)}:{w.line}: " if w.file and w.line else ""
        times = f" ({w.count} times)" if w.count > 1 else ""
        out.print(f"{where}[yellow]warning[/yellow] {_escape(f'[{w.kind}]')}: {_escape(w.message)}{times}")
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
        out.print(t)
    if m.trace_path:
        out.print(f"pipeline trace: {_rel(m.trace_path)} (open it in Perfetto or chrome://tracing)")
    for o in m.outputs:
        verdict = "matches the golden" if o.ok else f"{o.mismatches} mismatches"
        errs = f"max abs err {o.max_abs_err:.3g}, max rel err {o.max_rel_err:.3g}" if o.max_abs_err is not None else ""
        shown = verdict if m.correct is not None else "no golden"
        out.print(f"  output {o.name} {o.dtype}{o.shape}: {shown} {errs}")


# ---- tune ----------------------------------------------------------------------------------------------------
def cmd_tune(args: argparse.Namespace) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from search.cache import ResultsCache, default_results_path
    from search.tuner import Tuner
    from server.cases import build_case, input_arrays, load_arrays

    try:
        device = _device(args)
        op = load_operator(args.path)
        for p in op.problems:
            err.print(_problem_line(p), markup=False)
        arrays = load_arrays(args.input)
        if op.manifest and op.manifest.cases and not (args.shape or args.dtype or args.attr or arrays):
            cases = [op.manifest.case(name) for name in args.case] if args.case else list(op.manifest.cases)
        else:  # the flags describe one case: tune that one
            if args.case and len(args.case) > 1:
                raise TilewiseError(
                    "--case",
                    0,
                    "give one --case with --shape/--dtype/--attr/--input (they describe "
                    "one case), or drop those flags to tune several cases",
                )
            args.case = args.case[0] if args.case else None
            cases = [build_case(op, args, arrays)]
        cache = None if args.no_cache else ResultsCache(default_results_path())
        tuner = Tuner(
            op,
            device,
            cases,
            strategy=args.strategy,
            budget=args.budget,
            seed=args.seed,
            cache=cache,
            workers=args.workers,
            inputs=input_arrays(arrays),
        )
    except (TilewiseError, ValueError) as exc:
        err.print(f"error: {exc.one_line() if isinstance(exc, TilewiseError) else exc}", markup=False)
        return 2
    if args.golden:
        err.print("note: --golden applies to `tilewise run`; tune uses the manifest's golden or the shipped outputs")
    space = tuner.space
    if args.format == "text":
        out.print(
            f"tuning {op.model.operator}: {len(space.knobs)} knobs "
            f"({', '.join(f'{k.name} in {k.domain}' for k in space.knobs) or 'none'}), "
            f"{space.size():,} configurations, budget {args.budget}, strategy {args.strategy}, "
            f"cases {', '.join(c.name for c in cases)}"
        )
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
                if ev.best_us is not None and ev.baseline_us:
                    progress.update(task, description=f"best {ev.best_us:.2f} µs ({ev.baseline_us / ev.best_us:.2f}x)")
                progress.update(task, completed=min(ev.evaluations, args.budget))
                if ev.trial is not None and args.format == "text" and args.verbose:
                    t = ev.trial
                    status = f"{t.time_us:.2f} µs" if t.ok else f"failed: {t.error}"
                    err.print(f"  #{t.index} {t.config}: {status}{' (cached)' if t.cached else ''}", markup=False)
    except KeyboardInterrupt:
        tuner.stop()
        err.print("interrupted: stopping after the measurements in flight; every result is kept")
    result = tuner.result()
    applied = None
    if args.apply and result.best and result.best != result.baseline:
        applied = _apply_best(op, tuner, result, device)
    if args.format == "json":
        data = result.model_dump(mode="json")
        data["applied"] = applied
        print(json.dumps(data, indent=2))
    else:
        _print_tune(result, applied)
    if cache:
        cache.close()
    return 0 if result.best is not None else 1


def _apply_best(op: Operator, tuner, result, device) -> dict:
    """Rewrite the knob literals in the sources, then prove the operator still builds and passes."""
    from analysis.findings import Fix
    from analysis.operator import load_operator as reload
    from analysis.rewrite import apply_fix, changed_knobs, tuned_edits

    edits = tuned_edits(op.model, op.sources, result.best)
    apply_fix(Fix(title="apply tuned tiling", edits=edits), write=True)
    fresh = reload(op.project.root)
    failures = []
    for case in tuner.cases:
        m = device.run(fresh, case, seed=tuner.data_seed, inputs=tuner.inputs)
        if not m.ok or m.correct is False:
            failures.append(f"{case.name}: {m.error.message if m.error else 'wrong output'}")
    return {
        "files": sorted({e.file for e in edits}),
        "edits": len(changed_knobs(op.model, result.best)),
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
    out.print(
        f"{result.evaluations} evaluations ({result.cached} from the cache), {len(result.failed)} failed"
        + (", stopped early" if result.stopped else "")
    )
    for t in result.failed[:5]:
        out.print(f"  failed {t.config}: {_escape(t.error or '')}")
    if applied:
        verdict = "[green]still builds and passes[/green]" if applied["verified"] else "[red]FAILS[/red]"
        out.print(f"applied to {', '.join(_rel(f) for f in applied['files'])}: {verdict}")


# ---- serve ---------------------------------------------------------------------------------------------------
def cmd_serve(args: argparse.Namespace) -> int:
    import logging

    from server.lsp.server import create_server

    if args.stdio and args.ws is not None:
        err.print("error: --stdio and --ws: pick one transport; pass --stdio (the default) or --ws PORT", markup=False)
        return 2
    transport = "ws" if args.ws is not None else "stdio"
    # TILEWISE_LOG_FILE: the server's log at INFO in a file, for an editor that does not show the server's stderr
    log_file = os.environ.get("TILEWISE_LOG_FILE")
    logging.basicConfig(
        level=logging.INFO if args.verbose or log_file else logging.WARNING,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        **({"filename": log_file} if log_file else {"stream": sys.stderr}),
    )
    server = create_server()
    # Garbage collection: the server collects after publishing each analysis, off the latency path (see
    # TilewiseServer.collect_garbage). Automatic collections stay on as a safety net, rarely, and never rescan what
    # startup loaded.
    import gc

    gc.freeze()
    gc.set_threshold(200_000, 20, 50)
    if transport == "ws":
        server.start_ws("127.0.0.1", args.ws)
    else:
        server.start_io()
    return 0


# ---- entry point ---------------------------------------------------------------------------------------------
def _case_flags(p: argparse.ArgumentParser, note: str = "") -> None:
    """--shape/--dtype/--attr/--input, shared by run and tune. A list (DYNAMIC) input's tensors are `x[0]`, `x[1]`."""
    p.add_argument(
        "--shape",
        action="append",
        metavar="IN=D0,D1,...",
        help=f"input shape; x[0]=... for a tensor of a list input (repeatable){note}",
    )
    p.add_argument(
        "--dtype",
        action="append",
        metavar="IN=DTYPE",
        help="input dtype, e.g. x=float16 (every tensor of a list x) or x[1]=float32 (repeatable)",
    )
    p.add_argument("--attr", action="append", metavar="NAME=VALUE", help="attribute value (repeatable)")
    p.add_argument(
        "--input",
        action="append",
        metavar="IN=FILE.npy",
        help="input data from a .npy file, e.g. x=a.npy or x[0]=a.npy (repeatable)",
    )


def installed_version() -> str | None:
    """The version of the installed tilewise distribution, None when there is none (the modules imported from a
    bare checkout). Editors check it to tell tilewise from another package that happens to be called `server`."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tilewise")
    except PackageNotFoundError:
        return None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tilewise", description="Language server, emulator and tiling optimiser for AscendC operators."
    )
    found = installed_version()
    parser.add_argument(
        "--version",
        action="version",
        version=f"tilewise {found}" if found else "tilewise: not installed (pip install -e <the tilewise checkout>)",
        help="print the installed tilewise version (`tilewise X.Y.Z`) and exit",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("inspect", help="print the operator model of the operator containing PATH")
    p.add_argument("path")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_inspect)

    p = sub.add_parser("lint", help="report performance and correctness problems; exit 1 on errors")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--chip", default=None, help=f"chip name ({', '.join(builtin_chips())}) or a JSON file")
    p.add_argument(
        "--verify",
        action="store_true",
        help="try each fix a rule could not prove safe on the manifest's cases and say whether it held",
    )
    p.add_argument(
        "--cases",
        action="store_true",
        help="run the manifest's cases on the emulator first, so rules check sizes the host decides",
    )
    p.set_defaults(func=cmd_lint)

    p = sub.add_parser("run", help="build and run the operator on the emulator and check it against its golden")
    p.add_argument("path", metavar="OPDIR")
    p.add_argument("--case", help="manifest case to run (default: the first)")
    _case_flags(p)
    p.add_argument("--golden", metavar="FILE.py:FN", help="numpy golden (default: the manifest's)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="emulator", help=f"device to run on: {', '.join(DEVICES)}")
    p.add_argument("--chip", default=None, help=f"chip name ({', '.join(builtin_chips())}) or a JSON file")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds before the run is killed")
    p.add_argument("--trace", metavar="OUT.json", help="write a Chrome trace-event pipeline trace (Perfetto)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_run)

    from search.strategies import STRATEGIES

    p = sub.add_parser("tune", help="search the host tiling's knobs for the fastest correct configuration")
    p.add_argument("path", metavar="OPDIR")
    p.add_argument("--budget", type=int, default=32, help="configurations to measure, the shipped one included")
    p.add_argument("--strategy", choices=sorted(STRATEGIES), default="evo")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="emulator", help=f"device to measure on: {', '.join(DEVICES)}")
    p.add_argument("--chip", default=None, help=f"chip name ({', '.join(builtin_chips())}) or a JSON file")
    p.add_argument("--case", action="append", help="manifest case (repeatable; default: all)")
    _case_flags(p, " (with any of these, tune that one case)")
    p.add_argument("--golden", metavar="FILE.py:FN")
    p.add_argument("--workers", type=int, default=2, help="evaluations in parallel")
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--apply", action="store_true", help="rewrite the knob literals to the best configuration")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the persistent results cache")
    p.add_argument("--verbose", "-v", action="store_true", help="print every trial")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_tune)

    p = sub.add_parser("serve", help="run the language server (LSP over stdio, or websockets with --ws)")
    p.add_argument("--ws", type=int, metavar="PORT", help="serve websockets on 127.0.0.1:PORT instead of stdio")
    p.add_argument("--stdio", action="store_true", help="LSP over stdio (the default; editors pass it)")
    p.add_argument("--verbose", "-v", action="store_true")
    p.set_defaults(func=cmd_serve)
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
