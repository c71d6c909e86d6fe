"""scalar-loop reports element walks only, with a severity that says what is proved (issue 13): a warning when the
loop is proved long (the host's tile of 8192 halves) and one vector instruction does the body; info when the
length is a run-time value; silence for deliberate short scalar work (8 partial sums, per-core partials, 16
elements, a per-row factor for vector work, a gather). Kernels: variants of tests/opgen.py's scale operator."""

from __future__ import annotations

from pathlib import Path

from opgen import HOST, KERNEL, TILING_H, replace_once, write_operator

from tilewise.analysis.lint import lint
from tilewise.analysis.operator import load_operator

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
    (f,) = found(
        tmp_path,
        "        for (uint32_t j = 0; j < tileLength; j++) {\n"
        "            yLocal.SetValue(j, xLocal.GetValue(j) * (half)2.0);\n        }\n",
    )
    assert f.severity == "warning" and "8192 times" in f.message
    (fix,) = f.fixes
    assert fix.safe and fix.title.startswith("Vectorise: replace the element loop with Muls")


def test_fix_from_an_offset_start_is_offered_to_verify_only(tmp_path: Path):
    (f,) = found(
        tmp_path,
        "        for (uint32_t j = 1; j < tileLength; j++) {\n"
        "            yLocal.SetValue(j, xLocal.GetValue(j) * (half)2.0);\n        }\n"
        "        yLocal.SetValue(0, xLocal.GetValue(0));\n",
    )
    assert all(not x.safe for x in f.fixes)  # Muls from element 0 would also scale the first element


def test_run_time_length_is_info_saying_so(tmp_path: Path):
    (f,) = found(
        tmp_path,
        "        uint32_t n = yGm.GetSize() / 4;\n"
        "        for (uint32_t j = 0; j < n; j++) {\n"
        "            float v = xLocal.GetValue(j);\n"
        "            yLocal.SetValue(j, v > 0 ? v : 0);\n        }\n",
    )
    assert f.severity == "info" and "only known at run time" in f.message and f.fixes == []


def test_eight_partial_sums_summed_for_precision_are_silent(tmp_path: Path):
    assert (
        found(
            tmp_path,
            MULS + "        float acc = 0;\n"
            "        for (int32_t k = 0; k < 8; k++) {\n"
            "            acc += (float)xLocal.GetValue(k * 16);\n        }\n"
            "        yLocal.SetValue(0, (half)acc);\n",
        )
        == []
    )


def test_per_core_partials_are_silent(tmp_path: Path):
    assert (
        found(
            tmp_path,
            MULS + "        float total = 0;\n"
            "        for (uint32_t c = 0; c < GetBlockNum(); c++) {\n"
            "            total += (float)xLocal.GetValue(c * 16);\n        }\n"
            "        yLocal.SetValue(0, (half)total);\n",
        )
        == []
    )


def test_sixteen_element_fill_is_silent(tmp_path: Path):
    assert (
        found(
            tmp_path,
            MULS + "        for (int32_t k = 0; k < 16; k++) {\n            yLocal.SetValue(k, (half)0);\n        }\n",
        )
        == []
    )


def test_per_row_factor_for_vector_work_is_silent(tmp_path: Path):
    assert (
        found(
            tmp_path,
            "        for (uint32_t r = 0; r < tileLength / 128; r++) {\n"
            "            half f = xLocal.GetValue(r * 128);\n"
            "            Muls(yLocal[r * 128], xLocal[r * 128], f, 128);\n        }\n",
        )
        == []
    )


def test_gather_by_loaded_index_is_silent(tmp_path: Path):
    assert (
        found(
            tmp_path,
            MULS + "        for (uint32_t j = 0; j < tileLength; j++) {\n"
            "            int32_t at = (int32_t)xLocal.GetValue(j);\n"
            "            yLocal.SetValue(at, (half)1);\n        }\n",
        )
        == []
    )


