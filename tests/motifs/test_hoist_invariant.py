"""hoist-invariant: the rewind moves a loop-invariant Cast from before the row loop into it, which mining records;
detect finds the Cast in the loop and its edits move it out again; an accumulator's Duplicate is never moved."""

from __future__ import annotations

from motif_kit import run_all, variant, with_edits

from tilewise.analysis.motifs import MOTIFS, MotifContext
from tilewise.analysis.operator import load_operator
from tilewise.search.bank.mine import mine_operator

MOTIF = MOTIFS["hoist-invariant"]
CASES = """[[cases]]
name = "small"
[cases.inputs.x]
shape = [32, 4096]
dtype = "float16"
[cases.inputs.gamma]
shape = [4096]
dtype = "float16"
[cases.inputs.beta]
shape = [4096]
dtype = "float16"
"""
# long rows: the widened row is the vector pipe's work, and one more Cast per row shows (short rows are latency)
CAST = "Cast(gammaF, gammaLocal, RoundMode::CAST_NONE, cols);"


def test_moving_the_cast_into_the_loop_is_mined_and_detect_hoists_it_again(example_copy, device, tmp_path):
    fast = load_operator(example_copy("scale_shift", CASES))
    report = mine_operator(fast, device, motifs=[MOTIF.id])
    kept = {t.description: t for t in report.trajectories}
    moved = "Cast(gammaF, ...) moved into the loop at line 51"
    assert moved in kept and kept[moved].speedup >= 1.03, (kept, report.rejected)

    rw = next(r for r in MOTIF.rewind(MotifContext(fast)) if r.description == moved)
    slow = variant(fast, rw.texts, tmp_path / "slow")
    [site] = MOTIF.detect(MotifContext(slow))
    kernel = site.file
    assert site.edits is not None and "every iteration" in site.why
    assert slow.sources[kernel].text.splitlines()[site.line - 1].strip() == CAST
    fixed = with_edits(slow, site.edits, tmp_path / "fixed")
    lines = [
        ln.strip()
        for ln in next(
            sf.text for p, sf in fixed.sources.items() if p.endswith(".cpp") and "op_kernel" in p
        ).splitlines()
    ]
    loop = lines.index("for (uint32_t r = 0; r < rowCount; r++) {")
    assert lines[loop - 1] == CAST and CAST not in lines[loop:]
    [m] = run_all(device, fixed)
    assert m.time_us is not None and kept[moved].cases[0].fast_us == round(m.time_us, 4)


def test_nothing_invariant_in_the_fast_loop_and_an_accumulator_is_not_moved(example_copy):
    fast = load_operator(example_copy("scale_shift", CASES))
    assert MOTIF.detect(MotifContext(fast)) == []
    # reduce_sum_all zeroes its accumulator before the loop that adds into it: moving that would reset the sum
    acc = load_operator(example_copy("reduce_sum_all", '[[cases]]\nname = "a"\n'))
    assert "Duplicate(acc" in "".join(sf.text for sf in acc.sources.values())
    assert MOTIF.rewind(MotifContext(acc)) == []


def test_a_cast_whose_source_the_loop_writes_is_no_site(example_copy, tmp_path):
    fast = load_operator(example_copy("scale_shift", CASES))
    rw = next(r for r in MOTIF.rewind(MotifContext(fast)) if "gammaF" in r.description)
    kernel = next(iter(rw.texts))
    # the loop now reloads gamma each row: the Cast reads what the loop wrote, so it must stay inside
    reload = "            DataCopy(gammaLocal, gammaGm, cols);\n            " + CAST
    text = rw.texts[kernel].replace("            " + CAST, reload, 1)
    assert text != rw.texts[kernel]
    assert MOTIF.detect(MotifContext(variant(fast, {kernel: text}, tmp_path / "written"))) == []
