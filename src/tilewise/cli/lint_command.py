"""`tilewise lint`: findings as text or JSON, optionally with the facts of case runs (--cases) and each unproven
fix tried on the emulator (--verify)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from tilewise.analysis.chip import load_chip
from tilewise.analysis.errors import TilewiseError
from tilewise.analysis.findings import Finding
from tilewise.analysis.lint import lint
from tilewise.analysis.operator import load_operator
from tilewise.analysis.project import discover
from tilewise.cli.common import err, escape, out, problem_line, rel

if TYPE_CHECKING:
    from tilewise.search.verify_fix import FixVerdict


def finding_json(f: Finding, verdicts: dict | None = None) -> dict:
    d = f.model_dump(mode="json")
    d["file"] = rel(f.file)
    for fix, raw in zip(f.fixes, d["fixes"], strict=True):
        for e in raw["edits"]:
            e["file"] = rel(e["file"])
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
                    err.print(problem_line(p), markup=False)
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
                f"{rel(f.file)}:{f.line}:{f.col}: [{colour}]{f.severity}[/{colour}]: "
                f"{escape(f.message)} [dim]\\[{f.rule}][/dim]"
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
                out.print(f"    {kind}: {escape(fix.title)}")
                if verdict is not None:
                    out.print(f"      {escape(verdict.message())}")
        counts = {s: sum(f.severity == s for f in findings) for s in ("error", "warning", "info")}
        out.print(
            f"{len(findings)} findings: {counts['error']} errors, {counts['warning']} warnings, {counts['info']} notes"
        )
    return 1 if failed or any(f.severity == "error" for f in findings) else 0


def _lint_facts(args: argparse.Namespace, op):
    """--cases: run the manifest's cases once each for the facts rules prove premises with (device/facts.py). A
    case that fails costs only its facts, said in one line; without cases lint stays static."""
    from tilewise.device.facts import case_facts
    from tilewise.device.registry import make_device

    cases = list(op.manifest.cases) if op.manifest else []
    if not cases:
        err.print(f"{rel(op.model.root)}: no manifest cases to run: lint reads the sources only", markup=False)
        return None
    problems: list[str] = []
    facts = case_facts(make_device("emulator", chip=args.chip), op, cases, problems)
    for line in problems:
        err.print(f"{rel(op.model.root)}: {line}; lint goes on without it", markup=False)
    return facts


def _verify_fixes(args: argparse.Namespace, op, findings: list[Finding]) -> dict[tuple[int, str], FixVerdict]:
    """--verify: try every fix a rule could not prove safe on the manifest's cases (search/verify_fix.py)."""
    from tilewise.analysis.model_error import kinds_of_rule
    from tilewise.device.registry import make_device
    from tilewise.search.verify_fix import verify_fix

    todo = [(f, fix) for f in findings for fix in f.fixes if not fix.safe]
    if not todo:
        return {}
    cases = list(op.manifest.cases) if op.manifest else []
    device = make_device("emulator", chip=args.chip)
    return {(id(f), fix.title): verify_fix(op, fix, device, cases, kinds=kinds_of_rule(f.rule)) for f, fix in todo}