def test_gm_store_through_a_computed_index_speaks(tmp_path: Path):
    """The miss of issue 13: `idx = base + i; yGm.SetValue(idx, v);` writes GM one element at a time."""
    (f,) = found(
        tmp_path,
        MULS + "        uint32_t rows = yGm.GetSize() / 64;\n"
        "        for (uint32_t i = 0; i < rows; i++) {\n"
        "            uint32_t idx = GetBlockIdx() * rows + i;\n"
        "            yGm.SetValue(idx, (half)0);\n        }\n",
    )
    assert "reads/writes GM one element at a time" in f.message and f.fixes == []


def test_fix_is_verify_only_when_the_tensor_is_read_by_the_scalar_unit_afterwards(tmp_path: Path):
    """As a vector instruction the fill would need a vector->scalar sync before this GetValue: not proved safe."""
    (f,) = found(
        tmp_path,
        "        for (uint32_t j = 0; j < tileLength; j++) {\n"
        "            yLocal.SetValue(j, xLocal.GetValue(j) * (half)2.0);\n        }\n"
        "        half first = yLocal.GetValue(0);\n        yLocal.SetValue(1, first);\n",
    )
    assert f.fixes and all(not x.safe for x in f.fixes)


# ---- false-positive patterns of the corpus reading (issue 13): each proof that no vector instruction pays ----


def test_store_decided_by_a_scalar_flag_array_is_silent(tmp_path: Path):
    """Which elements are zeroed is decided by a scalar array (`flags[j]`) no vector instruction reads."""
    assert (
        found(
            tmp_path,
            MULS + "        uint8_t flags[64] = {0};\n"
            "        for (uint32_t j = 0; j < tileLength; j++) {\n"
            "            if (flags[j % 64] != 1) {\n"
            "                yLocal.SetValue(j, (half)0);\n            }\n        }\n",
        )
        == []
    )


def test_value_divided_by_a_scalar_array_through_a_compound_assignment_is_silent(tmp_path: Path):
    """Coordinates of one element, dimension by dimension: `left /= dims[d]` makes each stored value from a
    scalar array (the compound assignment is followed like a plain one)."""
    assert (
        found(
            tmp_path,
            MULS + "        uint32_t dims[8] = {2, 3, 4, 5, 6, 7, 8, 9};\n"
            "        uint32_t rank = yGm.GetSize() / 1024;\n"
            "        uint32_t left = tileLength;\n"
            "        for (uint32_t d = 0; d < rank; d++) {\n"
            "            left /= dims[d];\n"
            "            yGm.SetValue(d * 64, (half)left);\n        }\n",
        )
        == []
    )


def test_tail_padded_to_a_block_is_silent(tmp_path: Path):
    """`for (i = n; i < (n + 15) / 16 * 16; ++i)` pads at most 15 halves, whatever n is at run time."""
    assert (
        found(
            tmp_path,
            MULS + "        uint32_t n = yGm.GetSize() / 3;\n"
            "        uint32_t up = (n + 16 - 1) / 16 * 16;\n"
            "        for (uint32_t i = n; i < up; i++) {\n"
            "            yLocal.SetValue(i, (half)1);\n        }\n",
        )
        == []
    )


def test_tail_padded_to_a_repeat_is_info_with_a_rewrite_from_the_tail(tmp_path: Path):
    """Padded up to 128 elements: at most 127 trips, an info; the Duplicate offered starts at the tail (from
    element 0 it would overwrite the data) and is verify-only (the tail's address need not be aligned)."""
    (f,) = found(
        tmp_path,
        MULS + "        uint32_t n = yGm.GetSize() / 3;\n"
        "        uint32_t up = (n + 128 - 1) / 128 * 128;\n"
        "        for (uint32_t i = n; i < up; i++) {\n"
        "            yLocal.SetValue(i, (half)1);\n        }\n",
    )
    assert f.severity == "info" and "at most 127 times" in f.message
    (fix,) = f.fixes
    assert not fix.safe and fix.edits[0].new_text == "Duplicate(yLocal[n], (half)1, up - n);"


