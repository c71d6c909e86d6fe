"""Custom requests `tilewise/run` and `tilewise/tune`: long jobs as requests so `$/cancelRequest` cancels them
(pygls does not cancel executeCommand handlers). Both report `window/workDoneProgress`. A tune streams each
improvement as an Information diagnostic on the knob's literal, with an "Apply" code action; a run's compile or
sanitizer error appears as an Error diagnostic at the user's line. A run of a case that follows an earlier run of
it on other sources may teach the user's experience bank (server/lsp/bank.py), in the background."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import TYPE_CHECKING, Any

from tilewise.analysis.model_error import likely_range
from tilewise.device.protocol import RunRequest
from tilewise.device.sites import per_line
from tilewise.lsp.bank import StoredRun, learn_from_user
from tilewise.lsp.params import RunParams, TuneParams, validated
from tilewise.lsp.progress import end as _end
from tilewise.lsp.progress import report as _report
from tilewise.lsp.progress import start as _progress
from tilewise.lsp.state import RunLines, manifest_cases
from tilewise.lsp.traces import discard, new_trace_path
from tilewise.report.convergence import ConvergenceRecorder
from tilewise.search.cache import BestConfig

if TYPE_CHECKING:
    from tilewise.lsp.server import TilewiseServer

log = logging.getLogger("tilewise.lsp")
_learning: set[asyncio.Future] = set()  # the background learning jobs, held until they end


def _cases(op, name: str | None) -> list:
    return manifest_cases(op, "to run or tune it", name)


def register(server: TilewiseServer) -> None:
    @server.feature("tilewise/run")
    @validated("tilewise/run", RunParams)
    async def run(ls: TilewiseServer, params: RunParams) -> dict[str, Any]:
        ls.require_trust("tilewise/run")  # features/trust.py
        analysis = await ls.operator_analysis(params.uri)
        op = analysis.op
        root = str(op.project.root)
        cases = _cases(op, params.case)
        texts = {p: sf.text for p, sf in op.sources.items()}  # as the run starts: what it measures
        token = await _progress(ls, f"Running {op.model.operator} on the emulator", params.work_done_token)
        device = ls.device(timeout_s=params.timeout)
        _report(ls, token, f"case {cases[0].name}")
        trace = params.trace or new_trace_path(op.model.operator)  # the timeline view draws the last run's trace
        try:
            m = await asyncio.to_thread(device.run, op, RunRequest(cases[0], trace_path=trace, sites=True))
        except asyncio.CancelledError:  # the run's subprocess ends by itself, bounded by the device's timeout
            _end(ls, token, "cancelled")
            discard(trace)
            raise
        session = ls.session(root)
        if session.last_run is not None and session.last_run.trace_path != m.trace_path:
            discard(session.last_run.trace_path)
        session.last_run = m
        if m.sites:
            session.run_lines = RunLines(
                case=m.case,
                lines=per_line(m.sites, m.block_dim),
                stopped=m.error is not None,
                text_hashes={p: hash(sf.text) for p, sf in op.sources.items()},
            )
        else:  # no per-line figures (a kernel-invocation program, or a run that never reached the kernel)
            session.run_lines = None  # an older run's would pass for this one's
        ls.publish(root, analysis)
        _learn(ls, root, cases[0], StoredRun(texts, m))
        _end(ls, token, f"{m.time_us:.1f} µs" if m.time_us is not None else (m.error.kind if m.error else "done"))
        span = likely_range(m.time_us)
        return {**m.model_dump(mode="json"), "time_range_us": list(span) if span else None}

    @server.feature("tilewise/tune")
    @validated("tilewise/tune", TuneParams)
    async def tune(ls: TilewiseServer, params: TuneParams) -> dict[str, Any]:
        from tilewise.search.cache import ResultsCache, default_results_path
        from tilewise.search.tuner import Tuner

        ls.require_trust("tilewise/tune")
        analysis = await ls.operator_analysis(params.uri)
        op = analysis.op  # the tune keeps this snapshot whatever the user types meanwhile
        root = str(op.project.root)
        settings = ls.state.settings
        device = ls.device(settings)
        cases = _cases(op, params.case)
        cache = ResultsCache(default_results_path())
        tuner = Tuner(
            op,
            device,
            cases,
            cache=cache,
            strategy=params.strategy or settings.strategy,
            budget=params.budget or settings.budget,
        )
        token = await _progress(ls, f"Tuning {op.model.operator}", params.work_done_token)
        recorder = ConvergenceRecorder(
            op.model.operator, tuner.strategy_name, tuner.budget, cases=[c.name for c in tuner.cases]
        )
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()

        def produce() -> None:
            try:
                for ev in tuner.events():
                    loop.call_soon_threadsafe(queue.put_nowait, ev)
            finally:
                loop.call_soon_threadsafe(queue.put_nowait, None)

        thread = threading.Thread(target=produce, daemon=True)
        thread.start()
        try:
            while (ev := await queue.get()) is not None:
                _report(ls, token, _progress_text(ev), int(100 * ev.evaluations / max(ev.budget, 1)))
                recorder.add(ev)
                ls.show_convergence(root, recorder.payload())
                if ev.kind == "improved" and ev.trial and ev.trial.index > 0 and ev.baseline_us:
                    ls.session(root).tuned = BestConfig(
                        config=ev.best,
                        best_us=ev.best_us,
                        baseline_us=ev.baseline_us,
                        cases=[c.name for c in tuner.cases],
                    )
                    ls.publish(root, analysis)
        except asyncio.CancelledError:
            tuner.stop()  # the search stops after the measurements in flight; results stay in the cache
            _end(ls, token, "cancelled")
            recorder.done = recorder.stopped = True  # the view stops saying "running"
            ls.show_convergence(root, recorder.payload())
            raise
        finally:
            await asyncio.to_thread(thread.join)
            cache.close()
        result = tuner.result()
        recorder.finish(result)
        ls.show_convergence(root, recorder.payload())
        _end(ls, token, f"best {result.best_us:.1f} µs ({result.speedup:.2f}x)" if result.speedup else "done")
        return result.model_dump(mode="json", exclude={"space"})


def _learn(ls: TilewiseServer, root: str, case, run: StoredRun) -> None:
    """Keep this run to compare the next one of its case with; when an earlier run of the case on other sources is
    held, learn from the two on a worker thread (a correct, faster run after the user's edit joins their bank)."""
    session = ls.session(root)
    earlier = session.runs.get(case.name)
    session.runs[case.name] = run
    if earlier is None or earlier.texts == run.texts:
        return
    settings = ls.state.settings
    try:
        job = asyncio.ensure_future(
            asyncio.to_thread(learn_from_user, root, earlier, run, case, device=settings.device, chip=settings.chip)
        )
    except Exception:  # learning never fails the run
        log.exception("could not start learning from the runs of %s", root)
        return
    _learning.add(job)
    job.add_done_callback(_learning.discard)


def _progress_text(ev) -> str:
    best = f", best {ev.best_us:.1f} µs" if ev.best_us else ""
    screened = f", {ev.screened} screened out" if ev.screened else ""  # refused unmeasured: not in the budget
    return f"{ev.evaluations}/{ev.budget} configurations{best}{screened}"
