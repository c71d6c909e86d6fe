"""Mining's own logic on a fake device whose time and correctness follow the sources' text (no g++): a rewind is
kept only when the kernel stays correct and gets at least 3% slower; a failing kernel teaches nothing."""

from __future__ import annotations

from opgen import SCALE_GOLDEN, scale_manifest, write_operator

from tilewise.analysis.chip import load_chip
from tilewise.analysis.operator import load_operator
from tilewise.device.protocol import Measurement, PipeUse
from tilewise.search.bank.mine import mine_operator


class TextDevice:
    """Times and verdicts decided by the kernel's text: `slow` maps a substring to the factor it costs, `broken`
    substrings make the run wrong."""

    name = "fake"

    def __init__(self, slow: dict[str, float], broken: tuple[str, ...] = ()):
        self.chip = load_chip(None)
        self.slow, self.broken = slow, broken
        self.runs = 0

    def run(self, op, request):
        self.runs += 1
        case, texts = request.case, request.texts
        text = "".join((texts or {p: sf.text for p, sf in op.sources.items()}).values())
        if any(b in text for b in self.broken):
            return Measurement(ok=True, correct=False, case=case.name, time_us=1.0)
        time = 10.0
        for needle, factor in self.slow.items():
            if needle in text:
                time *= factor
        pipes = {"mte2": PipeUse(busy_us=time * 0.8, ratio=0.8), "vector": PipeUse(busy_us=1.0, ratio=0.1)}
        return Measurement(ok=True, correct=True, case=case.name, time_us=time, bottleneck="mte2", pipes=pipes)

    def screen(self, *a, **k):  # pragma: no cover - mining never screens
        raise AssertionError


def _op(tmp_path):
    root = write_operator(tmp_path / "scale", manifest=scale_manifest(4096))
    (root / "golden.py").write_text(SCALE_GOLDEN)
    return load_operator(root)


def test_a_rewind_that_slows_the_kernel_and_keeps_it_correct_is_recorded(tmp_path):
    device = TextDevice({"BUFFER_NUM = 1": 1.25})
    report = mine_operator(_op(tmp_path), device, motifs=["double-buffer"])
    [t] = report.trajectories
    assert t.motif == "double-buffer" and t.speedup == 1.25 and t.description == "BUFFER_NUM 2 -> 1"
    assert "-constexpr int32_t BUFFER_NUM = 1;" in t.diff and "+constexpr int32_t BUFFER_NUM = 2;" in t.diff
    assert t.slow.time_us == 12.5 and t.fast.time_us == 10.0 and t.features.bottleneck == "mte2"
    assert "Muls" in t.features.apis and t.features.loop_depth == 1 and t.features.dtypes == ["float16"]


def test_a_rewind_that_costs_under_three_percent_records_nothing(tmp_path):
    report = mine_operator(_op(tmp_path), TextDevice({"BUFFER_NUM = 1": 1.02}), motifs=["double-buffer"])
    assert report.trajectories == []
    assert "1.020x slower (under 1.03x)" in report.rejected[0].reason


def test_a_rewind_that_breaks_the_kernel_records_nothing(tmp_path):
    device = TextDevice({"PipeBarrier": 2.0}, broken=("PipeBarrier<PIPE_ALL>",))
    report = mine_operator(_op(tmp_path), device, motifs=["pipe-sync"])
    assert report.trajectories == [] and report.rejected[0].reason.startswith("breaks case small")


def test_an_operator_failing_as_shipped_is_skipped_with_the_reason(tmp_path):
    device = TextDevice({}, broken=("Muls",))
    report = mine_operator(_op(tmp_path), device)
    assert report.trajectories == [] and report.skipped and "case small fails as shipped" in report.skipped
    assert device.runs == 1  # nothing rewound once the shipped kernel failed


def test_mining_again_through_the_cache_runs_nothing(tmp_path):
    from tilewise.search.cache import ResultsCache

    cache = ResultsCache(tmp_path / "results.sqlite")
    op = _op(tmp_path)
    first = TextDevice({"BUFFER_NUM = 1": 1.25})
    mine_operator(op, first, motifs=["double-buffer"], cache=cache)
    again = TextDevice({"BUFFER_NUM = 1": 1.25})
    report = mine_operator(op, again, motifs=["double-buffer"], cache=cache)
    assert first.runs == 2 and again.runs == 0 and len(report.trajectories) == 1
