"""Verify on the emulator: the code action a finding gets for a fix its rule could not prove safe.

The command runs every case of the operator with and without the fix (search/verify_fix.py; the files on disk are
not touched) and stores the verdict for exactly the sources it ran on. The diagnostics then carry the verdict in the
finding's message, and a fix that held gets an "Apply (verified ...)" action with its measured gain; one that broke
something gets none. Editing any source makes the verdict stale, and the "Verify" action comes back.

A server-side `workspace/executeCommand`, so every LSP client can use it; a job of lsp/jobs.py with progress, bounded
by the device's timeout per run. pygls does not cancel a command on `$/cancelRequest`, so its progress's cancel and
`tilewise.cancelJob` are what stop waiting for it (verify_fix itself runs its cases to their end). The same fix is
verified once at a time.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from tilewise.analysis.model_error import kinds_of_rule
from tilewise.lsp.params import VerifyFixArgs, register_command_args
from tilewise.lsp.results import VERIFY_COMMAND
from tilewise.lsp.state import VerifiedFix, uri_to_path
from tilewise.search.verify_fix import verify_fix

if TYPE_CHECKING:
    from tilewise.lsp.server import TilewiseServer

log = logging.getLogger("tilewise.lsp")


def register(server: TilewiseServer) -> None:
    register_command_args(server, VerifyFixArgs, VERIFY_COMMAND)

    # pygls reads a command handler's annotations at run time (to structure its arguments), and TilewiseServer is
    # imported for type checking only: the handler takes the server from here rather than as its `ls` parameter.
    ls = server

    @server.command(VERIFY_COMMAND)
    async def verify(params: VerifyFixArgs) -> dict[str, Any]:
        log.info("verify on the emulator: %s", params)
        ls.require_trust("Verify on the emulator")  # features/trust.py
        analysis = await ls.operator_analysis(params.uri)
        path = uri_to_path(params.uri)
        found = next(
            (
                (f, x)
                for f in analysis.findings
                for x in f.fixes
                if f.file == path and f.rule == params.rule and f.start == params.start and x.title == params.title
            ),
            None,
        )
        if found is None:
            message = "the finding changed since the action was offered: ask for the code actions again"
            ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))
            return {"verified": False, "message": message}
        finding, fix = found
        op = analysis.op
        cases = list(op.manifest.cases) if op.manifest and op.manifest.cases else []
        device = ls.device()
        root = str(op.project.root)
        verdict = await ls.jobs.run(
            "verify-fix",
            root,
            f"Verifying '{fix.title}' on the emulator",
            lambda job: verify_fix(op, fix, device, cases, kinds=kinds_of_rule(finding.rule)),
            key=f"{finding.rule}:{finding.file}:{finding.start}:{fix.title}",  # the same fix once at a time
        )
        log.info("verified '%s': %s", fix.title, verdict.message())
        ls.session(root).verified[(finding.rule, finding.file, finding.start, fix.title)] = VerifiedFix(
            analysis.sources_hash, verdict
        )
        ls.publish(root, analysis)
        message = verdict.message()
        kind = types.MessageType.Info if verdict.correct else types.MessageType.Warning
        ls.window_show_message(types.ShowMessageParams(type=kind, message=f"{fix.title}: {message}"))
        return {"verified": verdict.correct, "checked": verdict.checked, "speedup": verdict.speedup, "message": message}