def test_row_driver_handing_rows_to_a_helper_is_silent(tmp_path: Path):
    """Each iteration fills a row through the kernel's own helper; the loop's SetValue is a per-row header."""
    helper = (
        "    __aicore__ inline void FillRow(LocalTensor<half> &t, uint32_t base)\n    {\n"
        "        Duplicate(t[base], (half)0, 64);\n    }\n"
    )
    assert (
        found(
            tmp_path,
            MULS + "        for (uint32_t r = 0; r < tileLength / 64; r++) {\n"
            "            FillRow(yLocal, r * 64);\n"
            "            xLocal.SetValue(r, (half)64);\n        }\n",
            helper,
        )
        == []
    )


def _bytes_helper(calls: str) -> str:
    return (
        "    __aicore__ inline void ZeroGroup(LocalTensor<half> &t, uint32_t group, uint32_t d)\n    {\n"
        "        for (uint32_t b = 0; b < d; b++) {\n            t.SetValue(group * d + b, (half)0);\n"
        "        }\n    }\n"
        "    __aicore__ inline void Groups(LocalTensor<half> &t)\n    {\n" + calls + "    }\n"
    )


def test_loop_bounded_by_a_parameter_every_caller_passes_small_is_silent(tmp_path: Path):
    helper = _bytes_helper("        ZeroGroup(t, 0, 4U);\n        ZeroGroup(t, 1, 10U);\n")
    assert found(tmp_path, MULS + "        Groups(yLocal);\n", helper) == []


def test_loop_bounded_by_a_parameter_one_caller_passes_long_speaks(tmp_path: Path):
    helper = _bytes_helper("        ZeroGroup(t, 0, 4U);\n        ZeroGroup(t, 1, 4096U);\n")
    (f,) = found(tmp_path, MULS + "        Groups(yLocal);\n", helper)
    assert "at most 4096 times" in f.message


def test_bit_mask_table_filled_once_per_launch_is_silent(tmp_path: Path):
    """`(1 << k) - 1` bounds k below 32 though the bound's constant lives in a header the operator does not
    carry; the table is filled once, in Init."""
    kernel = replace_once(
        KERNEL,
        "        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(half));\n",
        "        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(half));\n"
        "        pipe.InitBuffer(tableBuf, 256);\n"
        "        LocalTensor<int32_t> table = tableBuf.Get<int32_t>();\n"
        "        for (int32_t k = 0; k < TABLE_BITS; ++k) {\n"
        "            table.SetValue(k, (1 << k) - 1);\n        }\n",
    )
    kernel = replace_once(kernel, "    TPipe pipe;\n", "    TPipe pipe;\n    TBuf<TPosition::VECCALC> tableBuf;\n")
    op = load_operator(write_operator(tmp_path / "op", kernel=kernel))
    assert not op.model.syntax_errors
    assert [f for f in lint(op) if f.rule == RULE] == []


def test_bit_mask_table_rebuilt_per_tile_speaks(tmp_path: Path):
    """The same table filled in Compute runs once per tile: at most 32 trips each time, still worth a look."""
    (f,) = found(
        tmp_path,
        MULS + "        LocalTensor<int32_t> table = xLocal.ReinterpretCast<int32_t>();\n"
        "        for (int32_t k = 0; k < TABLE_BITS; ++k) {\n"
        "            table.SetValue(k, (1 << k) - 1);\n        }\n",
    )
    assert f.severity == "info" and "at most 32 times" in f.message


def test_value_from_a_helper_that_divides_int64_is_silent(tmp_path: Path):
    helper = (
        "    __aicore__ inline int32_t ModQ(int64_t x, int32_t q)\n    {\n"
        "        const int64_t q64 = q;\n        return (int32_t)(x - (x / q64) * q64);\n    }\n"
    )
    assert (
        found(
            tmp_path,
            MULS + "        LocalTensor<int32_t> c = yLocal.ReinterpretCast<int32_t>();\n"
            "        for (uint32_t j = 0; j < tileLength / 2; j++) {\n"
            "            c.SetValue(j, ModQ((int64_t)c.GetValue(j), 3329));\n        }\n",
            helper,
        )
        == []
    )


