"""scalar-loop reports element walks only, with a severity that says what is proved (issue 13): a warning when the
loop is proved long (the host's tile of 8192 halves) and one vector instruction does the body; info when the
length is a run-time value; silence for deliberate short scalar work (8 partial sums, per-core partials, 16
elements, a per-row factor for vector work, a gather). Kernels: variants of tests/opgen.py's scale operator."""

from __future__ import annotations

from pathlib import Path

from opgen import KERNEL, replace_once, write_operator

from analysis.lint import lint
from analysis.operator import load_operator

RULE = "scalar-loop"
MULS = "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n"


def found(tmp_path: Path, compute: str, members: str = "") -> list:
    kernel = replace_once(KERNEL, MULS, compute)
    if members:
        kernel = replace_once(kernel, "    uint32_t tileLength;\n};", "    uint32_t tileLength;\n" + members + "};")
    op = load_operator(write_operator(tmp_path / "op", kernel=kernel))
    assert not op.model.syntax_errors
    return [f for f in lint(op) if f.rule == RULE]


def test_long_elementwise_loop_is_a_warning_with_a_safe_fix(tmp_path: Path):
    (f,) = found(tmp_path, "        for (uint32_t j = 0; j < tileLength; j++) {\n"
                           "            yLocal.SetValue(j, xLocal.GetValue(j) * (half)2.0);\n        }\n")
    assert f.severity == "warning" and "8192 times" in f.message
    (fix,) = f.fixes
    assert fix.safe and fix.title.startswith("Vectorise: replace the element loop with Muls")


def test_fix_from_an_offset_start_is_offered_to_verify_only(tmp_path: Path):
    (f,) = found(tmp_path, "        for (uint32_t j = 1; j < tileLength; j++) {\n"
                           "            yLocal.SetValue(j, xLocal.GetValue(j) * (half)2.0);\n        }\n"
                           "        yLocal.SetValue(0, xLocal.GetValue(0));\n")
    assert all(not x.safe for x in f.fixes)  # Muls from element 0 would also scale the first element


def test_run_time_length_is_info_saying_so(tmp_path: Path):
    (f,) = found(tmp_path, "        uint32_t n = yGm.GetSize() / 4;\n"
                           "        for (uint32_t j = 0; j < n; j++) {\n"
                           "            float v = xLocal.GetValue(j);\n"
                           "            yLocal.SetValue(j, v > 0 ? v : 0);\n        }\n")
    assert f.severity == "info" and "only known at run time" in f.message and f.fixes == []


def test_eight_partial_sums_summed_for_precision_are_silent(tmp_path: Path):
    assert found(tmp_path, MULS + "        float acc = 0;\n"
                                  "        for (int32_t k = 0; k < 8; k++) {\n"
                                  "            acc += (float)xLocal.GetValue(k * 16);\n        }\n"
                                  "        yLocal.SetValue(0, (half)acc);\n") == []


def test_per_core_partials_are_silent(tmp_path: Path):
    assert found(tmp_path, MULS + "        float total = 0;\n"
                                  "        for (uint32_t c = 0; c < GetBlockNum(); c++) {\n"
                                  "            total += (float)xLocal.GetValue(c * 16);\n        }\n"
                                  "        yLocal.SetValue(0, (half)total);\n") == []


def test_sixteen_element_fill_is_silent(tmp_path: Path):
    assert found(tmp_path, MULS + "        for (int32_t k = 0; k < 16; k++) {\n"
                                  "            yLocal.SetValue(k, (half)0);\n        }\n") == []


def test_per_row_factor_for_vector_work_is_silent(tmp_path: Path):
    assert found(tmp_path, "        for (uint32_t r = 0; r < tileLength / 128; r++) {\n"
                           "            half f = xLocal.GetValue(r * 128);\n"
                           "            Muls(yLocal[r * 128], xLocal[r * 128], f, 128);\n        }\n") == []


def test_gather_by_loaded_index_is_silent(tmp_path: Path):
    assert found(tmp_path, MULS + "        for (uint32_t j = 0; j < tileLength; j++) {\n"
                                  "            int32_t at = (int32_t)xLocal.GetValue(j);\n"
                                  "            yLocal.SetValue(at, (half)1);\n        }\n") == []


def test_gm_store_through_a_computed_index_speaks(tmp_path: Path):
    """The miss of issue 13: `idx = base + i; yGm.SetValue(idx, v);` writes GM one element at a time."""
    (f,) = found(tmp_path, MULS + "        uint32_t rows = yGm.GetSize() / 64;\n"
                                  "        for (uint32_t i = 0; i < rows; i++) {\n"
                                  "            uint32_t idx = GetBlockIdx() * rows + i;\n"
                                  "            yGm.SetValue(idx, (half)0);\n        }\n")
    assert "reads/writes GM one element at a time" in f.message and f.fixes == []


def test_fix_is_verify_only_when_the_tensor_is_read_by_the_scalar_unit_afterwards(tmp_path: Path):
    """As a vector instruction the fill would need a vector->scalar sync before this GetValue: not proved safe."""
    (f,) = found(tmp_path, "        for (uint32_t j = 0; j < tileLength; j++) {\n"
                           "            yLocal.SetValue(j, xLocal.GetValue(j) * (half)2.0);\n        }\n"
                           "        half first = yLocal.GetValue(0);\n        yLocal.SetValue(1, first);\n")
    assert f.fixes and all(not x.safe for x in f.fixes)
