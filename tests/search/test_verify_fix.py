"""The fix verifier's verdict when there is nothing to run, on a fake device (tests/search/fakes.py), no g++. (Fixes
run before and after on the emulator are tested in tests/emulator/test_verify_fix_on_emulator.py.)"""

from __future__ import annotations

from fakes import FakeDevice
from opgen import SCALE_GOLDEN, scale_manifest, write_operator

from tilewise.analysis.findings import Fix, TextEdit
from tilewise.analysis.operator import load_operator
from tilewise.device.protocol import Measurement
from tilewise.search.verify_fix import CaseVerdict, FixVerdict, verify_fix


def test_no_case_proves_nothing(tmp_path):
    root = write_operator(tmp_path / "op", manifest=scale_manifest(786432))
    (root / "golden.py").write_text(SCALE_GOLDEN)
    op = load_operator(root)
    kernel = next(p for p in op.sources if p.endswith("scale.cpp") and "op_kernel" in p)
    sf = op.sources[kernel]
    start = sf.data.index(b"(half)2.0")
    end = start + len(b"(half)2.0")
    (line, col), (end_line, end_col) = sf.line_col(start), sf.line_col(end)
    edit = TextEdit(
        file=kernel, line=line, col=col, end_line=end_line, end_col=end_col, new_text="(half)3.0", start=start, end=end
    )
    device = FakeDevice(lambda knobs: Measurement(ok=True, correct=True, time_us=1.0))
    verdict = verify_fix(op, Fix(title="2 -> 3", safe=False, edits=[edit]), device, [])
    assert not verdict.checked and not verdict.correct
    assert "no case" in verdict.message()
    assert device.runs == []  # nothing was run


def test_a_gain_within_the_model_error_for_its_kind_says_so(monkeypatch):
    import tilewise.analysis.model_error as model_error

    error = model_error.ModelError(
        source="test",
        overall=model_error.KindError(factor=1.3, cases=10),
        kinds={"tile-size": model_error.KindError(factor=1.1, cases=3)},
    )
    monkeypatch.setattr(model_error, "load_model_error", lambda: error)

    def verdict(before: float, after: float, kinds: list[str]) -> FixVerdict:
        case = CaseVerdict("c", ran=True, correct=True, before_us=before, after_us=after)
        return FixVerdict("fix", cases=[case], kinds=kinds)

    small = verdict(105.0, 100.0, model_error.kinds_of_rule("small-copy"))  # 1.05x, a tile-size change
    assert small.uncertain and "tile-size changes (1.10x)" in small.uncertain
    assert "verify on hardware" in small.message()
    assert verdict(150.0, 100.0, ["tile-size"]).uncertain is None  # 1.5x: beyond the error
    # a rule with no kind is held to the overall error
    assert "1.30x" in (verdict(120.0, 100.0, model_error.kinds_of_rule("missing-aicore")).uncertain or "")
