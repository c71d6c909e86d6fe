"""Custom requests `tilewise/run` and `tilewise/tune`: long jobs as requests so `$/cancelRequest` cancels them
(pygls does not cancel executeCommand handlers). Both report `window/workDoneProgress`. A tune streams each
improvement as an Information diagnostic on the knob's literal, with an "Apply" code action; a run's compile or
sanitizer error appears as an Error diagnostic at the user's line."""

from __future__ import annotations

import asyncio
import threading
import uuid

from lsprotocol import types

from analysis.rewrite import changed_knobs, knob_edit
from server.lsp.convert import lsp_range, workspace_edit
from server.lsp.state import uri_to_path


def _get(params, key, default=None):
    if params is None:
        return default
    if isinstance(params, dict):
        return params.get(key, default)
    return getattr(params, key, default)


def _cases(op, name):
    if op.manifest and op.manifest.cases:
        return [op.manifest.case(name)] if name else list(op.manifest.cases)
    raise ValueError("the operator has no tilewise.toml with shape cases; add one to run or tune it")


async def _progress(ls, title: str):
    token = str(uuid.uuid4())
    try:
        await ls.work_done_progress.create_async(token)
        ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, cancellable=True))
        return token
    except Exception:  # noqa: BLE001 - a client without progress support still gets the result
        return None


def _report(ls, token, message: str, percentage: int | None = None) -> None:
    if token:
        ls.work_done_progress.report(token, types.WorkDoneProgressReport(message=message, percentage=percentage))


def _end(ls, token, message: str) -> None:
    if token:
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))


def _error_diagnostic(analysis, m) -> list[dict]:
    e = m.error
    if e is None or not e.file or not e.line or e.file not in analysis.op.sources:
        return []
    sf = analysis.op.sources[e.file]
    line = sf.line_text(e.line)
    start = sf.offset_of_line_col(e.line, len(line) - len(line.lstrip()) + 1)
    end = sf.offset_of_line_col(e.line, len(line) + 1)
    return [{"file": e.file, "diagnostic": types.Diagnostic(
        range=lsp_range(sf, start, end), message=f"{e.kind}: {e.message}", severity=types.DiagnosticSeverity.Error,
        source="tilewise emulator", code=e.kind)}]


def register(server) -> None:
    from device.emulator import EmulatorDevice
    from server.lsp.features.diagnostics import publish

    @server.feature("tilewise/run")
    async def run(ls, params):
        uri = _get(params, "uri")
        analysis = await ls.analysis_for(uri)
        if analysis is None:
            raise ValueError(f"{uri_to_path(uri)} is not inside an AscendC operator")
        op = analysis.op
        root = str(op.project.root)
        cases = _cases(op, _get(params, "case"))
        token = await _progress(ls, f"Running {op.model.operator} on the emulator")
        device = EmulatorDevice(chip=ls.state.settings.chip)
        _report(ls, token, f"case {cases[0].name}")
        m = await asyncio.to_thread(device.run, op, cases[0], trace_path=_get(params, "trace"))
        ls.state.last_run[root] = m
        ls.state.tuned.setdefault(root, {})["diagnostics"] = _error_diagnostic(analysis, m)
        publish(ls, root, analysis)
        _end(ls, token, f"{m.time_us:.1f} µs" if m.time_us is not None else (m.error.kind if m.error else "done"))
        return m.model_dump(mode="json")

    @server.feature("tilewise/tune")
    async def tune(ls, params):
        from device.emulator.build import default_cache_dir
        from search.cache import ResultsCache
        from search.tuner import Tuner

        uri = _get(params, "uri")
        analysis = await ls.analysis_for(uri)
        if analysis is None:
            raise ValueError(f"{uri_to_path(uri)} is not inside an AscendC operator")
        op = analysis.op  # the tune keeps this snapshot whatever the user types meanwhile
        root = str(op.project.root)
        settings = ls.state.settings
        device = EmulatorDevice(chip=settings.chip)
        cache = ResultsCache(default_cache_dir() / "results.sqlite")
        tuner = Tuner(op, device, _cases(op, _get(params, "case")), cache=cache,
                      strategy=_get(params, "strategy", settings.strategy),
                      budget=int(_get(params, "budget", settings.budget)))
        token = await _progress(ls, f"Tuning {op.model.operator}")
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()

        def produce():
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
                if ev.kind == "improved" and ev.trial and ev.trial.index > 0:
                    _stream_improvement(ls, analysis, root, ev)
                    publish(ls, root, analysis)
        except asyncio.CancelledError:
            tuner.stop()  # the search stops after the measurements in flight; results stay in the cache
            _end(ls, token, "cancelled")
            raise
        finally:
            await asyncio.to_thread(thread.join)
            cache.close()
        result = tuner.result()
        _end(ls, token, f"best {result.best_us:.1f} µs ({result.speedup:.2f}x)" if result.speedup else "done")
        return result.model_dump(mode="json", exclude={"space"})


def _progress_text(ev) -> str:
    best = f", best {ev.best_us:.1f} µs" if ev.best_us else ""
    return f"{ev.evaluations}/{ev.budget} configurations{best}"


def _stream_improvement(ls, analysis, root: str, ev) -> None:
    """An Information diagnostic on each changed knob's literal, with an Apply action for the whole config."""
    from analysis.findings import Fix

    op = analysis.op
    changed = [k for k in changed_knobs(op.model, ev.best) if k.file in op.sources]
    if not changed:
        return
    summary = ", ".join(f"{k.name}={ev.best[k.name]}" for k in changed)
    speed = ev.baseline_us / ev.best_us if ev.baseline_us else 1.0
    message = f"{summary}: {speed:.2f}x faster ({ev.best_us:.1f} µs vs {ev.baseline_us:.1f} µs)"
    fix = Fix(title=f"Apply tuned tiling: {message}", edits=[knob_edit(k, ev.best[k.name]) for k in changed])
    action = types.CodeAction(title=fix.title, kind=types.CodeActionKind.QuickFix,
                              edit=workspace_edit(op.sources, fix))
    entry = ls.state.tuned.setdefault(root, {})
    entry["diagnostics"] = []
    entry["actions"] = []
    for k in changed:
        rng = lsp_range(op.sources[k.file], k.literal.start, k.literal.end)
        entry["diagnostics"].append({"file": k.file, "diagnostic": types.Diagnostic(
            range=rng, message=message, severity=types.DiagnosticSeverity.Information, source="tilewise tune",
            code="tuned-tiling")})
        entry["actions"].append({"file": k.file, "range": rng, "action": action})
