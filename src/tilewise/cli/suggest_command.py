"""`tilewise suggest`: the motifs that fit the operator, ranked by their evidence, verified on request."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tilewise.analysis.errors import TilewiseError
from tilewise.cli.common import err, escape, out, rel, session_from_args


def cmd_suggest(args: argparse.Namespace) -> int:
    from tilewise.search.bank.store import load_bank, load_banks
    from tilewise.search.bank.suggest import suggest

    try:
        session = session_from_args(args)
        device, op, cases = session.device, session.op, session.cases
        if args.bank:
            bank, problems = load_bank(Path(args.bank), missing_ok=False), list[str]()
        else:
            bank, problems = load_banks()
    except (TilewiseError, ValueError) as exc:
        err.print(f"error: {exc.one_line() if isinstance(exc, TilewiseError) else exc}", markup=False)
        return 2
    for p in problems:
        err.print(p, markup=False)
    progress = None
    if args.verify and args.format == "text":

        def progress(s) -> None:
            err.print(f"verified {s.motif}: {s.verified.message if s.verified else '-'}", markup=False)

    result = suggest(
        op,
        device,
        bank,
        cases,
        top=args.top,
        verify=args.verify,
        seed=args.seed,
        golden=args.golden,
        on_verified=progress,
    )
    for line in result.problems:
        err.print(f"{rel(str(op.project.root))}: {line}", markup=False)
    if args.format == "json":
        print(json.dumps(_json(result), indent=2))
    else:
        _print(result)
    return 0 if not result.problems else 1


def _json(result) -> dict:
    from tilewise.search.bank.suggest import suggestion_json

    prof = result.profile
    return {
        "operator": result.operator,
        "profile": {
            "time_us": prof.time_us if prof else None,
            "bottleneck": prof.bottleneck if prof else None,
            "pipes": prof.pipes if prof else {},
            "cases": [
                {"case": c.name, "ok": m.ok, "correct": m.correct, "time_us": m.time_us, "bottleneck": m.bottleneck}
                for c, m in result.runs
            ],
        },
        "suggestions": [suggestion_json(s, rel) for s in result.suggestions],
    }


def _print(result) -> None:
    prof = result.profile
    if prof is not None:
        pipes = ", ".join(f"{k} {v:.2f}" for k, v in prof.pipes.items())
        out.print(
            f"{result.operator}: {prof.time_us:.2f} µs over {len(result.runs)} case(s), bound by "
            f"{(prof.bottleneck or '?').upper()} ({pipes})"
        )
    if not result.suggestions:
        out.print("no motif fits: none of the slow patterns the bank knows is in this kernel")
        return
    for i, s in enumerate(result.suggestions, 1):
        gain = f"expected {s.expected_speedup:.2f}x" if s.expected_speedup else "no evidence yet"
        out.print(f"\n{i}. [bold]{escape(s.title)}[/bold] ({s.motif}, {gain})")
        for site in s.sites[:3]:
            out.print(f"   at {rel(site.file)}:{site.line}")
        out.print(f"   why: {escape(s.why)}")
        if s.edits is None:
            out.print("   edits: none deterministic (a rewrite by hand or by `tilewise rewrite`)")
        else:
            for e in s.edits:
                new = e.new_text.strip().splitlines()[0] if e.new_text.strip() else "(delete)"
                out.print(f"   edit {rel(e.file)}:{e.line}:{e.col}: {escape(new[:80])}")
        if s.verified is not None:
            v = s.verified
            out.print(f"   verified: {escape(v.message)}")
