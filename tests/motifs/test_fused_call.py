"""fused-call: the rewind splits Axpy into Muls + barrier + Add, which mining records where the vector stage binds
(one core, small tiles); detect finds the split and its edit puts the one Axpy back."""

from __future__ import annotations

from pathlib import Path

from motif_kit import run_all, variant, with_edits

from tilewise.analysis.motifs import MOTIFS, MotifContext
from tilewise.analysis.operator import Operator, load_operator
from tilewise.search.bank.mine import mine_operator

MOTIF = MOTIFS["fused-call"]
CASES = """[[cases]]
name = "small"
[cases.inputs.x]
shape = [4, 1024]
dtype = "float32"
[cases.inputs.y]
shape = [4, 1024]
dtype = "float32"
[cases.attrs]
alpha = 0.75
"""
SPLIT = """Muls(xLocal, xLocal, alpha, len);
        PipeBarrier<PIPE_V>();
        Add(yLocal, yLocal, xLocal, len);"""


def _kernel(op: Operator) -> str:
    return next(p for p in op.sources if p.endswith("op_kernel/axpy_custom.cpp"))


def _vector_bound(root: Path) -> Operator:
    """The axpy example on one core with 128-element tiles: the vector stage, not the copies, sets the pace."""
    host = root / "op_host" / "axpy_custom.cpp"
    text = (
        host.read_text().replace("BLOCK_DIM = 8;", "BLOCK_DIM = 1;").replace("TILE_LENGTH = 512;", "TILE_LENGTH = 128;")
    )
    host.write_text(text)
    return load_operator(root)


def test_the_split_axpy_is_mined_and_detect_fuses_it_again(example_copy, device, tmp_path):
    fast = _vector_bound(example_copy("axpy", CASES))
    [rw] = MOTIF.rewind(MotifContext(fast))
    assert SPLIT in rw.texts[_kernel(fast)]
    report = mine_operator(fast, device, motifs=[MOTIF.id])
    assert report.skipped is None
    assert [t.description for t in report.trajectories] == [rw.description], report.rejected
    assert report.trajectories[0].speedup >= 1.03

    slow = variant(fast, rw.texts, tmp_path / "slow")
    assert MOTIF.rewind(MotifContext(slow)) == []  # nothing fused is left to split
    [site] = MOTIF.detect(MotifContext(slow))
    assert site.edits is not None and "Axpy does both" in site.why
    fixed = with_edits(slow, site.edits, tmp_path / "fixed")
    assert fixed.sources[_kernel(fixed)].text == fast.sources[_kernel(fast)].text
    run_all(device, fixed)


def test_no_site_in_fused_kernels_or_where_the_scratch_is_read_again(example_copy, tmp_path):
    fast = load_operator(example_copy("axpy", CASES))
    assert MOTIF.detect(MotifContext(fast)) == []
    # Mul then Adds (a scalar add) is not a multiply-accumulate of two tiles
    assert MOTIF.detect(MotifContext(load_operator(example_copy("mul_adds_fp32", CASES)))) == []
    kernel = _kernel(fast)
    text = fast.sources[kernel].text.replace("Axpy(yLocal, xLocal, alpha, len);", SPLIT)
    read_again = text.replace(
        "inQueueX.FreeTensor(xLocal);", "Abs(xLocal, xLocal, len);\n        inQueueX.FreeTensor(xLocal);"
    )
    op = variant(fast, {kernel: read_again}, tmp_path / "read_again")
    assert MOTIF.detect(MotifContext(op)) == []  # the scaled x is read afterwards: Axpy would change it
    assert MOTIF.rewind(MotifContext(op)) == []


def test_mul_then_add_becomes_muladddst(example_copy, tmp_path):
    fast = load_operator(example_copy("axpy", CASES))
    kernel = _kernel(fast)
    mul = "Mul(xLocal, xLocal, xLocal, len);\n        Add(yLocal, xLocal, yLocal, len);"
    op = variant(
        fast, {kernel: fast.sources[kernel].text.replace("Axpy(yLocal, xLocal, alpha, len);", mul)}, tmp_path / "m"
    )
    [site] = MOTIF.detect(MotifContext(op))
    assert site.edits is not None and site.edits[0].new_text.strip() == "MulAddDst(yLocal, xLocal, xLocal, len);"
    # and the rewind splits MulAddDst back into Mul + barrier + Add
    fused = with_edits(op, site.edits, tmp_path / "fused")
    [rw] = MOTIF.rewind(MotifContext(fused))
    assert (
        "Mul(xLocal, xLocal, xLocal, len);\n        PipeBarrier<PIPE_V>();\n        Add(yLocal, yLocal, xLocal, len);"
        in (rw.texts[_kernel(fused)])
    )


def test_mul_into_the_destination_then_add_becomes_fusedmuladd(example_copy, tmp_path):
    fast = load_operator(example_copy("axpy", CASES))
    kernel = _kernel(fast)
    split = (
        "Mul(yLocal, xLocal, yLocal, len);\n        PipeBarrier<PIPE_V>();\n        Add(yLocal, yLocal, xLocal, len);"
    )
    text = fast.sources[kernel].text.replace("Axpy(yLocal, xLocal, alpha, len);", split)
    op = variant(fast, {kernel: text}, tmp_path / "split")
    [site] = MOTIF.detect(MotifContext(op))
    assert site.edits is not None and site.edits[0].new_text.strip() == "FusedMulAdd(yLocal, xLocal, xLocal, len);"
    fused = with_edits(op, site.edits, tmp_path / "fused")
    [rw] = MOTIF.rewind(MotifContext(fused))
    assert split in rw.texts[_kernel(fused)]
