"""The pipeline trace a run writes (tw/timing/trace_files.h), read back (device/trace.py) and made into the timeline
payload (server/report/timeline.py): a valid Chrome trace whose events carry their call site, bytes and repeats;
idle gaps that mean something (the single-buffered add waits on its buffers where its double-buffered twin does
not); tracing that changes no time; a payload that stays consistent when capped; and one clear error for a trace
that is cut short or malformed.

Two builds: the double-buffered add_custom, and its single-buffered twin copied under a folder whose name holds a
quote and a backslash, so the trace's file paths need escaping."""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from pathlib import Path

import pytest
from paths import EXAMPLES

from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import RunRequest
from tilewise.device.trace import PIPES, TraceError, read_trace
from tilewise.report.payloads import TimelinePayload
from tilewise.report.timeline import timeline_payload

# One worker runs this module (--dist loadgroup) and its session fixture compiles there once, whatever runs between.
pytestmark = pytest.mark.xdist_group("test_timeline_trace")

CASE = "fp16_large"  # 48 blocks of 16 tiles: enough tiles for the buffering to show
SINGLE = Path('we"ird\\dir') / "add_custom_slow_single_buffer"


def _run(root: Path, trace: Path | None, cache: Path):
    op = load_operator(root)
    m = EmulatorDevice(cache_dir=cache).run(
        op, RunRequest(op.manifest.case(CASE), trace_path=str(trace) if trace else None, sites=True)
    )
    assert m.ok and m.correct, m.error
    return m


@pytest.fixture(scope="session")
def runs(emu_cache, needs_gxx, tmp_path_factory):
    """(measurement, trace path) of the double- and the single-buffered add, and the single one run untraced."""
    tmp = tmp_path_factory.mktemp("timeline")
    single = tmp / SINGLE
    shutil.copytree(EXAMPLES / "add_custom_slow_single_buffer", single)
    out = {}
    for name, root in (("double", EXAMPLES / "add_custom"), ("single", single)):
        trace = tmp / f"{name}.json"
        out[name] = (_run(root, trace, emu_cache), trace)
    out["untraced"] = (_run(single, None, emu_cache), None)
    return out


def test_the_trace_is_a_chrome_trace_with_call_sites_bytes_and_repeats(runs):
    m, path = runs["single"]
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["tilewise"]["cores"] == m.block_dim == 48 and data["tilewise"]["truncated"] is False
    slices = [e for e in data["traceEvents"] if e["ph"] == "X"]
    assert slices and all({"pid", "tid", "ts", "dur", "name", "cat"} <= e.keys() for e in slices)
    events = [e for e in slices if e["cat"] != "wait"]
    # the kernel's own file, as the user has it (under the quote and the backslash)
    assert {e["args"]["file"] for e in events} == {str(path.parent / SINGLE / "op_kernel" / "add_custom.cpp")}
    by_api = defaultdict(set)
    for e in events:
        by_api[(e["args"]["api"], e["cat"])].add((e["args"]["bytes"], e["args"]["repeats"]))
    assert all(b > 0 for b, _ in by_api[("DataCopy", "MTE2")] | by_api[("DataCopy", "MTE3")])
    assert all(r > 0 for _, r in by_api[("Add", "VECTOR")])
    # the same call sites as the run's per-site figures, and the same busy time on each pipe
    sites = {(s.api, s.file, s.line) for s in m.sites if s.pipe != "SCALAR"}
    assert {(e["args"]["api"], e["args"]["file"], e["args"]["line"]) for e in events} == sites
    for pipe in ("VECTOR", "MTE2", "MTE3"):
        busy = sum(e["dur"] for e in events if e["cat"] == pipe)
        assert busy == pytest.approx(m.pipes[pipe.lower()].busy_us, rel=1e-3, abs=1e-3), pipe


def test_tracing_changes_no_time(runs):
    traced, plain = runs["single"][0], runs["untraced"][0]
    assert traced.cycles == plain.cycles and traced.time_us == plain.time_us and traced.pipes == plain.pipes


