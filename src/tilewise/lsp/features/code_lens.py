"""Code lens on the kernel entry: Run on emulator, Tune tiling, Verify suggestions (the motifs that fit, on the
emulator), Optimize operator (tiling and kernel in turn, `tilewise/optimize`), and the last result.

In an untrusted workspace (features/trust.py) there are none: each command builds and runs the workspace's code,
which the server would refuse, and with nothing ever run there is no last result to show."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from tilewise.lsp.convert import lsp_range
from tilewise.lsp.handlers import safe
from tilewise.lsp.state import uri_to_path

if TYPE_CHECKING:
    from tilewise.lsp.server import TilewiseServer


def register(server: TilewiseServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    @safe([])
    async def code_lens(ls: TilewiseServer, params: types.CodeLensParams) -> list[types.CodeLens] | None:
        if not ls.state.trusted:  # offer nothing the server would refuse
            return []
        analysis = await ls.analysis_for(params.text_document.uri)
        path = uri_to_path(params.text_document.uri)
        if analysis is None:
            return []
        session = ls.session(str(analysis.op.project.root))
        lenses = []
        for entry in analysis.op.model.kernel.entries:
            if entry.file != path:
                continue
            rng = lsp_range(analysis.op.sources[path], entry.loc.start, entry.loc.end)
            args = [params.text_document.uri]
            lenses.append(
                types.CodeLens(
                    range=rng, command=types.Command(title="Run on emulator", command="tilewise.run", arguments=args)
                )
            )
            lenses.append(
                types.CodeLens(
                    range=rng, command=types.Command(title="Tune tiling", command="tilewise.tune", arguments=args)
                )
            )
            verify = types.Command(title="Verify suggestions", command="tilewise.verifySuggestions", arguments=args)
            lenses.append(types.CodeLens(range=rng, command=verify))
            optimize = types.Command(title="Optimize operator", command="tilewise.optimize", arguments=args)
            lenses.append(types.CodeLens(range=rng, command=optimize))
            last = session.last_run
            if last is not None and last.time_us is not None:
                title = f"last: {last.time_us:.1f} µs"
                if last.bottleneck is not None:  # a timed run names it; a measurement from elsewhere may not
                    title += f", bottleneck {last.bottleneck.upper()}"
                lenses.append(types.CodeLens(range=rng, command=types.Command(title=title, command="")))
            elif last is not None and last.error is not None:
                lenses.append(
                    types.CodeLens(
                        range=rng, command=types.Command(title=f"last: failed ({last.error.kind})", command="")
                    )
                )
        return lenses
