"""Reading back the pipeline trace an emulator run wrote (`RunRequest.trace_path`, the runner's
tw/timing/trace_files.h `write_chrome_trace`): each pipe's instructions with their call site, bytes and repeats, and
each pipe's idle gaps with what held them. The file stays a plain Chrome trace (people open it in Perfetto); this reads
it into plain records for the timeline chart (server/report/timeline.py).

Call sites name the user's files as they are: the build mirrors each source behind a `#line` marker naming its
path (device/emulator/build.py), so a trace's `file` is the same absolute path as `Measurement.sites` and the
analysis' locations, and needs no mapping.

A file that is missing, cut short (a run killed while writing it), from another tool, or otherwise malformed raises
`TraceError`: one line naming the file.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from tilewise.analysis.errors import TilewiseError

PIPES = ("SCALAR", "VECTOR", "MTE2", "MTE3")  # a trace's thread id is an index into this


class TraceError(TilewiseError):
    """A pipeline trace that cannot be read."""


@dataclass(frozen=True, slots=True)
class TraceEvent:
    """One instruction on one pipe of one core (a block)."""

    core: int
    pipe: str  # one of PIPES
    start_us: float  # kernel-relative: 0 = the kernel starts, launch overhead excluded
    dur_us: float
    api: str
    file: str  # the user's source file, absolute
    line: int
    bytes: int
    repeats: int


@dataclass(frozen=True, slots=True)
class TraceWait:
    """An idle gap of one pipe, with what held its next instruction back (tw/timing/model.h `WaitKind`)."""

    core: int
    pipe: str
    start_us: float
    dur_us: float
    cause: (
        str  # DeQue, AllocTensor, WaitFlag, PipeBarrier, SetValue, ScalarAccess, PipeBarrier<PIPE_ALL>, SyncAll, Issue
    )
    on: str = ""  # the pipe it waited on, "" when none
    via_scalar: bool = False  # the scalar unit stalled there, so this pipe was given nothing to do

    def describe(self) -> str:
        """The cause as the timeline's legend says it, e.g. "DeQue: waits for MTE2's data"."""
        what = _SENTENCES.get(self.cause)
        text = what(self.on) if what else f"{self.cause}: waits" + (f" for {self.on}" if self.on else "")
        if self.via_scalar:  # "DeQue on the scalar unit: waits for MTE2's data"
            head, _, rest = text.partition(": ")
            text = f"{head} on the scalar unit: {rest}"
        return text


_SENTENCES = {
    "DeQue": lambda on: f"DeQue: waits for {on}'s data" if on else "DeQue: waits for the queue's data",
    "AllocTensor": lambda on: (
        f"AllocTensor: waits for {on} to free the buffer" if on else "AllocTensor: waits for the buffer to be freed"
    ),
    "WaitFlag": lambda on: f"WaitFlag: waits for {on}'s SetFlag" if on else "WaitFlag: waits for its SetFlag",
    "PipeBarrier": lambda on: "PipeBarrier<PIPE_V>: waits for earlier vector instructions to complete",
    "SetValue": lambda on: "SetValue: waits for the scalar write to land",
    "ScalarAccess": lambda on: (
        f"GetValue/SetValue: waits for {on} to complete" if on else "GetValue/SetValue: waits for the pipes"
    ),
    "PipeBarrier<PIPE_ALL>": lambda on: (
        f"PipeBarrier<PIPE_ALL>: waits for every pipe to drain ({on} last)"
        if on
        else "PipeBarrier<PIPE_ALL>: waits for every pipe to drain"
    ),
    "SyncAll": lambda on: "SyncAll: waits for every core",
    "Issue": lambda on: "waits for the scalar unit to issue",
}


@dataclass(slots=True)
class PipelineTrace:
    path: str
    cores: int  # the blocks the run had, whether or not all are in the file
    truncated: bool  # the runner's event cap cut it: later events (and cores) are missing
    ends_us: list[float] = field(default_factory=list)  # per core in the file: when its last pipe finished
    events: list[TraceEvent] = field(default_factory=list)
    waits: list[TraceWait] = field(default_factory=list)


def read_trace(path: str | Path) -> PipelineTrace:
    """The trace at `path`; raises TraceError."""
    path = str(path)
    try:
        text = Path(path).read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        raise TraceError(path, 0, f"cannot read the pipeline trace: {exc.strerror or exc}") from None
    if text.startswith("names\t"):  # tw/runtime/invocation.h's TW_TRACE: a kernel-invocation program's records
        raise TraceError(
            path, 0, "a kernel-invocation program's record trace, not a pipeline trace: its launches are not traced"
        )
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        raise TraceError(
            path, 0, f"not a whole pipeline trace (the run may have stopped while writing it): {exc}"
        ) from None
    meta = data.get("tilewise") if isinstance(data, dict) else None
    if not isinstance(meta, dict) or not isinstance(data.get("traceEvents"), list):
        raise TraceError(
            path, 0, "not a tilewise pipeline trace (no `tilewise` summary): run the operator again with a trace"
        )
    try:
        trace = PipelineTrace(
            path=path,
            cores=int(meta["cores"]),
            truncated=bool(meta["truncated"]),
            ends_us=[_number(t) for t in meta.get("ends_us", [])],
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise TraceError(path, 0, f"malformed `tilewise` summary in the pipeline trace: {_why(exc)}") from None
    names: dict[str, str] = {}  # one string per file and API, not one per event
    for i, e in enumerate(data["traceEvents"]):
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue  # metadata (process and thread names)
        try:
            _read_event(e, trace, names)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise TraceError(path, 0, f"malformed pipeline trace event {i + 1}: {_why(exc)}") from None
    return trace


def _read_event(e: dict, trace: PipelineTrace, names: dict[str, str]) -> None:
    core, pipe = int(e["pid"]), PIPES[int(e["tid"])]
    start, dur = float(e["ts"]), float(e["dur"])
    if not math.isfinite(start + dur):
        raise ValueError(f"times {e['ts']!r}, {e['dur']!r} are not finite")
    args = e["args"]
    if e.get("cat") == "wait":
        wait = TraceWait(core, pipe, start, dur, str(args["cause"]), str(args["on"]), args.get("via") == "SCALAR")
        trace.waits.append(wait)
    else:
        file = names.setdefault(args["file"], str(args["file"]))
        api = names.setdefault(args["api"], str(args["api"]))
        event = TraceEvent(
            core, pipe, start, dur, api, file, int(args["line"]), int(args["bytes"]), int(args["repeats"])
        )
        trace.events.append(event)


def _why(exc: Exception) -> str:
    return f"missing {exc}" if isinstance(exc, KeyError) else str(exc)


def _number(value: object) -> float:
    x = float(value)  # type: ignore[arg-type]  # a wrong type raises TypeError, caught by the caller
    if not math.isfinite(x):
        raise ValueError(f"{value!r} is not a finite time")
    return x
