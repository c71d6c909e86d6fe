"""vector-not-scalar's own vectorisation, where the scalar-loop rule finds an element loop but has no fix for its
form: a while loop with its counter declared above, fenced by full barriers."""

from __future__ import annotations

import shutil

from paths import EXAMPLES

from tilewise.analysis.motifs import MOTIFS, MotifContext
from tilewise.analysis.operator import load_operator
from tilewise.analysis.rewrite import apply_edits

FAST = "        Mul(tmp, src, src, length);\n"
SLOW = """\
        PipeBarrier<PIPE_ALL>();
        uint32_t idx = 0;
        while (idx < (length)) {
            tmp.SetValue(idx, src.GetValue(idx) * src.GetValue(idx));
            ++idx;
        }
        PipeBarrier<PIPE_ALL>();
"""


def _gelu(tmp_path, slow: str):
    root = tmp_path / "gelu"
    shutil.copytree(EXAMPLES / "gelu", root)
    kernel = root / "op_kernel" / "gelu.cpp"
    text = kernel.read_text()
    assert text.count(FAST) == 1
    kernel.write_text(text.replace(FAST, slow))
    return load_operator(root), str(kernel.resolve())


def test_a_fenced_while_loop_becomes_the_vector_call_again(tmp_path):
    op, kernel = _gelu(tmp_path, SLOW)
    [site] = MOTIFS["vector-not-scalar"].detect(MotifContext(op))
    assert site.edits is not None
    fixed = apply_edits(op.sources[kernel].text, site.edits)
    assert "        Mul(tmp, src, src, (length));\n        Mul(tmp, tmp, src, length);" in fixed
    assert "SetValue" not in fixed and "uint32_t idx" not in fixed and "PipeBarrier<PIPE_ALL>" not in fixed


def test_a_scalar_operand_becomes_the_scalar_form(tmp_path):
    slow = (
        "        for (uint32_t k = 0; k < length; k++) {\n"
        "            tmp.SetValue(k, src.GetValue(k) + 0.5f);\n"
        "        }\n"
    )
    op, kernel = _gelu(tmp_path, slow)
    [site] = MOTIFS["vector-not-scalar"].detect(MotifContext(op))
    assert site.edits is not None and "Adds(tmp, src, 0.5f, length);" in site.edits[0].new_text


def test_an_element_loop_the_rule_does_not_report_is_found_with_its_slice(tmp_path):
    root = tmp_path / "col"
    shutil.copytree(EXAMPLES / "column_sum_atomic", root)
    kernel = next((root / "op_kernel").glob("*.cpp"))
    text = kernel.read_text()
    fast = "Add(acc, acc, xLocal[r * pitch], width);"
    assert text.count(fast) == 1
    slow = (
        "for (uint32_t j = 0; j < width; j++) {\n"
        "                acc.SetValue(j, acc.GetValue(j) + xLocal[r * pitch].GetValue(j));\n"
        "            }"
    )
    kernel.write_text(text.replace(fast, slow))
    op = load_operator(root)
    [site] = MOTIFS["vector-not-scalar"].detect(MotifContext(op))
    assert site.edits is not None and fast in site.edits[0].new_text
