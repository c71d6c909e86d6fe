"""An operator's diagnostics, rebuilt from the *current* analysis each time they are published: lint findings and
problems, and run and tune results as editor items (a diagnostic, and for a tune an "Apply" action), and the
motif rewrites verified on the emulator (an "Apply (measured ...)" action only for one that was correct and faster).

A tuned configuration is kept as data (knob values and times), not as ranges: placing it on the knobs' literals of
the latest analysis keeps it on the right lines while the user edits, and drops a knob once its literal already
holds the tuned value (after "Apply", the diagnostic clears).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from tilewise.analysis.findings import Finding, Fix
from tilewise.analysis.knobs import TUNED_MARK
from tilewise.analysis.model_error import kinds_of_roles, load_model_error
from tilewise.analysis.rewrite import changed_knobs, tuned_edits
from tilewise.lsp.convert import diagnostic, lsp_range, workspace_edit
from tilewise.lsp.state import Analysis, OperatorSession, path_to_uri
from tilewise.search.cache import BestConfig
from tilewise.search.space import platform_figures

if TYPE_CHECKING:
    from tilewise.search.verify_fix import FixVerdict


log = logging.getLogger("tilewise.lsp")


@dataclass
class EditorItem:
    file: str
    diagnostic: types.Diagnostic
    action: types.CodeAction | None = None


# What a feature adds to an operator's diagnostics (and code actions), from what it stored on the session: each
# feature registers its own in TilewiseServer.item_providers and owns only those.
ItemProvider = Callable[[OperatorSession, Analysis], list[EditorItem]]


def tuned_message(best: BestConfig, names: list[str]) -> str:
    summary = ", ".join(f"{name}={best.config[name]}" for name in names)
    speed = best.baseline_us / best.best_us if best.best_us else 1.0
    return f"{summary}: {speed:.2f}x faster ({best.best_us:.1f} µs vs {best.baseline_us:.1f} µs)"


def tuned_items(analysis, best: BestConfig | None) -> list[EditorItem]:
    """An Information diagnostic on each knob literal the tune changed, each with one "Apply" action for all."""
    if best is None:
        return []
    op = analysis.op
    changed = _knobs_to_change(analysis, best.config)
    if not changed:
        return []
    message = tuned_message(best, list(dict.fromkeys(k.name for k in changed)))
    fix = Fix(title=f"Apply tuned tiling: {message}", edits=_config_edits(analysis, best.config, best.cases))
    error = load_model_error()
    kinds = kinds_of_roles([k.role for k in changed])
    note = error.gain_note(best.baseline_us / best.best_us, kinds) if error and best.best_us else None
    if note:  # the diagnostic says so; the action's title stays short
        message = f"{message}. {note[0].upper()}{note[1:]}"
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


def config_edit(analysis, config: dict[str, int], cases: list[str]) -> types.WorkspaceEdit | None:
    """The edit that gives the sources `config` (a tuned configuration the user picked, e.g. in the convergence
    view); None when they already hold it."""
    if not _knobs_to_change(analysis, config):
        return None
    fix = Fix(title="apply configuration", edits=_config_edits(analysis, config, cases))
    return workspace_edit(analysis.op.sources, fix)


def _knobs_to_change(analysis, config: dict[str, int]) -> list:
    """The knobs whose literal differs from `config`, then the platform queries it caps below the chip's figure."""
    op = analysis.op
    changed = [k for k in changed_knobs(op.model, config) if k.file in op.sources]
    return changed + _capped_queries(analysis, config)


def _config_edits(analysis, config: dict[str, int], cases: list[str]) -> list:
    op = analysis.op
    figures = {k.name: platform_figures(analysis.context.chip)[k.name] for k in _capped_queries(analysis, config)}
    return tuned_edits(op.model, op.sources, config, platform=figures, cases=cases)


def _capped_queries(analysis, config: dict[str, int]) -> list:
    """The platform queries a tune capped below the chip's figure, where no clamp for that value stands yet."""
    op = analysis.op
    figures = platform_figures(analysis.context.chip)
    out = []
    for k in op.model.tiling_knobs:
        value = config.get(k.name)
        sf = op.sources.get(k.file)
        if k.kind != "platform" or value is None or value >= figures[k.name] or sf is None:
            continue
        if f"{TUNED_MARK}: {k.name} {value} " not in sf.text:  # (applied: the clamp names the knob and value)
            out.append(k)
    return out


MOTIF_SOURCE = "tilewise motifs"


def motif_message(title: str, v) -> str:
    """What the emulator measured of a motif's rewrite on this kernel (`v`: search.bank.suggest.Verified)."""
    figures = f" ({v.before_us:.1f} µs -> {v.time_us:.1f} µs)" if v.before_us and v.time_us else ""
    if v.faster:
        return f"Verified on the emulator: {title}: measured {v.speedup:.2f}x on this kernel{figures}"
    if v.correct:
        measured = f"measured {v.speedup:.2f}x" if v.speedup else "no timing"
        return (
            f"Verified on the emulator: {title}: still correct but not faster on this kernel ({measured}{figures}); "
            "not offered as an optimisation"
        )
    return f"Tried on the emulator: {title}: {v.error or v.message}. Not offered: it did not hold on this kernel"


