"""`tilewise bank mine|list|show`: grow the experience bank by rewinding operators on the device, and browse it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from tilewise.analysis.errors import TilewiseError
from tilewise.cli.common import device_from_args, err, escape, out, problem_line, rel
from tilewise.cli.examples_command import examples_root


def example_operators() -> list[Path]:
    """The project's own fast examples (the wheel's copy or the checkout's examples/, as `tilewise examples` finds
    them): every folder with a manifest that does not name a fast twin. Raises TilewiseError when there are none."""
    from tilewise.analysis.manifest import load_manifest

    found = []
    for manifest in sorted(examples_root().glob("*/tilewise.toml")):
        try:
            m = load_manifest(manifest)
        except TilewiseError:
            continue
        if m.operator is None or not m.operator.twin:
            found.append(manifest.parent)
    return found


def _bank_path(args: argparse.Namespace) -> Path:
    from tilewise.search.bank.store import user_bank_path

    return (
        Path(args.out if getattr(args, "out", None) else args.bank)
        if (getattr(args, "out", None) or getattr(args, "bank", None))
        else user_bank_path()
    )


def cmd_bank_mine(args: argparse.Namespace) -> int:
    from tilewise.analysis.motifs import MOTIFS
    from tilewise.analysis.operator import load_operator
    from tilewise.search.bank.mine import mine_operator
    from tilewise.search.bank.store import save_bank
    from tilewise.search.cache import ResultsCache, default_results_path

    unknown = [m for m in args.motif or [] if m not in MOTIFS]
    if unknown:
        err.print(f"error: --motif: unknown motif '{unknown[0]}'; motifs are: {', '.join(MOTIFS)}", markup=False)
        return 2
    try:
        device = device_from_args(args)
    except TilewiseError as exc:
        err.print(f"error: {exc.one_line()}", markup=False)
        return 2
    try:
        dirs = [Path(p) for p in args.paths] if args.paths else example_operators()
    except TilewiseError as exc:
        err.print(f"error: {exc.one_line()}", markup=False)
        return 2
    cache = None if args.no_cache else ResultsCache(default_results_path())
    trajectories = []
    reports = []
    for d in dirs:
        try:
            op = load_operator(d)
        except TilewiseError as exc:
            err.print(f"{exc.one_line()} (skipped)", markup=False)
            continue
        for p in op.problems:
            err.print(problem_line(p), markup=False)
        source = _source_label(d)
        report = mine_operator(
            op,
            device,
            motifs=args.motif,
            cache=cache,
            source=source,
            progress=(lambda line: err.print(f"  {line}", markup=False)) if args.verbose else None,
        )
        reports.append(report)
        trajectories.extend(report.trajectories)
        if args.format == "text":
            _print_report(report)
    path = _bank_path(args)
    total = save_bank(path, trajectories, device=device.name, chip=device.chip.name, replace=args.replace)
    if args.format == "json":
        print(
            json.dumps(
                {
                    "bank": str(path),
                    "trajectories": [t.model_dump(mode="json") for t in trajectories],
                    "rejected": [
                        {"operator": r.operator, "motif": x.motif, "change": x.description, "reason": x.reason}
                        for r in reports
                        for x in r.rejected
                    ],
                    "skipped": {r.source: r.skipped for r in reports if r.skipped},
                },
                indent=2,
            )
        )
    else:
        out.print(f"{len(trajectories)} trajectories recorded; {rel(str(path))} holds {total}")
    return 0


def _source_label(d: Path) -> str:
    """examples/<name> for the project's own examples (so the shipped bank reads the same on every machine),
    else the folder as given."""
    resolved = d.resolve()
    try:
        shipped = examples_root()
    except TilewiseError:
        return str(d)
    if resolved.parent == shipped:
        return f"examples/{resolved.name}"
    return str(d)


def _print_report(report) -> None:
    if report.skipped:
        out.print(f"{report.source}: skipped: {escape(report.skipped)}")
        return
    out.print(f"[bold]{report.source}[/bold] ({report.operator}, {report.runs} runs)")
    for t in report.trajectories:
        out.print(f"  kept     {t.motif:<18} {escape(t.description)}: {t.speedup:.2f}x slower without it")
    for x in report.rejected:
        out.print(f"  rejected {x.motif:<18} {escape(x.description)}: {escape(x.reason)}")


USER_EDITS = ("Your own edits that made a kernel faster", "-")  # (title, removes) of a motif no detector has


def _read(args: argparse.Namespace):
    """The bank `--bank` names, or the shipped and the user's merged; None (the error printed) when it cannot be
    read. A problem with one of the merged banks is printed and the other still counts."""
    from tilewise.search.bank.store import load_bank, load_banks

    try:
        bank, problems = (load_bank(Path(args.bank), missing_ok=False), []) if args.bank else load_banks()
    except TilewiseError as exc:
        err.print(f"error: {exc.one_line()}", markup=False)
        return None
    for p in problems:
        err.print(p, markup=False)
    return bank


def _described(motif_id: str) -> tuple[str, str]:
    """(title, what it removes) of a registered motif, or of the user's own edits."""
    from tilewise.analysis.motifs import MOTIFS

    motif = MOTIFS.get(motif_id)
    return (motif.title, motif.removes) if motif is not None else USER_EDITS


