"""vector-not-scalar: the rewind turns a vector call into a SetValue loop (with its events), which mining records;
the scalar-loop rule finds the loop and the motif's edit, events included, gives the fast kernel back."""

from __future__ import annotations

from pathlib import Path

from motif_kit import run_all, variant, with_edits
from opgen import HOST, KERNEL, SCALE_GOLDEN, scale_manifest, write_operator

from tilewise.analysis.motifs import MOTIFS, MotifContext
from tilewise.analysis.operator import Operator, load_operator
from tilewise.search.bank.mine import mine_operator

MOTIF = MOTIFS["vector-not-scalar"]
# 8 cores of two 256-element tiles each: 4096 fp16 elements
SMALL_HOST = HOST.replace("BLOCK_DIM = 48;", "BLOCK_DIM = 8;").replace("TILE_LENGTH = 8192;", "TILE_LENGTH = 256;")


def _scale(root: Path, kernel: str = KERNEL) -> Operator:
    write_operator(root, kernel=kernel, host=SMALL_HOST, manifest=scale_manifest(4096))
    (root / "golden.py").write_text(SCALE_GOLDEN)
    return load_operator(root)


def test_the_scalar_loop_is_mined_and_the_rule_vectorises_it_back(device, tmp_path):
    fast = _scale(tmp_path / "fast")
    report = mine_operator(fast, device, motifs=[MOTIF.id])
    [t] = report.trajectories
    assert t.description == "Muls(yLocal, ...) -> a scalar SetValue loop" and t.speedup >= 1.03, report.rejected

    [rw] = MOTIF.rewind(MotifContext(fast))
    slow = variant(fast, rw.texts, tmp_path / "slow")
    kernel = next(iter(rw.texts))
    slow_text = slow.sources[kernel.replace(str(fast.project.root), str(slow.project.root))].text
    assert "yLocal.SetValue(i, xLocal.GetValue(i) * (half)2.0);" in slow_text
    assert "SetFlag<HardEvent::S_MTE3>" in slow_text  # the loop's stores reach the copy-out only after an event
    [site] = MOTIF.detect(MotifContext(slow))
    assert site.edits is not None
    fixed = with_edits(slow, site.edits, tmp_path / "fixed")
    assert next(sf.text for p, sf in fixed.sources.items() if p.endswith("op_kernel/scale.cpp")) == KERNEL
    run_all(device, fixed)


def test_no_loop_in_the_fast_kernel_and_no_rewind_without_an_elementwise_call(tmp_path):
    assert MOTIF.detect(MotifContext(_scale(tmp_path / "fast"))) == []
    # the mask form of Muls (a repeat count and strides) is not an elementwise call over n elements
    masked = KERNEL.replace(
        "Muls(yLocal, xLocal, (half)2.0, tileLength);",
        "Muls(yLocal, xLocal, (half)2.0, 128, tileLength / 128, {1, 1, 8, 8});",
    )
    assert masked != KERNEL
    assert MOTIF.rewind(MotifContext(_scale(tmp_path / "masked", masked))) == []