def test_strided_scatter_into_records_is_silent(tmp_path: Path):
    """One half every 9 elements (18 bytes): no block stride of a vector instruction lands there."""
    assert (
        found(
            tmp_path,
            MULS + "        for (uint32_t j = 0; j < tileLength / 9; j++) {\n"
            "            yLocal.SetValue(j * 9 + 1, xLocal.GetValue(j));\n        }\n",
        )
        == []
    )


def test_interleave_of_two_halves_still_speaks(tmp_path: Path):
    """`2 * k` and `2 * k + 1` fill the stride together: a permutation a Gather does, so the walk is reported."""
    (f,) = found(
        tmp_path,
        MULS + "        for (uint32_t k = 0; k < tileLength / 2; k++) {\n"
        "            yLocal.SetValue(2 * k, xLocal.GetValue(k));\n"
        "            yLocal.SetValue(2 * k + 1, xLocal.GetValue(k + 4096));\n        }\n",
    )
    assert "one element at a time" in f.message


def test_positions_of_set_bits_found_by_a_bit_scan_are_silent(tmp_path: Path):
    """Compacting the set bits of a 64-bit mask one find-first-set at a time is scalar bit work."""
    assert (
        found(
            tmp_path,
            MULS + "        LocalTensor<int32_t> idx = yLocal.ReinterpretCast<int32_t>();\n"
            "        uint64_t mask = (uint64_t)yGm.GetSize();\n"
            "        int32_t cnt = 0;\n"
            "        int64_t bit = ScalarGetSFFValue<1>(mask);\n"
            "        while (bit != -1 && cnt < (int32_t)tileLength) {\n"
            "            idx.SetValue(cnt, (int32_t)bit);\n"
            "            mask &= mask - 1;\n"
            "            cnt += 1;\n"
            "            bit = ScalarGetSFFValue<1>(mask);\n        }\n",
        )
        == []
    )


def _fill_helper(call: str) -> tuple[str, str]:
    helper = (
        "    __aicore__ inline void ZeroAll(LocalTensor<half> &t, uint32_t n)\n    {\n"
        "        for (uint32_t j = 0; j < n; j++) {\n            t.SetValue(j, (half)0);\n        }\n    }\n"
    )
    return MULS + call, helper


def test_loop_in_a_function_called_only_from_a_comment_is_silent(tmp_path: Path):
    """Its only caller is commented out: the loop never runs."""
    compute, helper = _fill_helper("        /* ZeroAll(yLocal, tileLength); */\n")
    assert found(tmp_path, compute, helper) == []


def test_loop_in_a_function_that_is_called_speaks(tmp_path: Path):
    compute, helper = _fill_helper("        ZeroAll(yLocal, tileLength);\n")
    (f,) = found(tmp_path, compute, helper)
    assert "one element at a time" in f.message


_RUN = (
    "        uint32_t off = yGm.GetSize() % 16;\n"
    "        uint32_t len = tileLength - off;\n"
    "        uint32_t head = (16 - off % 16) % 16;\n"
    "        for (uint32_t i = 0; i < head; i++) {\n"
    "            yLocal.SetValue(off + i, xLocal.GetValue(off + i) * (half)2.0);\n        }\n"
)


def test_unaligned_head_before_an_aligned_vector_body_is_silent(tmp_path: Path):
    """The head up to the next 32-byte block; the body, rounded down to 16 halves, goes to Muls."""
    assert (
        found(
            tmp_path,
            MULS + _RUN + "        uint32_t body = ((len - head) / 16) * 16;\n"
            "        Muls(yLocal[off + head], xLocal[off + head], (half)2.0, body);\n",
        )
        == []
    )


def test_same_loop_without_the_aligned_body_speaks(tmp_path: Path):
    """Without the vector body beside it, nothing proves the loop is a short remainder."""
    (f,) = found(tmp_path, MULS + _RUN)
    assert "one element at a time" in f.message


