"""merged-copy: the rewind copies a tile of rows one row at a time, which mining records; detect finds the row loop
and its edit gives the one copy back. A strided loop becomes one DataCopyParams copy when its pitches are known."""

from __future__ import annotations

from motif_kit import run_all, variant, with_edits
from opgen import KERNEL, replace_once, write_operator

from tilewise.analysis.motifs import MOTIFS, MotifContext
from tilewise.analysis.operator import Operator, load_operator
from tilewise.search.bank.mine import mine_operator

MOTIF = MOTIFS["merged-copy"]
CASES = """[[cases]]
name = "small"
[cases.inputs.x]
shape = [96, 64]
dtype = "float32"
"""
ROWS = "DataCopy(xLocal, xGm[offset], rows * colNum) -> one DataCopy per row of colNum"
COPY = "DataCopy(xLocal, xGm[offset], rows * colNum);"


def _kernel(op: Operator) -> str:
    return next(p for p in op.sources if p.endswith("op_kernel/row_sum.cpp"))


def test_per_row_copies_are_mined_and_detect_merges_them_again(example_copy, device, tmp_path):
    fast = load_operator(example_copy("row_sum", CASES))
    rw = next(r for r in MOTIF.rewind(MotifContext(fast)) if r.description == ROWS)
    assert "DataCopy(xLocal[twRow * (colNum)], xGm[offset + twRow * (colNum)], colNum);" in rw.texts[_kernel(fast)]
    report = mine_operator(fast, device, motifs=[MOTIF.id])
    kept = {t.description: t for t in report.trajectories}
    assert ROWS in kept and kept[ROWS].speedup >= 1.03, report.rejected

    slow = variant(fast, rw.texts, tmp_path / "slow")
    sites = MOTIF.detect(MotifContext(slow))
    assert len(sites) == 1 and sites[0].edits is not None and "contiguous" in sites[0].why
    fixed = with_edits(slow, sites[0].edits, tmp_path / "fixed")
    assert fixed.sources[_kernel(fixed)].text == fast.sources[_kernel(fast)].text
    run_all(device, fixed)


def test_a_strided_row_loop_becomes_one_datacopyparams_copy(example_copy, device, tmp_path):
    fast = load_operator(example_copy("row_sum", CASES))
    kernel = _kernel(fast)
    # every other row of a [rows, 128] view, 64 floats each, into a packed tile
    loop = (
        "for (uint32_t r = 0; r < rows; r++) {\n"
        "            DataCopy(xLocal[r * 64], xGm[offset + r * 128], 64);\n"
        "        }"
    )
    op = variant(fast, {kernel: fast.sources[kernel].text.replace(COPY, loop)}, tmp_path / "strided")
    [site] = MOTIF.detect(MotifContext(op))
    assert site.edits is not None
    assert (
        site.edits[0].new_text == "DataCopy(xLocal, xGm[offset], DataCopyParams{static_cast<uint16_t>(rows), 8, 8, 0});"
    )
    # with the pitches in variables the block counts are not known from the source: a site without an edit
    loose = loop.replace("r * 128", "r * pitch")
    op = variant(fast, {kernel: fast.sources[kernel].text.replace(COPY, loose)}, tmp_path / "loose")
    [site] = MOTIF.detect(MotifContext(op))
    assert site.edits is None and "not known" in site.why


def test_no_site_in_the_fast_kernel_and_a_params_copy_is_never_split_as_a_count(example_copy):
    fast = load_operator(example_copy("row_sum", CASES))
    assert MOTIF.detect(MotifContext(fast)) == []
    broadcast = load_operator(example_copy("broadcast_add", '[[cases]]\nname = "a"\n'))
    # `DataCopy(xLocal, xGm[offset], copyParams)` has no count to split: it is rewound by its own rows
    params = [r.description for r in MOTIF.rewind(MotifContext(broadcast)) if "copyParams" in r.description]
    assert params == ["DataCopy(xLocal, xGm[offset], copyParams) -> one DataCopy per row of copyParams.blockCount"]


def test_a_datacopyparams_copy_is_rewound_row_by_row_and_detected_back(example_copy, device, tmp_path):
    cases = """[[cases]]
name = "small"
[cases.inputs.x]
shape = [64, 256]
dtype = "float16"
[cases.inputs.b]
shape = [256]
dtype = "float16"
"""
    fast = load_operator(example_copy("broadcast_add", cases))
    kernel = next(p for p in fast.sources if p.endswith("op_kernel/broadcast_add.cpp"))
    want = "DataCopy(xLocal, xGm[offset], copyParams) -> one DataCopy per row of copyParams.blockCount"
    rw = next(r for r in MOTIF.rewind(MotifContext(fast)) if r.description == want)
    report = mine_operator(fast, device, motifs=[MOTIF.id])
    assert not [r for r in report.rejected if r.reason.startswith("breaks")], report.rejected
    assert want in {t.description for t in report.trajectories} | {r.description for r in report.rejected}

    slow = variant(fast, rw.texts, tmp_path / "slow")
    [site] = [s for s in MOTIF.detect(MotifContext(slow)) if "copyParams" in s.why]
    assert site.edits is not None and site.edits[0].new_text == "DataCopy(xLocal, xGm[offset], copyParams);"
    fixed = with_edits(slow, site.edits, tmp_path / "fixed")
    assert fixed.sources[
        next(p for p in fixed.sources if p.endswith("broadcast_add.cpp") and "op_kernel" in p)
    ].text == (fast.sources[kernel].text)


CHUNKED_OUT = """\
        for (uint32_t at = 0; at < tileLength; at += 64) {
            uint32_t left = tileLength - at;
            DataCopy(yGm[progress * tileLength + at], yLocal[at], @COUNT@);
        }
"""
PLAIN_OUT = "        DataCopy(yGm[progress * tileLength], yLocal, tileLength);\n"


def _chunked(tmp_path, name: str, count: str, extra: str = ""):
    kernel = replace_once(
        KERNEL, PLAIN_OUT, CHUNKED_OUT.replace("@COUNT@", count).replace("        }\n", extra + "        }\n")
    )
    return load_operator(write_operator(tmp_path / name, kernel=kernel))


def test_a_tile_copied_in_chunks_of_the_remaining_length_is_one_copy(tmp_path):
    """Chunks of 64 starting where the last ended on both sides, each min(tileLength - at, 64) long, however the
    min is written: together they are the whole tile, so one DataCopy of tileLength moves it."""
    for i, count in enumerate(
        ("left < 64 ? left : 64", "(tileLength - at) > 64 ? 64 : (tileLength - at)", "min(left, 64)")
    ):
        op = _chunked(tmp_path, f"op{i}", count)
        [site] = MOTIF.detect(MotifContext(op))
        [edit] = site.edits or []
        assert edit.new_text == "DataCopy(yGm[progress * tileLength], yLocal, tileLength);", count


def test_chunks_that_are_not_the_remaining_length_or_do_more_are_no_site(tmp_path):
    """A fixed 64 per chunk (the last chunk reads past the tile when tileLength is no multiple of 64: not the same
    copy), or a body that also computes, is no merge."""
    assert MOTIF.detect(MotifContext(_chunked(tmp_path, "fixed", "64"))) == []
    busy = _chunked(tmp_path, "busy", "left < 64 ? left : 64", "            Adds(yLocal, yLocal, (half)1.0, 64);\n")
    assert MOTIF.detect(MotifContext(busy)) == []
