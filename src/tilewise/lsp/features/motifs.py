"""Optimisation motifs in the editor (search/bank): the motifs whose slow pattern the analysis found, offered where
they fit, verified on request, and explained by the bank's example.

- A code action on the lines of each site, titled with the motif's evidence ("Double-buffer the streaming queues:
  median 1.40x on 9 rewound kernels"), applies its rewrite when the rewrite is deterministic.
- `tilewise/verifySuggestions` {uri, top?, workDoneToken?} profiles the cases, then verifies each motif's rewrite on
  the emulator in a background thread (one progress report per motif, cancellable: what was verified stays). Each
  result is kept for exactly the sources it ran on and published as it arrives (results.motif_items): "Apply
  (measured ...)" only for one that was correct and faster. The answer is the suggestions as `tilewise suggest
  --format json` gives them.
- A hover on a site's lines shows the bank's before/after example of the motif.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from tilewise.analysis.findings import Fix
from tilewise.lsp.convert import ranges_overlap, workspace_edit
from tilewise.lsp.jobs import Job
from tilewise.lsp.params import VerifySuggestionsParams, validated
from tilewise.lsp.results import motif_items
from tilewise.lsp.state import Analysis, OperatorSession, VerifiedMotif
from tilewise.search.bank.suggest import Suggestion, SuggestResult, suggest, suggestion_json
from tilewise.session.builder import SessionRequest, build_session, manifest_cases

if TYPE_CHECKING:
    from tilewise.analysis.motifs import Site
    from tilewise.analysis.source import SourceFile
    from tilewise.lsp.server import TilewiseServer

log = logging.getLogger("tilewise.lsp")
VERIFY_SUGGESTIONS = "tilewise/verifySuggestions"
DIFF_LINES = 60  # the longest example a hover shows


def _site_range(sf: SourceFile, site: Site) -> types.Range:
    """The site's whole lines."""
    last = min(max(site.end_line, site.line), sf.line_count())
    return types.Range(
        start=types.Position(line=site.line - 1, character=0),
        end=types.Position(line=last - 1, character=len(sf.line_text(last))),
    )


def _verified_here(session: OperatorSession, analysis: Analysis, motif: str) -> bool:
    stored = session.motifs.get(motif)
    return stored is not None and stored.sources == analysis.sources_hash


def motif_actions(session: OperatorSession, analysis: Analysis, path: str, rng: types.Range) -> list[types.CodeAction]:
    """The evidence-titled action of each motif with edits whose site overlaps `rng`. A motif verified on these
    very sources is left to its verified item (results.motif_items), which says what it measured here."""
    sf = analysis.op.sources.get(path)
    if sf is None:
        return []
    actions = []
    for s in analysis.suggestions:
        if not s.edits or _verified_here(session, analysis, s.motif):
            continue
        # a guessed site (weight under 1: only verification can tell) is offered once measured, never before
        if not any(x.file == path and x.weight >= 1 and ranges_overlap(_site_range(sf, x), rng) for x in s.sites):
            continue
        title = s.evidence_title()
        actions.append(
            types.CodeAction(
                title=title,
                kind=types.CodeActionKind.QuickFix,
                edit=workspace_edit(analysis.op.sources, Fix(title=title, edits=s.edits)),
            )
        )
    return actions


def example_markdown(s: Suggestion) -> str:
    """The motif, why it fits here, and the bank's before/after example with its source and speedup."""
    lines = [f"**{s.evidence_title()}** (motif `{s.motif}`)", s.why]
    example = s.evidence.best_example() if s.evidence is not None else None
    if example is None:
        lines.append("The bank has no example of this motif yet (`tilewise bank mine` measures some).")
        return "\n\n".join(lines)
    diff = example.diff.splitlines()
    more = f"\n... ({len(diff) - DIFF_LINES} more lines)" if len(diff) > DIFF_LINES else ""
    lines.append(
        f"Example from the bank: {example.description} in {example.operator} ({example.source}), "
        f"{example.speedup:.2f}x faster with the motif:"
    )
    lines.append("```diff\n" + "\n".join(diff[:DIFF_LINES]) + more + "\n```")
    return "\n\n".join(lines)


