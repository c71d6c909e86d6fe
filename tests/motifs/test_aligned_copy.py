"""aligned-copy: the rewind writes an aligned DataCopy as the equivalent one-row DataCopyPad; the aligned-datacopypad
rule finds it and its fix gives the DataCopy back.

The pad path's cost is the chip file's `pad_row_cycles`: half a cycle per row on the 910B chips, where no rewind
can cost 3% (mining rejects them all), and 24 cycles on the 310B file, where a kernel of many small copies does
show it. The mining test runs there, on an operator that registers that chip."""

from __future__ import annotations

from pathlib import Path

from motif_kit import run_all, variant, with_edits
from opgen import HOST, KERNEL, SCALE_GOLDEN, replace_once, scale_manifest, write_operator

from tilewise.analysis.motifs import MOTIFS, MotifContext
from tilewise.analysis.observed import CaseFacts
from tilewise.analysis.operator import Operator, load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.search.bank.mine import mine_operator

MOTIF = MOTIFS["aligned-copy"]
# 64-element (128-byte) tiles on 8 blocks, each tile copied in and out with a constant, provably aligned length
TILED = replace_once(
    KERNEL, "constexpr int32_t BUFFER_NUM = 2;\n", "constexpr int32_t BUFFER_NUM = 2;\nconstexpr uint32_t TILE = 64;\n"
)
TILED = replace_once(TILED, "xGm[progress * tileLength], tileLength);", "xGm[progress * tileLength], TILE);")
TILED = replace_once(
    TILED,
    "DataCopy(yGm[progress * tileLength], yLocal, tileLength);",
    "DataCopy(yGm[progress * tileLength], yLocal, TILE);",
)
SMALL_HOST = (
    HOST.replace("BLOCK_DIM = 48;", "BLOCK_DIM = 8;")
    .replace("TILE_LENGTH = 8192;", "TILE_LENGTH = 64;")
    .replace('AddConfig("ascend910b")', 'AddConfig("ascend310b")')
)


def _scale(root: Path, kernel: str = TILED) -> Operator:
    write_operator(root, kernel=kernel, host=SMALL_HOST, manifest=scale_manifest(4096))
    (root / "golden.py").write_text(SCALE_GOLDEN)
    return load_operator(root)


def test_the_pad_copy_is_mined_where_it_costs_and_the_rule_gives_datacopy_back(emu_cache, needs_gxx, tmp_path):
    device = EmulatorDevice(chip="310B", cache_dir=emu_cache, timeout_s=120)
    fast = _scale(tmp_path / "fast")
    report = mine_operator(fast, device, motifs=[MOTIF.id])
    kept = {t.description: t for t in report.trajectories}
    inward = "DataCopy(xLocal, xGm[progress * tileLength], TILE) -> DataCopyPad (GM -> UB)"
    assert inward in kept and kept[inward].speedup >= 1.03, report.rejected
    assert "DataCopy(yGm[progress * tileLength], yLocal, TILE) -> DataCopyPad (UB -> GM)" in kept

    for rw in MOTIF.rewind(MotifContext(fast)):
        name = "in" if "GM -> UB" in rw.description else "out"
        slow = variant(fast, rw.texts, tmp_path / f"slow_{name}")
        [site] = MOTIF.detect(MotifContext(slow))
        assert site.edits is not None
        fixed = with_edits(slow, site.edits, tmp_path / f"fixed_{name}")
        assert next(sf.text for p, sf in fixed.sources.items() if p.endswith("op_kernel/scale.cpp")) == TILED
        run_all(device, fixed)


def test_no_pad_copy_in_the_fast_kernel_and_no_rewind_of_a_strided_copy(tmp_path):
    assert MOTIF.detect(MotifContext(_scale(tmp_path / "fast"))) == []
    strided = replace_once(
        TILED,
        "DataCopy(xLocal, xGm[progress * tileLength], TILE);",
        "DataCopyParams params{1, TILE * sizeof(half) / 32, 0, 0};\n"
        "        DataCopy(xLocal, xGm[progress * tileLength], params);",
    )
    descriptions = [r.description for r in MOTIF.rewind(MotifContext(_scale(tmp_path / "strided", strided)))]
    assert descriptions == ["DataCopy(yGm[progress * tileLength], yLocal, TILE) -> DataCopyPad (UB -> GM)"]


PADDED_OUT = (
    "        DataCopyPad(yGm[progress * tileLength], yLocal,\n"
    "                    DataCopyExtParams{1, static_cast<uint32_t>(tileLength * sizeof(half)), 0, 0, 0});\n"
)


def _padded_out(tmp_path, name: str) -> Operator:
    kernel = replace_once(KERNEL, "        DataCopy(yGm[progress * tileLength], yLocal, tileLength);\n", PADDED_OUT)
    return load_operator(write_operator(tmp_path / name, kernel=kernel))


def _seen(op: Operator, nbytes: int):
    [call] = op.model.calls("DataCopyPad")
    return CaseFacts(case="profiled", time_us=10.0, copy_bytes={(call.loc.file, call.loc.line): nbytes})


def test_a_run_time_length_the_run_shows_aligned_is_a_guess_the_count_form_does_it(tmp_path):
    """tileLength comes from the tiling: the rule cannot prove it aligned and says nothing. A run whose copies
    there were whole 32-byte blocks makes it a half-weight site with the count-form edit; copies that were not,
    or no run, make none."""
    op = _padded_out(tmp_path, "op")
    assert MOTIF.detect(MotifContext(op)) == []
    [site] = MOTIF.detect(MotifContext(op, facts=[_seen(op, 4096)]))
    assert site.weight == 0.5
    [edit] = site.edits or []
    assert edit.new_text == "DataCopy(yGm[progress * tileLength], yLocal, tileLength)"
    assert MOTIF.detect(MotifContext(op, facts=[_seen(op, 4096), _seen(op, 4010)])) == []
