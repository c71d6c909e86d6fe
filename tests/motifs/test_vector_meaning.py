"""vector-not-scalar by meaning: an element loop whose body is casts, arithmetic, comparisons and clamps (if-chains,
ternaries, min/max) becomes the vector calls that compute the same values in the same types, whatever the spelling.
The kernels are tests/motifs/meaning_op.py's Mix operator with the compute written as a scalar loop."""

from __future__ import annotations

from pathlib import Path

import pytest
from meaning_op import write_mix
from motif_kit import run_all, with_edits

from tilewise.analysis.motifs import MOTIFS, MotifContext
from tilewise.analysis.operator import Operator, load_operator

MOTIF = MOTIFS["vector-not-scalar"]

CAST_ADD = """\
        for (uint32_t k = 0; k < len; k++) {
            zLocal.SetValue(k, (T)((float)xLocal.GetValue(k) + (float)yLocal.GetValue(k)));
        }"""
IF_CLAMP = """\
        for (uint32_t k = 0; k < len; k++) {
            float v = static_cast<float>(xLocal.GetValue(k));
            if (v < lo) {
                v = lo;
            } else if (v > hi) {
                v = hi;
            }
            zLocal.SetValue(k, static_cast<T>(v));
        }"""
SEQUENTIAL_CLAMP = """\
        for (uint32_t k = 0; k < len; ++k) {
            float v = float(xLocal.GetValue(k));
            if (v > hi) v = hi;
            if (v < lo) v = lo;
            zLocal.SetValue(k, T(v));
        }"""
TERNARY_CLAMP = """\
        for (uint32_t k = 0; k < len; k += 1) {
            T v = xLocal.GetValue(k);
            zLocal.SetValue(k, v > (T)hi ? (T)hi : (v < (T)lo ? (T)lo : v));
        }"""
STD_MAX = """\
        for (uint32_t k = 0; k < len; k++) {
            zLocal.SetValue(k, std::max(xLocal.GetValue(k), yLocal.GetValue(k)));
        }"""
WHILE_BLEND = """\
        uint32_t i = 0;
        while (i < len) {
            float a = xLocal.GetValue(i);
            float b = yLocal.GetValue(i);
            zLocal.SetValue(i, static_cast<T>((a * 0.5f + b) * 2.0f));
            ++i;
        }"""
RELU_SUB = """\
        for (uint32_t k = 0; k < len; k++) {
            float d = (float)xLocal.GetValue(k) - (float)yLocal.GetValue(k);
            zLocal.SetValue(k, (T)(d > 0.0f ? d : 0.0f));
        }"""


def _mix(root: Path, compute: str, golden: str = "add") -> Operator:
    return load_operator(write_mix(root, compute=compute, golden=golden))


def _kernel(op: Operator) -> str:
    return next(p for p in op.sources if p.endswith("op_kernel/mix.cpp"))


def _fixed(op: Operator) -> str:
    [site] = MOTIF.detect(MotifContext(op))
    assert site.edits is not None
    from tilewise.analysis.rewrite import apply_edits

    path = _kernel(op)
    return apply_edits(op.sources[path].text, [e for e in site.edits if e.file == path])


def test_a_cast_sum_is_one_add_for_every_dtype(tmp_path):
    # (float)x + (float)y rounded back to T is one correctly rounded add: the half instruction gives the same bits
    fixed = _fixed(_mix(tmp_path / "m", CAST_ADD))
    assert "        Add(zLocal, xLocal, yLocal, len);\n" in fixed
    assert "SetValue" not in fixed and "if constexpr" not in fixed


@pytest.mark.parametrize("body", [IF_CLAMP, SEQUENTIAL_CLAMP, TERNARY_CLAMP], ids=["else-if", "two-ifs", "ternary"])
def test_a_clamp_is_maxs_and_mins_however_it_is_written(tmp_path, body):
    fixed = _fixed(_mix(tmp_path / "m", body, "clamp"))
    assert "SetValue" not in fixed
    assert "Maxs(" in fixed and "Mins(" in fixed
    # the bound is converted to the tile's type as C++ converts it, once for every instantiation
    assert "static_cast<T>(hi)" in fixed and "static_cast<T>(lo)" in fixed


