"""cast-round-trip: the rewind adds an exact narrow-and-widen-again after a widening Cast, which mining records (the
kernel stays correct and gets slower); detect finds the round trip and its edits give the fast kernel back."""

from __future__ import annotations

from motif_kit import run_all, variant, with_edits

from tilewise.analysis.motifs import MOTIFS, MotifContext
from tilewise.analysis.operator import load_operator
from tilewise.search.bank.mine import mine_operator

MOTIF = MOTIFS["cast-round-trip"]
CASES = """[[cases]]
name = "small"
[cases.inputs.x]
shape = [16, 512]
dtype = "float16"
[cases.inputs.gamma]
shape = [512]
dtype = "float16"
[cases.inputs.beta]
shape = [512]
dtype = "float16"
"""


def test_the_round_trip_is_mined_and_detect_takes_it_out_again(example_copy, device, tmp_path):
    fast = load_operator(example_copy("scale_shift", CASES))
    report = mine_operator(fast, device, motifs=[MOTIF.id])
    assert report.skipped is None
    # the per-row widening of x comes first (the loop's work): two more casts per row
    kept = {t.description: t for t in report.trajectories}
    row = "Cast(rowF, xLocal, ...) followed by an exact round trip through xLocal"
    assert row in kept and kept[row].speedup >= 1.03, (kept, report.rejected)

    rw = next(r for r in MOTIF.rewind(MotifContext(fast)) if r.description == row)
    slow = variant(fast, rw.texts, tmp_path / "slow")
    kernel = next(p for p in slow.sources if p.endswith("op_kernel/scale_shift.cpp"))
    assert "Cast(xLocal, rowF, RoundMode::CAST_RINT, cols);" in slow.sources[kernel].text
    [site] = MOTIF.detect(MotifContext(slow))
    assert site.edits is not None and len(site.edits) == 2
    fixed = with_edits(slow, site.edits, tmp_path / "fixed")
    fast_kernel = next(sf.text for p, sf in fast.sources.items() if p.endswith("op_kernel/scale_shift.cpp"))
    fixed_kernel = next(sf.text for p, sf in fixed.sources.items() if p.endswith("op_kernel/scale_shift.cpp"))
    assert fixed_kernel == fast_kernel
    run_all(device, fixed)


def test_no_round_trip_in_the_fast_kernel_and_no_rewind_without_a_widening_cast(example_copy):
    fast = load_operator(example_copy("scale_shift", CASES))
    assert MOTIF.detect(MotifContext(fast)) == []
    # cast_fp32_to_fp16 only narrows: there is no widening to undo and redo
    narrowing = load_operator(example_copy("cast_fp32_to_fp16", '[[cases]]\nname = "a"\n'))
    assert MOTIF.rewind(MotifContext(narrowing)) == []


def test_a_round_trip_with_a_write_in_between_is_no_site(example_copy, tmp_path):
    fast = load_operator(example_copy("scale_shift", CASES))
    rw = MOTIF.rewind(MotifContext(fast))[0]
    kernel = next(iter(rw.texts))
    # x changes between the widening and the cast back: the trip is no longer a no-op
    back = "Cast(xLocal, rowF, RoundMode::CAST_RINT, cols);"
    text = rw.texts[kernel].replace(back, "Adds(xLocal, xLocal, (half)1.0, cols);\n        " + back, 1)
    assert text != rw.texts[kernel]
    assert MOTIF.detect(MotifContext(variant(fast, {kernel: text}, tmp_path / "written"))) == []


NARROW = "        Cast(yLocal, rowF, RoundMode::CAST_RINT, cols);\n"


def _narrowed_twice(fast, tmp_path, name: str, tail: str = ""):
    """scale_shift with its output narrowed, widened back and narrowed again (as a hand-slowed kernel might
    spell it, qualified), then `tail` after the last narrowing."""
    kernel = next(p for p in fast.sources if p.endswith("op_kernel/scale_shift.cpp"))
    slow = NARROW + (
        "        PipeBarrier<PIPE_V>();\n"
        "        AscendC::Cast(rowF, yLocal, AscendC::RoundMode::CAST_NONE, cols);\n"
        "        PipeBarrier<PIPE_V>();\n"
        "        AscendC::Cast(yLocal, rowF, AscendC::RoundMode::CAST_ROUND, cols);\n"
    )
    text = fast.sources[kernel].text
    assert text.count(NARROW) == 1
    return variant(fast, {kernel: text.replace(NARROW, slow + tail)}, tmp_path / name), kernel


def test_a_tile_narrowed_again_after_an_exact_widening_loses_both_casts(example_copy, device, tmp_path):
    """Narrow, widen back, narrow again: the last narrowing rounds values the half tile already holds exactly (in
    any mode) and nothing reads the widened float tile after it, so both go and the fast kernel comes back."""
    fast = load_operator(example_copy("scale_shift", CASES))
    slow, kernel = _narrowed_twice(fast, tmp_path, "slow")
    [site] = MOTIF.detect(MotifContext(slow))
    assert site.edits is not None and len(site.edits) == 2
    fixed = with_edits(slow, site.edits, tmp_path / "fixed")
    assert fixed.sources[str(fixed.project.root / "op_kernel" / "scale_shift.cpp")].text == fast.sources[kernel].text
    run_all(device, fixed)


def test_a_widened_tile_read_afterwards_keeps_its_widening(example_copy, tmp_path):
    """The float tile is read after the second narrowing: the widening's rounded values are used, so only the last
    narrowing goes; with a write to the half tile between, nothing does."""
    fast = load_operator(example_copy("scale_shift", CASES))
    read, _ = _narrowed_twice(fast, tmp_path, "read", "        Adds(rowF, rowF, 1.0f, cols);\n")
    [site] = MOTIF.detect(MotifContext(read))
    assert site.edits is not None and len(site.edits) == 1
    assert (
        "AscendC::Cast(yLocal, rowF" in read.sources[site.edits[0].file].text[site.edits[0].start : site.edits[0].end]
    )
    kernel = next(p for p in fast.sources if p.endswith("op_kernel/scale_shift.cpp"))
    between = (
        "        Cast(rowF, yLocal, RoundMode::CAST_NONE, cols);\n"
        "        Adds(yLocal, yLocal, (half)1.0, cols);\n"
        "        Cast(yLocal, rowF, RoundMode::CAST_ROUND, cols);\n"
    )
    written = fast.sources[kernel].text.replace(NARROW, NARROW + between)
    assert MOTIF.detect(MotifContext(variant(fast, {kernel: written}, tmp_path / "written"))) == []