def motif_hover(session: OperatorSession, analysis: Analysis, path: str, offset: int) -> str | None:
    """The example of each motif with a site on the hovered line (or a verified motif's diagnostic there)."""
    sf = analysis.op.sources.get(path)
    if sf is None:
        return None
    line = sf.line_col(offset)[0]
    found: dict[str, Suggestion] = {}
    verified = [v.suggestion for v in session.motifs.values() if v.sources == analysis.sources_hash]
    for s in analysis.suggestions + verified:
        if s.motif not in found and any(x.file == path and x.line <= line <= max(x.end_line, x.line) for x in s.sites):
            found[s.motif] = s
    return "\n\n".join(example_markdown(s) for s in found.values()) or None


def _outcome(s: Suggestion) -> str:
    v = s.verified
    if v is None:
        return f"{s.title}: not verified"
    if v.faster:
        return f"{s.title}: {v.speedup:.2f}x"
    return f"{s.title}: {'not faster' if v.correct else 'wrong'}"


def register(server: TilewiseServer) -> None:
    server.action_providers.append(motif_actions)
    server.item_providers.append(motif_items)  # this feature's diagnostics: the motifs verified on these sources
    server.hover_providers.append(motif_hover)

    @server.feature(VERIFY_SUGGESTIONS)
    @validated(VERIFY_SUGGESTIONS, VerifySuggestionsParams)
    async def verify_suggestions(ls: TilewiseServer, params: VerifySuggestionsParams) -> dict[str, Any]:
        ls.require_trust(VERIFY_SUGGESTIONS)  # features/trust.py
        analysis = await ls.operator_analysis(params.uri)
        op = analysis.op
        root, sources = str(op.project.root), analysis.sources_hash
        purpose = "to verify suggestions"
        cases = manifest_cases(op, purpose)  # (before the "no motif fits" answer, as it always was)
        if not analysis.suggestions:  # no motif's slow pattern is in the kernel: nothing to profile or verify
            message = "no motif fits: none of the slow patterns the bank knows is in this kernel"
            ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))
            return {"operator": op.model.operator, "suggestions": [], "problems": []}
        # The job's own copy of the sources: the open documents' parsed files change in place as the user types.
        request = SessionRequest(root, overlay={p: sf.text for p, sf in op.sources.items()}, manifest_purpose=purpose)
        expected = max(len([s for s in analysis.suggestions[: params.top] if s.edits]), 1)
        device = ls.device()
        session = ls.session(root)
        session.motifs = {k: v for k, v in session.motifs.items() if v.sources == sources}
        verified = 0

        def verify(job: Job) -> SuggestResult:  # on the worker thread
            private = build_session(request, device=device)
            done = 0

            def on_verified(s: Suggestion) -> None:
                nonlocal done
                done += 1
                job.report(_outcome(s), min(100, int(100 * done / expected)))
                job.post(s)

            return suggest(
                private.op,
                device,
                ls.state.banks.get(),
                private.cases,
                top=params.top,
                verify=True,
                on_verified=on_verified,
                cancelled=job.stop.is_set,  # suggest stops before its next verification; what was verified stays
            )

        def arrived(s: Suggestion) -> None:  # on the event loop, each verified motif as it comes
            nonlocal verified
            verified += 1
            session.motifs[s.motif] = VerifiedMotif(sources, s)
            ls.publish(root, analysis)

        def finished(result: SuggestResult) -> str:
            faster = [(s, s.verified) for s in result.suggestions if s.verified is not None and s.verified.faster]
            best = f"best {faster[0][1].speedup:.2f}x ({faster[0][0].title})" if faster else "none faster"
            return f"{verified} verified, {best}" if verified else "nothing to verify"

        result = await ls.jobs.run(
            "verify-suggestions",
            root,
            f"Verifying the motifs that fit {op.model.operator}",
            verify,
            token=params.work_done_token,
            on_start=lambda job: job.report(f"profiling {len(cases)} case{'s' if len(cases) != 1 else ''}", 0),
            on_item=arrived,
            done=finished,
        )
        for line in result.problems:
            log.info("%s: %s", root, line)
        return {
            "operator": result.operator,
            "suggestions": [suggestion_json(s) for s in result.suggestions],
            "problems": result.problems,
        }