def test_std_max_is_max_and_a_relu_of_a_difference_is_sub_then_maxs(tmp_path):
    assert "Max(zLocal, xLocal, yLocal, len);" in _fixed(_mix(tmp_path / "max", STD_MAX, "max"))
    fixed = _fixed(_mix(tmp_path / "relu", RELU_SUB, "relu_sub"))
    assert "Sub(zLocal, xLocal, yLocal, len);" in fixed and "Maxs(zLocal, zLocal, static_cast<T>(0" in fixed


def test_a_chain_in_float_keeps_float_for_half_and_adds_a_buffer_for_it(tmp_path):
    # ((a * 0.5f + b) * 2.0f) rounded to half once: three float operations, so half tiles are cast to float first
    op = _mix(tmp_path / "m", WHILE_BLEND, "blend")
    fixed = _fixed(op)
    assert "while" in fixed  # only in the `else` branch that keeps the loop for any other instantiation
    half, _, rest = fixed.partition("} else if constexpr (std::is_same<T, float>::value) {")
    assert "if constexpr (std::is_same<T, half>::value) {" in half
    assert "Cast(twVec" in half and "RoundMode::CAST_NONE" in half and "RoundMode::CAST_RINT" in half
    assert "Muls(zLocal, xLocal, static_cast<T>(0.5f), len);" in rest.split("} else {")[0]
    assert "TBuf<TPosition::VECCALC> twVec" in fixed and "pipe.InitBuffer(twVec" in fixed
    assert "uint32_t i = 0;" not in fixed.split("} else {")[0]  # the while loop's counter went with it


def test_no_edit_where_the_loop_is_no_vector_computation(tmp_path):
    gather = """\
        for (uint32_t k = 0; k < len; k++) {
            zLocal.SetValue(k, xLocal.GetValue(static_cast<uint32_t>(yLocal.GetValue(k))));
        }"""
    select = """\
        for (uint32_t k = 0; k < len; k++) {
            zLocal.SetValue(k, xLocal.GetValue(k) > yLocal.GetValue(k) ? (T)1.0f : (T)2.0f);
        }"""
    for i, body in enumerate((gather, select)):
        op = _mix(tmp_path / f"m{i}", body)
        assert all(s.edits is None for s in MOTIF.detect(MotifContext(op))), body


@pytest.mark.slow
def test_each_rewrite_builds_and_matches_the_golden_on_every_dtype(device, tmp_path):
    for name, body, golden in (
        ("clamp", IF_CLAMP, "clamp"),
        ("blend", WHILE_BLEND, "blend"),
        ("relu", RELU_SUB, "relu_sub"),
    ):
        op = _mix(tmp_path / name, body, golden)
        [site] = MOTIF.detect(MotifContext(op))
        assert site.edits is not None, name
        fixed = with_edits(op, site.edits, tmp_path / f"{name}_fixed")
        slow_us = sum(m.time_us or 0.0 for m in run_all(device, op))
        fast_us = sum(m.time_us or 0.0 for m in run_all(device, fixed))
        assert fast_us * 4 < slow_us, (name, slow_us, fast_us)


def test_element_references_read_and_written_with_operator_call_are_the_same_loop(tmp_path):
    body = """\
        for (uint32_t k = 0; k < len; k++) {
            zLocal(k) = xLocal(k) * (T)2.0f;
            zLocal(k) += yLocal(k);
        }"""
    fixed = _fixed(_mix(tmp_path / "m", body))
    assert "Muls(zLocal, xLocal, static_cast<T>(2.0f), len);" in fixed and "Add(zLocal, zLocal, yLocal, len);" in fixed