def test_waits_fill_the_gaps_and_name_what_held_the_pipe(runs):
    waits = {}
    for name in ("single", "double"):
        trace = read_trace(runs[name][1])
        # on each pipe of each core, instructions and idle gaps follow each other without overlapping
        lanes = defaultdict(list)
        for x in [*trace.events, *trace.waits]:
            lanes[(x.core, x.pipe)].append((x.start_us, x.start_us + x.dur_us))
        for spans in lanes.values():
            spans.sort()
            assert all(b[0] >= a[1] - 1e-4 for a, b in zip(spans, spans[1:], strict=False))
        waits[name] = defaultdict(float)
        for w in trace.waits:
            waits[name][(w.pipe, w.cause, w.on)] += w.dur_us
    single, double = waits["single"], waits["double"]
    # one buffer: the next copy-in waits until the Add has freed it, and the Add waits for each copy-in
    assert single[("MTE2", "AllocTensor", "VECTOR")] > 1.0, dict(single)
    assert single[("VECTOR", "DeQue", "MTE2")] > 1.0, dict(single)
    # two buffers: copy-in never waits for a buffer, and the vector pipe waits less for data
    assert double[("MTE2", "AllocTensor", "VECTOR")] == 0.0, dict(double)
    assert double[("VECTOR", "DeQue", "MTE2")] < 0.8 * single[("VECTOR", "DeQue", "MTE2")]


def test_the_payload_interns_sites_and_causes(runs):
    m, path = runs["single"]
    p = timeline_payload(path, m, "AddCustom", CASE)
    trace = read_trace(path)
    assert not p.truncated and p.core_count == len(p.cores) == 48 and p.pipes == list(PIPES)
    assert sum(len(c.events) for c in p.cores) == len(trace.events)
    assert sum(len(c.waits) for c in p.cores) == len(trace.waits)
    assert "AllocTensor: waits for VECTOR to free the buffer" in p.causes
    assert {s.api for s in p.sites} == {"DataCopy", "Add"}
    assert all(Path(s.file).is_file() for s in p.sites)
    assert p.time_us == m.time_us and p.launch_us == m.launch_us and p.chip == m.chip
    assert max(c.end_us for c in p.cores) == pytest.approx(m.time_us - m.launch_us, abs=1e-3)
    assert TimelinePayload.model_validate_json(p.model_dump_json()) == p


def test_a_capped_payload_says_so_and_stays_consistent(runs):
    m, path = runs["double"]
    p = timeline_payload(path, m, "AddCustom", CASE, max_events=300)
    rows = [(r, c) for c in p.cores for r in [*c.events, *c.waits]]
    assert p.truncated and 0 < len(rows) <= 300
    assert p.core_count == 48 > len(p.cores) and [c.core for c in p.cores] == list(range(len(p.cores)))
    assert all(0 <= e[3] < len(p.sites) for c in p.cores for e in c.events)
    assert all(0 <= w[3] < len(p.causes) for c in p.cores for w in c.waits)
    last = p.cores[-1]  # the core that met the cap kept its earliest rows
    full = timeline_payload(path, m, "AddCustom", CASE).cores[len(p.cores) - 1]
    kept = max(r[1] for r in [*last.events, *last.waits])
    assert all(r[1] > kept or r in last.events + last.waits for r in [*full.events, *full.waits])


def test_a_cut_or_malformed_trace_is_one_clear_error(runs, tmp_path):
    text = runs["double"][1].read_text(encoding="utf-8")
    good = json.loads(text)
    bad_event = {**good, "traceEvents": [*good["traceEvents"], {"ph": "X", "pid": 0, "tid": 9, "ts": 0, "dur": 1}]}
    cases = {
        "cut.json": text[: len(text) // 2],
        "empty.json": "",
        "other.json": json.dumps({"traceEvents": []}),
        "summary.json": json.dumps({**good, "tilewise": {"truncated": False}}),
        "event.json": json.dumps(bad_event),
        "list.json": "[1, 2]",
        "invocation.json": "names\tDataCopy\n0 I 2 0 1 49 8192 4096 1 0 0 2 0\n",  # tw/runtime/invocation.h's records
    }
    for name, content in cases.items():
        path = tmp_path / name
        path.write_text(content, encoding="utf-8")
        for read in (read_trace, lambda p: timeline_payload(p, None, "AddCustom", None)):
            with pytest.raises(TraceError) as info:
                read(path)
            message = info.value.one_line()
            assert message.startswith(f"{path}: ") and "\n" not in message, message
    with pytest.raises(TraceError, match="cannot read"):
        read_trace(tmp_path / "missing.json")
