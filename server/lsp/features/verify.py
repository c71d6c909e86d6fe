"""Verify on the emulator: the code action a finding gets for a fix its rule could not prove safe.

The command runs every case of the operator with and without the fix (search/verify_fix.py; the files on disk are
not touched) and stores the verdict for exactly the sources it ran on. The diagnostics then carry the verdict in the
finding's message, and a fix that held gets an "Apply (verified ...)" action with its measured gain; one that broke
something gets none. Editing any source makes the verdict stale, and the "Verify" action comes back.

A server-side `workspace/executeCommand`, so every LSP client can use it; it is bounded by the device's timeout per
run rather than cancellable.
"""

from __future__ import annotations

import asyncio
import logging

from lsprotocol import types

from search.verify_fix import verify_fix
from server.lsp.progress import end, get, start
from server.lsp.results import VERIFY_COMMAND
from server.lsp.state import VerifiedFix, uri_to_path

log = logging.getLogger("tilewise.lsp")


def register(server) -> None:
    from device.emulator import EmulatorDevice
    from server.lsp.features.diagnostics import publish

    @server.command(VERIFY_COMMAND)
    async def verify(ls, args):
        params = args[0] if isinstance(args, list) and args else args
        uri = get(params, "uri")
        log.info("verify on the emulator: %s", params)
        analysis = await ls.analysis_for(uri)
        if analysis is None:
            raise ValueError(f"{uri_to_path(uri)} is not inside an AscendC operator")
        path = uri_to_path(uri)
        found = next(
            (
                (f, x)
                for f in analysis.findings
                for x in f.fixes
                if f.file == path
                and f.rule == get(params, "rule")
                and f.start == get(params, "start")
                and x.title == get(params, "title")
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
        token = await start(ls, f"Verifying '{fix.title}' on the emulator", params)
        device = EmulatorDevice(chip=ls.state.settings.chip)
        try:
            verdict = await asyncio.to_thread(verify_fix, op, fix, device, cases)
        finally:
            end(ls, token, "done")
        root = str(op.project.root)
        log.info("verified '%s': %s", fix.title, verdict.message())
        ls.state.verified.setdefault(root, {})[(finding.rule, finding.file, finding.start, fix.title)] = VerifiedFix(
            analysis.sources_hash, verdict
        )
        publish(ls, root, ls.state.analyses.get(root, analysis))
        message = verdict.message()
        kind = types.MessageType.Info if verdict.correct else types.MessageType.Warning
        ls.window_show_message(types.ShowMessageParams(type=kind, message=f"{fix.title}: {message}"))
        return {"verified": verdict.correct, "checked": verdict.checked, "speedup": verdict.speedup, "message": message}
