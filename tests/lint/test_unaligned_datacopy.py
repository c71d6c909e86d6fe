"""unaligned-datacopy: severity by what the extra bytes of the 32-byte block hit (issue 13). On this project's scale
operator (tests/opgen.py): into GM -> error; to the start of a UB tensor -> silent (the buffer's own 32-byte
rounding); into a UB tensor at an offset, or read from GM -> a note saying what is unproven."""

from __future__ import annotations

from pathlib import Path

from opgen import KERNEL, replace_once, write_operator

from tilewise.analysis.lint import lint
from tilewise.analysis.operator import load_operator

COPY_OUT = "        DataCopy(yGm[progress * tileLength], yLocal, tileLength);\n"


def unaligned(root: Path):
    op = load_operator(root)
    assert not op.model.syntax_errors
    return [f for f in lint(op) if f.rule == "unaligned-datacopy"]


def test_one_element_into_gm_is_an_error_even_for_a_list_declared_tensor(tmp_path: Path):
    kernel = replace_once(KERNEL, COPY_OUT, "        DataCopy(yGm[progress], yLocal, 1);\n")
    kernel = replace_once(
        kernel, "    GlobalTensor<half> xGm;\n    GlobalTensor<half> yGm;\n", "    GlobalTensor<half> xGm, yGm;\n"
    )
    (f,) = unaligned(write_operator(tmp_path / "op", kernel=kernel))
    assert f.severity == "error" and "into GM" in f.message and f.fixes


def test_ub_copies_are_silent_at_a_tensor_start_and_a_note_at_an_offset(tmp_path: Path):
    kernel = replace_once(
        KERNEL,
        "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n",
        "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n        DataCopy(yLocal, xLocal, 1);\n",
    )
    assert unaligned(write_operator(tmp_path / "start", kernel=kernel)) == []
    kernel = kernel.replace("DataCopy(yLocal, xLocal, 1);", "DataCopy(yLocal[16], xLocal, 1);")
    (f,) = unaligned(write_operator(tmp_path / "offset", kernel=kernel))
    assert f.severity == "info" and "unproven" in f.message


def test_a_copy_in_a_function_nothing_calls_is_silent(tmp_path: Path):
    """The expert's false positive: the unaligned DataCopy sat in a CopyOut the kernel never calls (it writes each
    result with SetValue instead). A caller commented out does not count."""
    kernel = replace_once(KERNEL, COPY_OUT, "        DataCopy(yGm[progress], yLocal, 1);\n")
    kernel = replace_once(kernel, "            CopyOut(i);\n", "            // CopyOut(i);\n")
    assert unaligned(write_operator(tmp_path / "op", kernel=kernel)) == []
