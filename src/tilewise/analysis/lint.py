"""Run the lint rules over an operator. A rule that fails is logged and skipped; the others still report."""

from __future__ import annotations

import logging

from tilewise.analysis.chip import Chip, load_chip
from tilewise.analysis.findings import Finding
from tilewise.analysis.observed import CaseFacts
from tilewise.analysis.operator import Operator
from tilewise.analysis.rules import ALL_RULES, RuleContext
from tilewise.analysis.rules._build_scope import outside_build

log = logging.getLogger(__name__)


def lint(
    op: Operator,
    chip: Chip | None = None,
    rules=None,
    context: RuleContext | None = None,
    facts: list[CaseFacts] | None = None,
) -> list[Finding]:
    """`context` lets a caller keep the rules' view (data flow, tensor types) for later questions, e.g. hovers.
    `facts`: what runs of the operator's cases showed (see analysis/observed.py); rules prove premises with them."""
    ctx = context or RuleContext(op.model, op.sources, chip or load_chip(), facts)
    findings: list[Finding] = []
    for loc in op.model.syntax_errors:
        sf = op.sources.get(loc.file)
        # (a span of blanks only has no first line: the LSP fuzzer found one, benchmarks/fuzz_lsp.py)
        text = sf.slice(loc.start, loc.end).strip() if sf and loc.end > loc.start else ""
        snippet = (text.splitlines() or [""])[0][:40]
        findings.append(
            Finding(
                rule="syntax-error",
                severity="error",
                file=loc.file,
                line=loc.line,
                col=loc.col,
                end_line=loc.end_line,
                end_col=loc.end_col,
                start=loc.start,
                end=loc.end,
                message=f"syntax error near '{snippet}'" if snippet else "syntax error: something is missing here",
            )
        )
    for rule in rules if rules is not None else ALL_RULES:
        try:
            findings.extend(rule.check(ctx))
        except Exception:
            log.exception("lint rule %s failed on %s", rule.id, op.model.root)
    # A kernel file the device build for this chip never compiles (another chip generation's kernel beside this one's,
    # e.g. ops-nn's arch35/ for the Ascend 950) has no findings: whatever a rule saw there never runs.
    outside = outside_build(ctx)
    if outside:
        findings = [f for f in findings if f.file not in outside]
    findings.sort(key=lambda f: (f.file, f.line, f.col, f.rule))
    return findings
