"""Custom requests `tilewise/run` and `tilewise/tune`: long jobs as requests so `$/cancelRequest` cancels them
(pygls does not cancel executeCommand handlers). Both start from the session of session/builder.py and run as jobs
of lsp/jobs.py (`window/workDoneProgress`, cancel, one tune per operator; a newer run supersedes an older one). A
tune streams each improvement as an Information diagnostic on the knob's literal, with an "Apply" code action; a
run's compile or sanitizer error appears as an Error diagnostic at the user's line. A run of a case that follows an
earlier run of it on other sources may teach the user's experience bank (lsp/bank.py), in the background."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from tilewise.analysis.model_error import likely_range
from tilewise.device.protocol import RunRequest
from tilewise.device.sites import per_line
from tilewise.lsp.bank import StoredRun, learn_from_user
from tilewise.lsp.jobs import Job
from tilewise.lsp.params import RunParams, TuneParams, validated
from tilewise.lsp.results import run_items, tune_items
from tilewise.lsp.state import RunLines
from tilewise.lsp.traces import discard, new_trace_path
from tilewise.report.convergence import ConvergenceRecorder
from tilewise.search.cache import BestConfig
from tilewise.session.builder import Session, SessionRequest, TuneOptions, build_session

if TYPE_CHECKING:
    from tilewise.lsp.server import TilewiseServer
    from tilewise.search.tuner import TuneResult

log = logging.getLogger("tilewise.lsp")
_learning: set[asyncio.Future] = set()  # the background learning jobs, held until they end


def _prepare(ls: TilewiseServer, analysis, case: str | None, timeout_s: float | None = None) -> Session:
    """The session a run or tune starts from (session/builder.py): the analysed operator as it is now (the job keeps
    this snapshot whatever the user types meanwhile), its manifest's cases (only `case` when given), and the device
    of the settings (TilewiseServer.device, which refuses in an untrusted workspace)."""
    op = analysis.op
    request = SessionRequest(str(op.project.root), cases=(case,) if case else (), manifest_purpose="to run or tune it")
    return build_session(request, op=op, device=ls.device(timeout_s=timeout_s))


def register(server: TilewiseServer) -> None:
    server.item_providers.extend([tune_items, run_items])  # this feature's diagnostics: the best tune, the run's errors

    @server.feature("tilewise/run")
    @validated("tilewise/run", RunParams)
    async def run(ls: TilewiseServer, params: RunParams) -> dict[str, Any]:
        ls.require_trust("tilewise/run")  # features/trust.py
        analysis = await ls.operator_analysis(params.uri)
        prepared = _prepare(ls, analysis, params.case, params.timeout)
        op, device, case, root = prepared.op, prepared.device, prepared.case, prepared.root
        texts = {p: sf.text for p, sf in op.sources.items()}  # as the run starts: what it measures
        trace = params.trace or new_trace_path(op.model.operator)  # the timeline view draws the last run's trace

        def measure(job: Job):
            return device.run(op, RunRequest(case, trace_path=trace, sites=True))

        try:
            m = await ls.jobs.run(
                "run",
                root,
                f"Running {op.model.operator} on the emulator",
                measure,
                token=params.work_done_token,
                busy="supersede",  # a newer run is what the user asked for; this one's result would be stale
                on_start=lambda job: job.report(f"case {case.name}"),
                done=_run_end,
            )
        except asyncio.CancelledError:  # the run's subprocess has ended (it is bounded by the device's timeout)
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
        _learn(ls, root, case, StoredRun(texts, m))
        span = likely_range(m.time_us)
        return {**m.model_dump(mode="json"), "time_range_us": list(span) if span else None}

    @server.feature("tilewise/tune")
    @validated("tilewise/tune", TuneParams)
    async def tune(ls: TilewiseServer, params: TuneParams) -> dict[str, Any]:
        from tilewise.search.cache import ResultsCache, default_results_path

        ls.require_trust("tilewise/tune")
        analysis = await ls.operator_analysis(params.uri)
        settings = ls.state.settings
        prepared = _prepare(ls, analysis, params.case)
        op, root = prepared.op, prepared.root
        cache = ResultsCache(default_results_path())
        options = TuneOptions(strategy=params.strategy or settings.strategy, budget=params.budget or settings.budget)
        try:
            tuner = prepared.tuner(options, cache=cache)
        except Exception:
            cache.close()
            raise
        recorder = ConvergenceRecorder(
            op.model.operator, tuner.strategy_name, tuner.budget, cases=[c.name for c in tuner.cases]
        )

        def search(job: Job) -> TuneResult:  # on the worker thread
            for ev in tuner.events():
                job.report(_progress_text(ev), int(100 * ev.evaluations / max(ev.budget, 1)))
                job.post(ev)
            return tuner.result()

        def improved(ev) -> None:  # on the event loop, each event in order
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

        def stopped() -> None:  # cancelled: the search stops after the measurements in flight (kept in the cache)
            tuner.stop()
            recorder.done = recorder.stopped = True  # the view stops saying "running"
            ls.show_convergence(root, recorder.payload())

        def finished(result: TuneResult) -> str:
            recorder.finish(result)
            ls.show_convergence(root, recorder.payload())
            return f"best {result.best_us:.1f} µs ({result.speedup:.2f}x)" if result.speedup else "done"

        result = await ls.jobs.run(
            "tune",
            root,
            f"Tuning {op.model.operator}",
            search,
            token=params.work_done_token,
            on_item=improved,
            on_stop=stopped,
            cleanup=cache.close,
            done=finished,
        )
        return result.model_dump(mode="json", exclude={"space"})


def _run_end(m) -> str:
    return f"{m.time_us:.1f} µs" if m.time_us is not None else (m.error.kind if m.error else "done")


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