def cmd_bank_list(args: argparse.Namespace) -> int:
    from tilewise.analysis.motifs import MOTIFS
    from tilewise.search.bank.store import evidence

    bank = _read(args)
    if bank is None:
        return 2
    evs = evidence(bank)
    rows: list[dict[str, Any]] = []
    # the registry's motifs, then what only the user's wins taught (user-edit: no detector, a diff to read)
    for motif_id in list(MOTIFS) + sorted(set(evs) - set(MOTIFS)):
        title, removes = _described(motif_id)
        ev = evs.get(motif_id)
        rows.append(
            {
                "motif": motif_id,
                "title": title,
                "removes": removes,
                "trajectories": ev.count if ev else 0,
                "median_speedup": round(ev.median, 3) if ev else None,
                "range": [round(ev.low, 3), round(ev.high, 3)] if ev else None,
                "bottlenecks": dict(ev.bottlenecks) if ev else {},
            }
        )
    if args.format == "json":
        print(json.dumps({"motifs": rows}, indent=2))
        return 0
    from rich.table import Table

    t = Table("motif", "what it does", "trajectories", "median", "range", "bottlenecks", box=None, pad_edge=False)
    for r in rows:
        span = f"{r['range'][0]:.2f}x-{r['range'][1]:.2f}x" if r["range"] else "-"
        med = f"{r['median_speedup']:.2f}x" if r["median_speedup"] else "-"
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(r["bottlenecks"].items())) or "-"
        t.add_row(r["motif"], r["title"], str(r["trajectories"]), med, span, kinds)
    out.print(t)
    return 0


def cmd_bank_show(args: argparse.Namespace) -> int:
    from tilewise.analysis.motifs import MOTIFS
    from tilewise.search.bank.store import evidence

    bank = _read(args)
    if bank is None:
        return 2
    evs = evidence(bank)
    if args.motif not in MOTIFS and args.motif not in evs:
        known = list(MOTIFS) + sorted(set(evs) - set(MOTIFS))
        err.print(f"error: unknown motif '{args.motif}'; motifs are: {', '.join(known)}", markup=False)
        return 2
    title, removes = _described(args.motif)
    ev = evs.get(args.motif)
    example = ev.best_example() if ev else None
    if args.format == "json":
        data = {
            "motif": args.motif,
            "title": title,
            "removes": removes,
            "trajectories": [t.model_dump(mode="json") for t in (ev.trajectories if ev else [])],
            "median_speedup": round(ev.median, 3) if ev else None,
            "example": example.model_dump(mode="json") if example else None,
        }
        print(json.dumps(data, indent=2))
        return 0
    out.print(f"[bold]{args.motif}[/bold]: {escape(title)}")
    out.print(f"removes: {escape(removes)}")
    if not ev:
        out.print("evidence: none yet (mine some with `tilewise bank mine`)")
        return 0
    out.print(f"evidence: {ev.summary()}")
    out.print("bottlenecks: " + ", ".join(f"{k} {v}" for k, v in sorted(ev.bottlenecks.items())))
    for t in sorted(ev.trajectories, key=lambda t: -t.speedup):
        out.print(f"  {t.speedup:.2f}x  {t.source} ({t.operator}): {escape(t.description)} {escape(f'[{t.origin}]')}")
    if example is not None:
        out.print(f"\nexample ({example.source}, {example.speedup:.2f}x), slow -> fast:")
        out.print(escape(example.diff.rstrip()), markup=False)
    return 0