def _with_config(tmp_path: Path, mode: int, compute: str, members: str) -> list:
    """The kernel reads MODE from a config header of its own (another file: the parser cannot decide the branch
    and keeps the first one)."""
    kernel = replace_once(KERNEL, MULS, compute)
    kernel = replace_once(
        kernel, '#include "kernel_operator.h"\n', '#include "kernel_operator.h"\n#include "config.h"\n'
    )
    kernel = replace_once(kernel, "    uint32_t tileLength;\n};", "    uint32_t tileLength;\n" + members + "};")
    root = write_operator(tmp_path / "op", kernel=kernel)
    (root / "op_kernel" / "config.h").write_text(f"#ifndef MODE\n#define MODE {mode}\n#endif\n")
    op = load_operator(root)
    assert not op.model.syntax_errors
    return [f for f in lint(op) if f.rule == RULE]


_SCALAR_PATH = (
    "#if MODE == 1\n        Muls(yLocal, xLocal, (half)2.0, tileLength);\n#else\n"
    "        ScaleScalar(yLocal, xLocal);\n#endif\n"
)
_SCALAR_HELPER = (
    "    __aicore__ inline void ScaleScalar(LocalTensor<half> &y, LocalTensor<half> &x)\n    {\n"
    "        for (uint32_t j = 0; j < tileLength; j++) {\n"
    "            y.SetValue(j, x.GetValue(j) * (half)2.0);\n        }\n    }\n"
)


def test_helper_called_only_in_a_branch_the_config_switches_off_is_silent(tmp_path: Path):
    """MODE is 1 wherever the operator defines it: the scalar fallback in the #else is never compiled."""
    assert _with_config(tmp_path, 1, _SCALAR_PATH, _SCALAR_HELPER) == []


def test_helper_called_in_the_branch_the_config_selects_speaks(tmp_path: Path):
    (f,) = _with_config(tmp_path, 0, _SCALAR_PATH, _SCALAR_HELPER)
    assert "one element at a time" in f.message


def test_loop_defined_inside_a_branch_the_config_switches_off_is_silent(tmp_path: Path):
    helper = "#if MODE == 2\n" + _SCALAR_HELPER + "#endif\n"
    assert (
        _with_config(tmp_path, 1, MULS + "#if MODE == 2\n        ScaleScalar(yLocal, xLocal);\n#endif\n", helper) == []
    )


# --- ops-nn hold-out: one 32-byte block, a pad to an alignment before a sort, a group loop of vector work ---

BLOCK_COPY = (
    "        for (uint32_t i = 0; i < perBlock; i++) {\n"
    "            yLocal.SetValue(i, xLocal.GetValue(tileLength - perBlock + i));\n        }\n"
)


def test_loop_over_one_block_of_elements_is_silent(tmp_path: Path):
    """`perBlock = ONE_BLK_SIZE / sizeof(half)`: 16 halves, one block the scalar unit moves to an aligned spot."""
    assert (
        found(
            tmp_path,
            MULS + "        perBlock = ONE_BLK_SIZE / sizeof(half);\n" + BLOCK_COPY,
            "    uint32_t perBlock;\n",
        )
        == []
    )


def test_loop_over_eight_blocks_of_elements_speaks(tmp_path: Path):
    """256 bytes of halves (128 elements) is no single block: the length stays unproved, an info."""
    (f,) = found(tmp_path, MULS + "        perBlock = 256 / sizeof(half);\n" + BLOCK_COPY, "    uint32_t perBlock;\n")
    assert f.severity == "info"


