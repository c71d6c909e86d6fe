"""`tilewise/optimize` {uri, budget?, llm?, timeout?, workDoneToken?}: the closed loop of search/optimize.py (tune the
tiling, rewrite the kernel one motif at a time, tune again) on the operator holding `uri`, in a worker thread.

A request, so `$/cancelRequest` cancels it: the loop reads a flag the cancel sets and stops at its next step, and the
request then ends cancelled. Each step is reported as work-done progress ("step 3 (motif pipe-sync): accepted, best
12.3 µs (1.52x)"). Nothing is written: the answer is `OptimizeResult.json()`, whose `files` hold each changed file's
text as the loop started from and as it left it, and the client decides what to apply (after checking the file has
not changed since).

With `llm: true` the model of the settings (`tilewise.llm.baseUrl`, `tilewise.llm.model`) rewrites too; its key
comes from the server's environment only (`TILEWISE_LLM_API_KEY`, which the extension sets from its secret storage,
or `OPENAI_API_KEY`), never from a setting. A model that cannot be used is the request's error, in one line.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInternalError

from tilewise.lsp.jobs import Job
from tilewise.lsp.params import OptimizeParams, validated
from tilewise.lsp.state import LlmConfig
from tilewise.report.convergence import ConvergenceRecorder
from tilewise.session.builder import SessionRequest, build_session

if TYPE_CHECKING:
    from tilewise.lsp.server import TilewiseServer
    from tilewise.search.llm.client import LlmClient
    from tilewise.search.optimize import OptimizeResult, Step

log = logging.getLogger("tilewise.lsp")
OPTIMIZE = "tilewise/optimize"
WHAT_CHARS = 60  # a step's description in a progress message, at most


def step_progress(step: Step, best_us: float | None, baseline_us: float | None) -> str:
    """One progress line: `step 3 (motif pipe-sync): accepted, best 12.3 µs (1.52x)`; `baseline 18.7 µs` first."""
    if step.stage == "baseline":
        return f"baseline {step.time_us:.1f} µs" if step.time_us is not None else "baseline"
    what = step.what if len(step.what) <= WHAT_CHARS else step.what[: WHAT_CHARS - 1] + "…"
    line = f"step {step.index} ({step.stage} {what}): {'accepted' if step.accepted else 'rejected'}"
    if best_us is not None:
        line += f", best {best_us:.1f} µs"
        if baseline_us:
            line += f" ({baseline_us / best_us:.2f}x)"
    return line


def end_message(result: OptimizeResult) -> str:
    """The progress's last word: the best time and gain, or that nothing was faster."""
    if result.best_us is not None and result.speedup and result.speedup > 1.0:
        return f"best {result.best_us:.1f} µs ({result.speedup:.2f}x)"
    return "no faster version found"


def llm_client(config: LlmConfig) -> LlmClient:
    """The model the settings name, with the key from the server's environment; the LlmError's own line (which
    names OPENAI_API_KEY when no key and no local server is set) as the request's error otherwise."""
    from tilewise.search.llm.client import LlmClient, LlmError, LlmSettings

    try:
        return LlmClient(LlmSettings.from_env(model=config.model, base_url=config.base_url))
    except LlmError as exc:
        raise JsonRpcInternalError(message=str(exc)) from None


def register(server: TilewiseServer) -> None:
    @server.feature(OPTIMIZE)
    @validated(OPTIMIZE, OptimizeParams)
    async def optimize_operator(ls: TilewiseServer, params: OptimizeParams) -> dict[str, Any]:
        from tilewise.search.cache import ResultsCache, default_results_path
        from tilewise.search.optimize import OptimizeOptions, optimize

        ls.require_trust(OPTIMIZE)  # features/trust.py
        analysis = await ls.operator_analysis(params.uri)
        settings = ls.state.settings
        root = str(analysis.op.project.root)
        # The job's own copy of the sources: the open documents' parsed files change in place as the user types,
        # and the answer's `original` texts must be the ones the loop started from.
        texts = {p: sf.text for p, sf in analysis.op.sources.items()}
        request = SessionRequest(root, overlay=texts, manifest_purpose="to optimize it")
        device = ls.device(settings, timeout_s=params.timeout)
        prepared = await asyncio.to_thread(build_session, request, device=device)  # (parses the sources)
        op, cases = prepared.op, prepared.cases
        llm = await asyncio.to_thread(llm_client, settings.llm) if params.llm else None  # (imports openai)
        options = OptimizeOptions(budget=params.budget, llm=llm, seed=0, strategy=settings.strategy)
        bank = ls.state.banks.get()
        measured, baseline_us = 0, None  # so far; read and written by the worker's callback only
        recorder = ConvergenceRecorder(
            op.model.operator, "optimize", params.budget, cases=[c.name for c in cases], source="optimize"
        )
        cache = ResultsCache(default_results_path())

        def loop(job: Job) -> OptimizeResult:  # on the worker thread
            def on_step(step: Step, best_us: float | None) -> None:
                nonlocal measured, baseline_us
                measured += step.evaluations
                if step.stage == "baseline" and step.time_us:
                    baseline_us = step.time_us
                job.report(step_progress(step, best_us, baseline_us), min(100, 100 * measured // params.budget))
                recorder.add_step(step, best_us)
                job.post(recorder.payload())

            # the loop reads the job's stop flag and stops at its next step; its measurements stay in the cache
            return optimize(
                op, device, cases, options, cache=cache, bank=bank, on_step=on_step, cancelled=job.stop.is_set
            )

        def finished(result: OptimizeResult) -> str:
            log.info("optimized %s: %s in %d evaluations", root, end_message(result), result.evaluations)
            recorder.done, recorder.stopped = True, result.stopped
            ls.show_convergence(root, recorder.payload())
            return end_message(result)

        result = await ls.jobs.run(
            "optimize",
            root,
            f"Optimizing {op.model.operator}",
            loop,
            token=params.work_done_token,
            on_item=lambda payload: ls.show_convergence(root, payload),
            cleanup=cache.close,  # once the worker has let go of it
            done=finished,
        )
        return result.json()
