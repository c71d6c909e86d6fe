"""ub-resident: the rewind sends the output tile through GM and back before its store, which mining records (still
correct, much slower); detect finds the spill and reload and its edit deletes them again."""

from __future__ import annotations

from motif_kit import run_all, variant, with_edits

from tilewise.analysis.motifs import MOTIFS, MotifContext
from tilewise.analysis.operator import Operator, load_operator
from tilewise.search.bank.mine import mine_operator

MOTIF = MOTIFS["ub-resident"]
CASES = """[[cases]]
name = "small"
[cases.inputs.x]
shape = [8, 1024]
dtype = "float32"
[cases.inputs.y]
shape = [8, 1024]
dtype = "float32"
[cases.attrs]
alpha = 0.5
"""


def _kernel(op: Operator) -> str:
    return next(p for p in op.sources if p.endswith("op_kernel/axpy_custom.cpp"))


def test_the_round_trip_is_mined_and_detect_removes_it(example_copy, device, tmp_path):
    fast = load_operator(example_copy("axpy", CASES))
    [rw] = MOTIF.rewind(MotifContext(fast))
    slow_text = rw.texts[_kernel(fast)]
    assert "DataCopy(zLocal, zGm[offset], len);" in slow_text and "WaitFlag<HardEvent::MTE2_MTE3>" in slow_text
    report = mine_operator(fast, device, motifs=[MOTIF.id])
    assert report.skipped is None
    assert [t.description for t in report.trajectories] == [rw.description], report.rejected
    assert report.trajectories[0].speedup >= 1.1

    slow = variant(fast, rw.texts, tmp_path / "slow")
    [site] = MOTIF.detect(MotifContext(slow))
    assert site.edits is not None and "stay in UB" in site.why
    fixed = with_edits(slow, site.edits, tmp_path / "fixed")
    assert fixed.sources[_kernel(fixed)].text == fast.sources[_kernel(fast)].text
    run_all(device, fixed)


def test_no_site_without_a_round_trip_and_no_edit_when_the_reload_feeds_another_tile(example_copy, tmp_path):
    fast = load_operator(example_copy("axpy", CASES))
    assert MOTIF.detect(MotifContext(fast)) == []
    kernel = _kernel(fast)
    [rw] = MOTIF.rewind(MotifContext(fast))
    other = rw.texts[kernel].replace("DataCopy(zLocal, zGm[offset], len);", "DataCopy(tmpLocal, zGm[offset], len);")
    op = variant(fast, {kernel: other}, tmp_path / "other")
    [site] = MOTIF.detect(MotifContext(op))
    assert site.edits is None and "needs a person" in site.why
    # an atomic-add store accumulates: storing twice would add twice, so there is no rewind
    atomic = load_operator(example_copy("column_sum_atomic", '[[cases]]\nname = "a"\n'))
    assert MOTIF.rewind(MotifContext(atomic)) == []


def test_a_kernel_invocation_program_is_rewound_and_mined_too(example_copy, device):
    # the program's own `<<<>>>` launch sits at other offsets in the rewound text: the build re-reads it there
    cases = """[[cases]]
name = "small"
[cases.inputs.x]
shape = [8, 1024]
dtype = "float32"
[cases.inputs.y]
shape = [8, 1024]
dtype = "float32"
"""
    fast = load_operator(example_copy("kernel_invocation_add", cases))
    assert fast.model.layout == "invocation"
    report = mine_operator(fast, device, motifs=[MOTIF.id])
    assert report.skipped is None and len(report.trajectories) == 1, report.rejected


def test_the_round_trip_spelled_with_the_api_namespace_is_found_and_removed(example_copy, tmp_path):
    """The same spill and reload written `AscendC::DataCopy`, `AscendC::SetFlag<AscendC::HardEvent::...>` (as code
    outside a `using namespace AscendC` writes it): the same site and the same edit."""
    fast = load_operator(example_copy("axpy", CASES))
    [rw] = MOTIF.rewind(MotifContext(fast))
    kernel = _kernel(fast)
    fast_text = fast.sources[kernel].text
    slow_text = rw.texts[kernel]
    qualified = (
        slow_text.replace("DataCopy(zLocal, zGm[offset], len);", "AscendC::DataCopy(zLocal, zGm[offset], len);")
        .replace("SetFlag<HardEvent::", "AscendC::SetFlag<AscendC::HardEvent::")
        .replace("WaitFlag<HardEvent::", "AscendC::WaitFlag<AscendC::HardEvent::")
    )
    assert qualified != slow_text and "AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>" in qualified
    slow = variant(fast, {kernel: qualified}, tmp_path / "slow")
    [site] = MOTIF.detect(MotifContext(slow))
    assert site.edits is not None
    fixed = with_edits(slow, site.edits, tmp_path / "fixed")
    assert fixed.sources[_kernel(fixed)].text == fast_text