def _host_block(tmp_path: Path, host_value: str) -> list:
    """The host sets a tiling field to one block's elements (`BLOCK_BYTES / typeSize`); the kernel loops to it."""
    tiling_h = replace_once(
        TILING_H,
        "    TILING_DATA_FIELD_DEF(uint32_t, tileLength);\n",
        "    TILING_DATA_FIELD_DEF(uint32_t, tileLength);\n    TILING_DATA_FIELD_DEF(uint32_t, blockElems);\n",
    )
    host = replace_once(
        HOST,
        "    tiling.set_tileLength(TILE_LENGTH);\n",
        "    tiling.set_tileLength(TILE_LENGTH);\n    uint32_t typeSize = 2;\n"
        f"    uint32_t blockElems = {host_value};\n    tiling.set_blockElems(blockElems);\n",
    )
    host = replace_once(
        host,
        "constexpr uint32_t BLOCK_DIM = 48;\n",
        "constexpr uint32_t BLOCK_DIM = 48;\nconstexpr uint32_t BLOCK_BYTES = 32;\n",
    )
    kernel = replace_once(KERNEL, MULS, MULS + BLOCK_COPY.replace("perBlock", "cfg.blockElems"))
    kernel = replace_once(
        kernel,
        "uint32_t blockLength, uint32_t tileLength)",
        "uint32_t blockLength, uint32_t tileLength, uint32_t blockElems)",
    )
    kernel = replace_once(
        kernel,
        "        this->tileLength = tileLength;\n",
        "        this->tileLength = tileLength;\n        this->cfg.blockElems = blockElems;\n",
    )
    kernel = replace_once(
        kernel, "    uint32_t tileLength;\n};", "    uint32_t tileLength;\n    struct { uint32_t blockElems; } cfg;\n};"
    )
    kernel = replace_once(kernel, "tilingData.tileLength);", "tilingData.tileLength, tilingData.blockElems);")
    op = load_operator(write_operator(tmp_path / "op", kernel=kernel, host=host, tiling_h=tiling_h))
    assert not op.model.syntax_errors
    return [f for f in lint(op) if f.rule == RULE]


def test_loop_to_the_hosts_one_block_count_is_silent(tmp_path: Path):
    assert _host_block(tmp_path, "BLOCK_BYTES / typeSize") == []


def test_loop_to_a_host_count_of_many_blocks_speaks(tmp_path: Path):
    (f,) = _host_block(tmp_path, "BLOCK_BYTES * 64 / typeSize")
    assert f.severity == "info"


def test_count_under_one_block_in_the_else_of_an_aligned_guard_is_silent(tmp_path: Path):
    """`if (nAlign > perBlock) {...} else { for (i < n) }` with nAlign = n rounded up: at most one block."""
    helper = (
        "    __aicore__ inline uint32_t AlignUpTo(uint32_t a, uint32_t b)\n    {\n"
        "        return (a + b - 1) / b * b;\n    }\n    uint32_t perBlock;\n    uint32_t nAlign;\n"
    )
    assert (
        found(
            tmp_path,
            MULS + "        perBlock = 32 / sizeof(half);\n"
            "        uint32_t n = yGm.GetSize() / 3;\n"
            "        nAlign = AlignUpTo(n, perBlock);\n"
            "        if (nAlign > perBlock) {\n"
            "            Muls(yLocal, xLocal, (half)3.0, nAlign);\n"
            "        } else {\n"
            "            for (uint32_t i = 0; i < n; i++) {\n"
            "                yLocal.SetValue(i, xLocal.GetValue(i));\n            }\n"
            "        }\n",
            helper,
        )
        == []
    )


def test_pad_to_a_block_before_a_sort_is_silent(tmp_path: Path):
    """`old = cnt; cnt = Ceil(cnt, 32) * 32; for (i = old; i < cnt)` pads at most 31 elements to the count a sort
    needs; the tail's UB address is not aligned, so no Duplicate could start there."""
    helper = (
        "    __aicore__ inline uint32_t CeilDiv(uint32_t a, uint32_t b)\n    {\n"
        "        return (a + b - 1) / b;\n    }\n"
    )
    assert (
        found(
            tmp_path,
            MULS + "        uint32_t cnt = yGm.GetSize() / 3;\n"
            "        uint32_t old = cnt;\n"
            "        cnt = CeilDiv(cnt, 32) * 32;\n"
            "        for (uint32_t i = old; i < cnt; ++i) {\n"
            "            yLocal.SetValue(i, (half)-65504.0);\n        }\n",
            helper,
        )
        == []
    )


def test_pad_to_a_repeat_through_ceil_still_speaks(tmp_path: Path):
    helper = (
        "    __aicore__ inline uint32_t CeilDiv(uint32_t a, uint32_t b)\n    {\n"
        "        return (a + b - 1) / b;\n    }\n"
    )
    (f,) = found(
        tmp_path,
        MULS + "        uint32_t cnt = yGm.GetSize() / 3;\n"
        "        uint32_t old = cnt;\n"
        "        cnt = CeilDiv(cnt, 128) * 128;\n"
        "        for (uint32_t i = old; i < cnt; ++i) {\n"
        "            yLocal.SetValue(i, (half)-65504.0);\n        }\n",
        helper,
    )
    assert "at most 127 times" in f.message