def motif_items(session: OperatorSession, analysis: Analysis) -> list[EditorItem]:
    """A diagnostic on the first site line of each motif verified on exactly the current sources, with an "Apply
    (measured ...)" action when its rewrite was correct and faster; a wrong or slower one gets none."""
    items = []
    for stored in session.motifs.values():
        s = stored.suggestion
        v = s.verified
        if stored.sources != analysis.sources_hash or v is None or not s.sites:
            continue
        site = s.sites[0]
        sf = analysis.op.sources.get(site.file)
        if sf is None or site.line > sf.line_count():
            continue
        diagnostic = types.Diagnostic(
            range=_line_range(sf, site.line),
            message=motif_message(s.title, v),
            severity=types.DiagnosticSeverity.Information if v.correct else types.DiagnosticSeverity.Warning,
            source=MOTIF_SOURCE,
            code=s.motif,
        )
        action = None
        if v.faster and s.edits:
            fix = Fix(title=f"Apply (measured {v.speedup:.2f}x on this kernel): {s.title}", edits=s.edits)
            action = types.CodeAction(
                title=fix.title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                edit=workspace_edit(analysis.op.sources, fix),
            )
        items.append(EditorItem(site.file, diagnostic, action))
    return items


def _line_range(sf, line: int) -> types.Range:
    """The text of a 1-based line, without its indentation."""
    text = sf.line_text(line)
    start = sf.offset_of_line_col(line, len(text) - len(text.lstrip()) + 1)
    return lsp_range(sf, start, sf.offset_of_line_col(line, len(text) + 1))


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
    return EditorItem(
        e.file,
        types.Diagnostic(
            range=_line_range(sf, e.line),
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


def verdict_for(session: OperatorSession, analysis: Analysis, finding: Finding, fix: Fix) -> FixVerdict | None:
    """The emulator's verdict on one finding's fix, when it was verified on exactly the current sources."""
    stored = session.verified.get((finding.rule, finding.file, finding.start, fix.title))
    if stored is None or stored.sources != analysis.sources_hash:
        return None
    return stored.verdict


def finding_message(session: OperatorSession, analysis: Analysis, finding: Finding) -> str:
    """A finding's message, followed by what the emulator showed of each of its fixes that was verified."""
    verdicts = [v for v in (verdict_for(session, analysis, finding, x) for x in finding.fixes if not x.safe) if v]
    return " ".join([finding.message] + [v.message() for v in verdicts])


def tune_items(session: OperatorSession, analysis: Analysis) -> list[EditorItem]:
    """The tune feature's items (features/requests.py registers them): its best configuration on the knobs."""
    return tuned_items(analysis, session.tuned)


def run_items(session: OperatorSession, analysis: Analysis) -> list[EditorItem]:
    """The run feature's items (features/requests.py registers them): the last run's error and warnings."""
    return run_error_items(analysis, session.last_run)


def editor_items(
    session: OperatorSession, analysis: Analysis, providers: Sequence[ItemProvider] = ()
) -> list[EditorItem]:
    """What each feature adds to the operator's diagnostics, from the provider it registered (TilewiseServer.
    item_providers: the tune's result, the run's errors, the verified motifs). Each is isolated: one that fails is
    logged, and the others' items still go out."""
    items: list[EditorItem] = []
    for provide in providers:
        try:
            items.extend(provide(session, analysis))
        except Exception:
            log.exception("the diagnostics of %s failed", getattr(provide, "__name__", provide))
    return items


def diagnostics_by_file(
    session: OperatorSession, analysis: Analysis, providers: Sequence[ItemProvider] = ()
) -> dict[str, list[types.Diagnostic]]:
    """Every source of diagnostics for one operator, merged per file: lint findings (with the verdicts of their
    verified fixes), the operator's problems (syntax errors, a bad tilewise.toml), and the items of each feature's
    provider (`providers`: the tune's result, the last run's errors, the verified motifs). Each source file is
    present, with an empty list when it has nothing."""
    by_file: dict[str, list[types.Diagnostic]] = {path: [] for path in analysis.op.sources}
    for f in analysis.findings:
        sf = analysis.op.sources.get(f.file)
        if sf is not None:
            message = finding_message(session, analysis, f) if session.verified else f.message
            by_file.setdefault(f.file, []).append(diagnostic(sf, f, message))
    for p in analysis.op.problems:
        found = _problem(analysis, p)
        if found is not None:
            by_file.setdefault(p.file, []).append(found)
    for item in editor_items(session, analysis, providers):
        by_file.setdefault(item.file, []).append(item.diagnostic)
    return by_file


def _problem(analysis: Analysis, p) -> types.Diagnostic | None:
    """A problem at its line: in a source, the whole line; in another file of the operator (tilewise.toml, a
    header that is not UTF-8), the start of the line."""
    sf = analysis.op.sources.get(p.file)
    if sf is not None and not p.line:
        return None  # e.g. the operator-level problems shown by `tilewise lint`
    if sf is None and not Path(p.file).is_file():
        return None  # a missing folder: there is no file to attach it to
    line = max(p.line or 1, 1)
    if sf is not None:
        line = min(line, sf.line_count())  # a line past the end of the text analysed: its last line
    end = len(sf.line_text(line)) if sf is not None else 0
    return types.Diagnostic(
        range=types.Range(
            start=types.Position(line=line - 1, character=0), end=types.Position(line=line - 1, character=end)
        ),
        message=p.message,
        severity=types.DiagnosticSeverity.Error,
        source="tilewise",
    )
