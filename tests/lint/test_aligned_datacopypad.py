"""aligned-datacopypad is a note with the cost model's saving, not a warning (issue 13): on the corpus both
findings were full tiles copied with DataCopyPad next to the tail's copy, true but not worth acting on."""

from __future__ import annotations

from pathlib import Path

from opgen import KERNEL, replace_once, write_operator

from tilewise.analysis.lint import lint
from tilewise.analysis.operator import load_operator


def test_aligned_datacopypad_is_a_note_with_the_estimated_saving(tmp_path: Path):
    kernel = replace_once(
        KERNEL,
        "        DataCopy(xLocal, xGm[progress * tileLength], tileLength);\n",
        "        DataCopyExtParams params{1, static_cast<uint32_t>(4096 * sizeof(half)), 0, 0, 0};\n"
        "        DataCopyPadExtParams<half> pad{false, 0, 0, 0};\n"
        "        DataCopyPad(xLocal, xGm[progress * tileLength], params, pad);\n",
    )
    op = load_operator(write_operator(tmp_path / "op", kernel=kernel))
    (f,) = [f for f in lint(op) if f.rule == "aligned-datacopypad"]
    assert f.severity == "info" and "cycles per row" in f.message
