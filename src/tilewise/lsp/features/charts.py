"""The views' data: `tilewise/charts` {uri, kind} answers the payload of the timeline, the roofline or the
convergence view (server/report/payloads.py) for the operator holding `uri`, or null when there is nothing to
draw yet (no run, no tune); `tilewise/applyConfig` {uri, config} answers the WorkspaceEdit that writes a
configuration picked in the convergence view into the knobs' literals (null when they already hold it).

Both only read what the session holds and the sources: nothing is built or run, so they answer in an untrusted
workspace too. A tune's live convergence reaches the client as `tilewise/convergence` notifications
(features/requests.py); this request is for a view opened afterwards.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInternalError

from tilewise.device.trace import TraceError
from tilewise.lsp.params import ApplyConfigParams, ChartsParams, validated
from tilewise.lsp.results import config_edit
from tilewise.report.roofline import roofline_payload
from tilewise.report.timeline import timeline_payload

if TYPE_CHECKING:
    from tilewise.lsp.server import TilewiseServer


def register(server: TilewiseServer) -> None:
    @server.feature("tilewise/charts")
    @validated("tilewise/charts", ChartsParams)
    async def charts(ls: TilewiseServer, params: ChartsParams) -> dict[str, Any] | None:
        analysis = await ls.operator_analysis(params.uri)
        session = ls.session(str(analysis.op.project.root))
        operator = analysis.op.model.operator
        if params.kind == "convergence":
            return session.convergence.model_dump(mode="json") if session.convergence else None
        m = session.last_run
        if m is None:
            return None
        if params.kind == "roofline":
            payload = roofline_payload(m, analysis.context.chip, operator)
            return payload.model_dump(mode="json") if payload else None
        if not m.trace_path or not Path(m.trace_path).is_file():  # a run that stopped before the kernel
            return None
        try:  # reading a large trace takes a while: off the event loop, so typing stays responsive
            timeline = await asyncio.to_thread(timeline_payload, m.trace_path, m, operator, m.case)
        except TraceError as exc:  # e.g. a kernel-invocation program's trace: said, in one line
            raise JsonRpcInternalError(message=f"no timeline: {exc.one_line()}") from None
        return timeline.model_dump(mode="json")

    @server.feature("tilewise/applyConfig")
    @validated("tilewise/applyConfig", ApplyConfigParams)
    async def apply_config(ls: TilewiseServer, params: ApplyConfigParams) -> Any:
        analysis = await ls.operator_analysis(params.uri)
        session = ls.session(str(analysis.op.project.root))
        cases = session.convergence.cases if session.convergence else []
        edit = config_edit(analysis, params.config, cases)
        return edit