_GROUP = (
    "        uint32_t groups = yGm.GetSize() / 64;\n"
    "        for (uint32_t g = 0; g < groups; g++) {\n"
    "            NormGroup(g);\n"
    "            yLocal.SetValue(g, xLocal.GetValue(g) * (half)0.5);\n        }\n"
)


def test_group_loop_whose_helper_issues_vector_work_is_silent(tmp_path: Path):
    """Each iteration runs a group's vector work in the kernel's helper (two levels down); the SetValue stores a
    per-group statistic, not an element of a walk."""
    helper = (
        "    __aicore__ inline void ScaleRows(uint32_t g)\n    {\n"
        "        LocalTensor<half> t = tmpBuf.Get<half>();\n"
        "        Muls(t, t, (half)2.0, 64);\n    }\n"
        "    __aicore__ inline void NormGroup(uint32_t g)\n    {\n        ScaleRows(g);\n    }\n"
        "    TBuf<TPosition::VECCALC> tmpBuf;\n"
    )
    assert found(tmp_path, MULS + _GROUP, helper) == []


def test_group_loop_whose_helper_is_scalar_speaks(tmp_path: Path):
    helper = (
        "    __aicore__ inline void NormGroup(uint32_t g)\n    {\n        count += g;\n    }\n    uint32_t count;\n"
    )
    (f,) = found(tmp_path, MULS + _GROUP, helper)
    assert f.severity == "info"


def _paired_pad(tmp_path: Path, pad_expr: str) -> list:
    """The last tile pads `count` up to `padLen`, which the host sets to the tail rounded up (`pad_expr`)."""
    tiling_h = replace_once(
        TILING_H,
        "    TILING_DATA_FIELD_DEF(uint32_t, tileLength);\n",
        "    TILING_DATA_FIELD_DEF(uint32_t, tileLength);\n"
        "    TILING_DATA_FIELD_DEF(uint32_t, tail);\n"
        "    TILING_DATA_FIELD_DEF(uint32_t, tailPad);\n",
    )
    host = replace_once(
        HOST,
        "    tiling.set_tileLength(TILE_LENGTH);\n",
        "    tiling.set_tileLength(TILE_LENGTH);\n    uint32_t rest = total % TILE_LENGTH;\n"
        f"    tiling.set_tail(rest);\n    tiling.set_tailPad({pad_expr});\n",
    )
    kernel = replace_once(
        KERNEL,
        MULS,
        MULS + "        uint32_t padLen = tileLength;\n"
        "        uint32_t count = tileLength;\n"
        "        if (last) {\n            padLen = cfg.tailPad;\n            count = cfg.tail;\n"
        "        }\n        for (uint32_t i = count; i < padLen; i++) {\n"
        "            yLocal.SetValue(i, (half)0);\n        }\n",
    )
    kernel = replace_once(
        kernel,
        "    uint32_t tileLength;\n};",
        "    uint32_t tileLength;\n    bool last;\n    struct { uint32_t tail; uint32_t tailPad; } cfg;\n};",
    )
    op = load_operator(write_operator(tmp_path / "op", kernel=kernel, host=host, tiling_h=tiling_h))
    assert not op.model.syntax_errors
    return [f for f in lint(op) if f.rule == RULE]


def test_pad_of_the_hosts_tail_to_a_block_is_silent(tmp_path: Path):
    """Full tiles pad nothing (count == padLen); the last pads the host's tail up to 16: at most 15 elements."""
    assert _paired_pad(tmp_path, "(rest + 16 - 1) / 16 * 16") == []


def test_pad_of_the_hosts_tail_to_a_repeat_speaks(tmp_path: Path):
    assert len(_paired_pad(tmp_path, "(rest + 128 - 1) / 128 * 128")) == 1
