"""whole-reduce: the rewind reduces row by row with one-repeat WholeReduceSum calls; the slowed kernel stays correct,
and detect's edit gives the one WholeReduceSum back. The emulator's timing charges a one-repeat instruction what one
repeat of the whole instruction costs, so mining finds no slowdown to record: the test pins that verdict."""

from __future__ import annotations

import re

from motif_kit import run_all, variant, with_edits

from tilewise.analysis.motifs import MOTIFS, MotifContext
from tilewise.analysis.operator import Operator, load_operator
from tilewise.search.bank.mine import mine_operator

MOTIF = MOTIFS["whole-reduce"]
CASES = """[[cases]]
name = "small"
[cases.inputs.x]
shape = [72, 64]
dtype = "float32"
"""
WHOLE = re.compile(r"WholeReduceSum<float>\(yLocal, xLocal,[^;]*\);")


def _kernel(op: Operator) -> str:
    return next(p for p in op.sources if p.endswith("op_kernel/row_sum.cpp"))


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_per_row_reductions_stay_correct_and_detect_merges_them_again(example_copy, device, tmp_path):
    fast = load_operator(example_copy("row_sum", CASES))
    [rw] = MOTIF.rewind(MotifContext(fast))
    assert "for (int32_t twRow = 0; twRow < static_cast<int32_t>(rows); twRow++)" in rw.texts[_kernel(fast)]
    report = mine_operator(fast, device, motifs=[MOTIF.id])
    assert report.skipped is None and report.trajectories == []
    [rejected] = report.rejected
    assert rejected.reason.startswith("only "), rejected.reason  # correct (no "breaks"), just not slower here

    slow = variant(fast, rw.texts, tmp_path / "slow")
    [site] = MOTIF.detect(MotifContext(slow))
    assert site.edits is not None
    fixed = with_edits(slow, site.edits, tmp_path / "fixed")
    fast_call = WHOLE.search(fast.sources[_kernel(fast)].text)
    fixed_call = WHOLE.search(fixed.sources[_kernel(fixed)].text)
    assert fast_call and fixed_call and _squash(fixed_call.group(0)) == _squash(fast_call.group(0))
    run_all(device, fixed)


def test_a_per_row_reducesum_loop_merges_only_when_the_row_fits_one_repeat(example_copy, tmp_path):
    fast = load_operator(example_copy("row_sum", CASES))
    assert MOTIF.detect(MotifContext(fast)) == []
    kernel = _kernel(fast)
    text = WHOLE.sub(
        "for (uint32_t r = 0; r < rows; r++) {\n"
        "            ReduceSum<float>(yLocal[r], xLocal[r * 64], xLocal, 64);\n"
        "        }",
        fast.sources[kernel].text,
    )
    op = variant(fast, {kernel: text}, tmp_path / "reducesum")
    [site] = MOTIF.detect(MotifContext(op))
    assert site.edits is not None
    assert site.edits[0].new_text == "WholeReduceSum<float>(yLocal, xLocal, 64, static_cast<int32_t>(rows), 1, 1, 8);"
    op = variant(fast, {kernel: text.replace("xLocal, 64);", "xLocal, colNum);")}, tmp_path / "unknown")
    [site] = MOTIF.detect(MotifContext(op))
    assert site.edits is None and "fit one repeat" in site.why
