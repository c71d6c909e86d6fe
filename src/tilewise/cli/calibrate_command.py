"""`tilewise calibrate`: fit the chip file's constants to a device and write a chip file for that machine.

The command times a fixed set of micro-kernels on the device and on the emulator (search/calibrate/), fits the
constants they pin, writes the calibrated chip file atomically, and prints per micro-kernel the device's time and
the model's before and after, then each constant before and after and the ones left as they were.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.table import Table

from tilewise.analysis.chip import builtin_chips, load_chip
from tilewise.analysis.errors import TilewiseError
from tilewise.cli.common import device_from_args, err, escape, out, rel
from tilewise.device.protocol import Device
from tilewise.device.registry import DEVICES


def add_calibrate_parser(sub: argparse._SubParsersAction) -> None:
    from tilewise.search.calibrate import DEFAULT_CLASSES, VECTOR_CLASSES

    p = sub.add_parser(
        "calibrate",
        help="time micro-kernels on a device, fit the chip file's constants to them, write a chip file",
    )
    p.add_argument("--device", default="emulator", help=f"device to calibrate: {', '.join(DEVICES)}")
    p.add_argument(
        "--chip", default=None, help=f"the chip file to start from ({', '.join(builtin_chips())} or a JSON file)"
    )
    p.add_argument("--out", required=True, metavar="CHIP.json", help="where to write the calibrated chip file")
    p.add_argument("--name", help="the calibrated chip's name (default: <base chip>-calibrated-<host>)")
    p.add_argument(
        "--device-chip",
        metavar="CHIP",
        help="with --device emulator: the chip the emulator runs as the device, a stand-in for hardware whose "
        "constants are known (to check that the fit recovers them)",
    )
    p.add_argument(
        "--classes",
        metavar="OP,OP,...",
        help=f"vector instruction classes to time (default {','.join(DEFAULT_CLASSES)}; any of "
        f"{','.join(VECTOR_CLASSES)})",
    )
    p.add_argument(
        "--dtypes",
        default="float16,float32",
        metavar="DT,DT",
        help="the vector table columns to calibrate: float16, float32 or both (default both)",
    )
    p.add_argument("--repeat", type=int, default=1, help="runs per micro-kernel on the device; the median counts")
    p.add_argument("--workers", type=int, default=2, help="runs in parallel")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds before a run is killed")
    p.add_argument("--workdir", metavar="DIR", help="where to write the micro-kernels (default: in the cache)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_calibrate)


def cmd_calibrate(args: argparse.Namespace) -> int:
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from tilewise.search.calibrate import (
        DEFAULT_CLASSES,
        VECTOR_CLASSES,
        CalibrationError,
        calibrate,
        calibration_json,
        check_writable,
        write_chip,
    )

    try:
        classes = _listed(args.classes, "--classes", VECTOR_CLASSES) if args.classes else DEFAULT_CLASSES
        dtypes = _listed(args.dtypes, "--dtypes", ("float16", "float32"))
        base = load_chip(args.chip)
        device = _device(args)
        if problem := check_writable(Path(args.out)):
            raise TilewiseError("--out", 0, problem)
    except TilewiseError as exc:
        err.print(f"error: {exc.one_line()}", markup=False)
        return 2
    progress = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=args.format == "json" or not err.is_terminal,
    )
    phase = ["starting"]

    def report(what: str, runs: int) -> None:
        if what:
            phase[0] = what
        progress.update(task, description=f"{phase[0]} ({runs} runs)")

    try:
        with progress:
            task = progress.add_task("starting", total=None)
            cal = calibrate(
                device,
                base,
                classes=classes,
                dtypes=dtypes,
                workdir=Path(args.workdir) if args.workdir else None,
                workers=args.workers,
                repeats=args.repeat,
                progress=report,
                name=args.name,
            )
    except CalibrationError as exc:
        err.print(f"error: {exc}", markup=False)
        return 1
    try:
        write_chip(cal.chip, Path(args.out))
    except OSError as exc:
        err.print(f"error: --out: cannot write {args.out} ({exc.strerror}); give a path you can write", markup=False)
        return 2
    if args.format == "json":
        print(json.dumps(calibration_json(cal, args.out), indent=2))
    else:
        print_calibration(cal, args.out)
    failed = [r for r in cal.rows if r.note]
    return 1 if failed and len(failed) == len(cal.rows) else 0


def _listed(text: str, flag: str, allowed) -> tuple[str, ...]:
    """A comma-separated flag's values, each one of `allowed`; a TilewiseError naming the flag otherwise."""
    values = tuple(v.strip() for v in text.split(",") if v.strip())
    unknown = [v for v in values if v not in allowed]
    if unknown or not values:
        given = ", ".join(unknown) or "(none)"
        raise TilewiseError(flag, 0, f"unknown value {given}; use some of {', '.join(allowed)}")
    return values


def _device(args: argparse.Namespace) -> Device:
    """The device to calibrate: `--device`, on the base chip; with `--device-chip`, the emulator on that chip."""
    if args.device_chip is None:
        return device_from_args(args)
    if args.device != "emulator":
        raise TilewiseError("--device-chip", 0, "only the emulator stands in for a device; drop --device-chip")
    from tilewise.device.registry import make_device

    return make_device("emulator", chip=load_chip(args.device_chip), timeout_s=args.timeout)


def print_calibration(cal, out_path: str) -> None:
    t = Table("micro-kernel", "device µs", "model µs", "error", "after µs", "error", box=None, pad_edge=False)
    for r in cal.rows:
        if r.note:
            t.add_row(escape(r.name), "-", "-", "-", "-", f"[yellow]{escape(r.note)}[/yellow]")
            continue
        t.add_row(
            escape(r.name),
            _us(r.device_us),
            _us(r.before_us),
            _pct(r.error_before),
            _us(r.after_us),
            _pct(r.error_after),
        )
    out.print(t)
    c = Table("constant", "before", "after", "change", "micro-kernels", box=None, pad_edge=False)
    for ch in cal.constants:
        if not ch.fitted:
            continue
        change = f"{(ch.after - ch.before) / ch.before:+.1%}" if ch.before else f"{ch.after - ch.before:+.3g}"
        c.add_row(escape(ch.key), f"{ch.before:.4g} {ch.unit}", f"{ch.after:.4g} {ch.unit}", change, str(ch.kernels))
    out.print()
    out.print(c)
    left = [f"{ch.key} ({ch.why})" for ch in cal.constants if not ch.fitted]
    if left:
        out.print(f"left as they were, not pinned: {escape('; '.join(left))}")
    out.print(f"not calibrated by these micro-kernels: {escape(', '.join(cal.kept))}")
    before, after = cal.typical_before, cal.typical_after
    if before and after:
        out.print(
            f"typical model error {before:.3f}x -> {after:.3f}x (exp mean |ln(model/device)|) over "
            f"{sum(1 for r in cal.rows if not r.note)} micro-kernels; {cal.runs} runs in {cal.seconds:.0f} s"
        )
    out.print(f"wrote {rel(out_path)} (chip {escape(cal.chip['name'])}); use it with --chip {rel(out_path)}")


def _us(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:+.1%}"
