"""Run and tune results as editor items, rebuilt from the *current* analysis each time they are published.

A tuned configuration is kept as data (knob values and times), not as ranges: placing it on the knobs' literals of
the latest analysis keeps it on the right lines while the user edits, and drops a knob once its literal already
holds the tuned value (after "Apply", the diagnostic clears).
"""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types

from analysis.findings import Fix
from analysis.rewrite import changed_knobs, tuned_edits
from search.cache import BestConfig
from server.lsp.convert import lsp_range, workspace_edit
from server.lsp.state import path_to_uri


@dataclass
class EditorItem:
    file: str
    diagnostic: types.Diagnostic
    action: types.CodeAction | None = None


def tuned_message(best: BestConfig, names: list[str]) -> str:
    summary = ", ".join(f"{name}={best.config[name]}" for name in names)
    speed = best.baseline_us / best.best_us if best.best_us else 1.0
    return f"{summary}: {speed:.2f}x faster ({best.best_us:.1f} µs vs {best.baseline_us:.1f} µs)"


def tuned_items(analysis, best: BestConfig | None) -> list[EditorItem]:
    """An Information diagnostic on each knob literal the tune changed, each with one "Apply" action for all."""
    if best is None:
        return []
    op = analysis.op
    changed = [k for k in changed_knobs(op.model, best.config) if k.file in op.sources]
    if not changed:
        return []
    message = tuned_message(best, [k.name for k in changed])
    fix = Fix(title=f"Apply tuned tiling: {message}", edits=tuned_edits(op.model, op.sources, best.config))
    items = []
    for k in changed:
        diagnostic = types.Diagnostic(
            range=lsp_range(op.sources[k.file], k.literal.start, k.literal.end),
            message=message,
            severity=types.DiagnosticSeverity.Information,
            source="tilewise tune",
            code="tuned-tiling",
        )
        action = types.CodeAction(
            title=fix.title,
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diagnostic],
            edit=workspace_edit(op.sources, fix),
        )
        items.append(EditorItem(k.file, diagnostic, action))
    return items


def run_error_items(analysis, measurement) -> list[EditorItem]:
    """A run's compile or sanitizer error as an Error diagnostic at the user's line, and its sanitizer warnings (an
    unaligned copy's dropped tail, a race) as Warning diagnostics at theirs."""
    e = getattr(measurement, "error", None)
    items = [_run_item(analysis, e, types.DiagnosticSeverity.Error)] if e is not None else []
    for w in getattr(measurement, "warnings", None) or []:
        items.append(_run_item(analysis, w, types.DiagnosticSeverity.Warning))
    return [item for item in items if item is not None]


def _run_item(analysis, e, severity: types.DiagnosticSeverity) -> EditorItem | None:
    if not e.file or not e.line or e.file not in analysis.op.sources:
        return None
    sf = analysis.op.sources[e.file]
    if e.line > sf.line_count():
        return None
    line = sf.line_text(e.line)
    start = sf.offset_of_line_col(e.line, len(line) - len(line.lstrip()) + 1)
    end = sf.offset_of_line_col(e.line, len(line) + 1)
    return EditorItem(
        e.file,
        types.Diagnostic(
            range=lsp_range(sf, start, end),
            message=f"{e.kind}: {e.message}",
            severity=severity,
            source="tilewise emulator",
            code=e.kind,
        ),
    )


VERIFY_COMMAND = "tilewise.verifyFix"


def verify_arguments(finding, fix) -> list[dict]:
    """What a "Verify on the emulator" action's command carries to find the same finding and fix again."""
    return [{"uri": path_to_uri(finding.file), "rule": finding.rule, "start": finding.start, "title": fix.title}]


def verdict_for(state, analysis, finding, fix):
    """The emulator's verdict on one finding's fix, when it was verified on exactly the current sources."""
    stored = state.verified.get(str(analysis.op.project.root), {}).get(
        (finding.rule, finding.file, finding.start, fix.title)
    )
    if stored is None or stored.sources != analysis.sources_hash:
        return None
    return stored.verdict


def finding_message(state, analysis, finding) -> str:
    """A finding's message, followed by what the emulator showed of each of its fixes that was verified."""
    verdicts = [v for v in (verdict_for(state, analysis, finding, x) for x in finding.fixes if not x.safe) if v]
    return " ".join([finding.message] + [v.message() for v in verdicts])


def editor_items(state, analysis) -> list[EditorItem]:
    root = str(analysis.op.project.root)
    return tuned_items(analysis, state.tuned.get(root)) + run_error_items(analysis, state.last_run.get(root))
