"""A run's pipeline timeline as a chart payload: per core, each pipe's instructions (named by their call site, with
their bytes and repeats) and its idle gaps (with what held them), from the trace the run wrote
(device/trace.py). Call sites and causes are interned, so a row is a handful of numbers and a run of hundreds of
thousands of instructions still makes a payload a browser can draw; past `max_events` the later cores are left out
and the payload says so (`truncated`)."""

from __future__ import annotations

from pathlib import Path

from tilewise.device.protocol import Measurement
from tilewise.device.trace import PipelineTrace, TraceEvent, TraceWait, read_trace
from tilewise.report.payloads import PIPES, TimelineCore, TimelinePayload, TimelineSite

MAX_EVENTS = 200_000  # instructions and idle gaps together, over every core


def timeline_payload(
    trace_path: str | Path,
    measurement: Measurement | None,
    operator_name: str,
    case_name: str | None,
    max_events: int = MAX_EVENTS,
) -> TimelinePayload:
    """The timeline of the run that wrote `trace_path`; `measurement` (that run's) gives the whole run's time, the
    launch overhead and the blocks. Raises device.trace.TraceError (a TilewiseError) for an unreadable trace."""
    trace = read_trace(trace_path)
    m = measurement
    payload = TimelinePayload(
        operator=operator_name,
        case=case_name,
        chip=m.chip if m else None,
        time_us=m.time_us if m else None,
        launch_us=m.launch_us if m else None,
        block_dim=m.block_dim if m else None,
        core_count=(m.block_dim if m and m.block_dim else None) or trace.cores,
        truncated=trace.truncated,
    )
    _fill(payload, trace, max_events)
    return payload


def _fill(payload: TimelinePayload, trace: PipelineTrace, max_events: int) -> None:
    sites: dict[tuple[str, str, int], int] = {}
    causes: dict[str, int] = {}
    pipe_index = {name: i for i, name in enumerate(PIPES)}
    events: dict[int, list[TraceEvent]] = {}
    waits: dict[int, list[TraceWait]] = {}
    for e in trace.events:
        events.setdefault(e.core, []).append(e)
    for w in trace.waits:
        waits.setdefault(w.core, []).append(w)
    room = max_events
    for core in sorted(set(events) | set(waits) | set(range(len(trace.ends_us)))):
        if room <= 0:  # the cap: this core and those after it are left out
            payload.truncated = True
            break
        evs, ws = events.get(core, []), waits.get(core, [])
        if len(evs) + len(ws) > room:  # the core that reaches the cap keeps what started before its room-th start
            cutoff = sorted([e.start_us for e in evs] + [w.start_us for w in ws])[room]
            evs, ws = [e for e in evs if e.start_us < cutoff], [w for w in ws if w.start_us < cutoff]
            payload.truncated = True
        room -= len(evs) + len(ws)
        row = TimelineCore(core=core, end_us=_end(trace, core, evs, ws))
        for e in sorted(evs, key=lambda e: e.start_us):
            site = sites.setdefault((e.api, e.file, e.line), len(sites))
            row.events.append((pipe_index[e.pipe], e.start_us, e.dur_us, site, e.bytes, e.repeats))
        for w in sorted(ws, key=lambda w: w.start_us):
            row.waits.append((pipe_index[w.pipe], w.start_us, w.dur_us, causes.setdefault(w.describe(), len(causes))))
        payload.cores.append(row)
    payload.sites = [TimelineSite(api=api, file=file, line=line) for api, file, line in sites]
    payload.causes = list(causes)


def _end(trace: PipelineTrace, core: int, evs: list[TraceEvent], ws: list[TraceWait]) -> float:
    """When the core's last pipe finished: the trace's figure, else the end of its last event."""
    if core < len(trace.ends_us):
        return trace.ends_us[core]
    return max([e.start_us + e.dur_us for e in evs] + [w.start_us + w.dur_us for w in ws], default=0.0)
