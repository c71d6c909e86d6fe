"""low-block-dim speaks only when a constant is proved to BE the launch's blockDim (issue 13).

The expert's false positives, rebuilt on this project's scale operator (tests/opgen.py): a per-32-byte-block element
count that only divides into the core count, a deliberate cap `min(coreNum, 36)`, a count read from the platform,
`SetBlockDim(1)` on an empty-input path next to a run-time count, and a constant of 0 (which made the rule raise
ZeroDivisionError on two public operators). The true case still fires, with a gain from the bandwidth model and a
fix offered only as "Verify on the emulator" (the GetBlockIdx split may stop being aligned).
"""

from __future__ import annotations

from pathlib import Path

from opgen import HOST, KERNEL, replace_once, write_operator

from tilewise.analysis.lint import lint
from tilewise.analysis.operator import load_operator


def low_block_dim(root: Path):
    op = load_operator(root)
    assert not op.model.syntax_errors, op.model.syntax_errors
    return [f for f in lint(op) if f.rule == "low-block-dim"]


def test_constant_block_dim_fires_with_model_gain_and_a_verify_fix(tmp_path: Path):
    host = replace_once(HOST, "constexpr uint32_t BLOCK_DIM = 48;", "constexpr uint32_t BLOCK_DIM = 8;")
    (f,) = low_block_dim(write_operator(tmp_path / "op", host=host))
    assert f.severity == "warning" and "8 of the 48" in f.message and "cost model" in f.message
    assert "up to" not in f.message
    (fix,) = f.fixes
    assert not fix.safe and fix.edits[0].new_text == "48"  # the split's alignment is not proved: verify it


def test_elements_per_block_constant_that_divides_is_silent(tmp_path: Path):
    """FP32_BLOCK_NUM = 8 is the number of floats in a 32-byte block: it divides into the count, it is not one."""
    host = replace_once(HOST, "constexpr uint32_t BLOCK_DIM = 48;", "constexpr uint32_t FP32_BLOCK_NUM = 8;")
    host = replace_once(host, "uint32_t blockDim = BLOCK_DIM;", "uint32_t blockDim = total / FP32_BLOCK_NUM / 1024;")
    assert low_block_dim(write_operator(tmp_path / "op", host=host)) == []


def test_deliberate_cap_against_the_core_count_is_silent(tmp_path: Path):
    host = replace_once(HOST, "constexpr uint32_t BLOCK_DIM = 48;", "constexpr uint32_t PERFORMANCE_CORE_NUM = 36;")
    host = replace_once(
        host,
        "uint32_t blockDim = BLOCK_DIM;",
        "uint32_t coreNum = platform_ascendc::PlatformAscendC(context->GetPlatformInfo())"
        ".GetCoreNumAiv();\n    uint32_t blockDim = std::min(coreNum, PERFORMANCE_CORE_NUM);",
    )
    assert low_block_dim(write_operator(tmp_path / "op", host=host)) == []


def test_conditional_cap_is_silent(tmp_path: Path):
    host = replace_once(HOST, "constexpr uint32_t BLOCK_DIM = 48;", "constexpr uint32_t MAX_CORE_NUM = 24;")
    host = replace_once(
        host,
        "uint32_t blockDim = BLOCK_DIM;",
        "uint32_t blockDim = total / 4096 > MAX_CORE_NUM ? MAX_CORE_NUM : total / 4096;",
    )
    assert low_block_dim(write_operator(tmp_path / "op", host=host)) == []


def test_single_core_path_for_an_empty_input_is_silent(tmp_path: Path):
    host = replace_once(
        HOST,
        "    uint32_t blockDim = BLOCK_DIM;\n",
        "    if (total == 0) {\n        context->SetBlockDim(1);\n        return ge::GRAPH_SUCCESS;\n"
        "    }\n    uint32_t blockDim = platform_ascendc::PlatformAscendC(context->GetPlatformInfo())"
        ".GetCoreNumAiv();\n",
    )
    assert low_block_dim(write_operator(tmp_path / "op", host=host)) == []


def test_zero_constant_does_not_raise(tmp_path: Path):
    """A block-dim constant of 0 (a placeholder the code overrides) once raised ZeroDivisionError in the fix title."""
    host = replace_once(HOST, "constexpr uint32_t BLOCK_DIM = 48;", "constexpr uint32_t BLOCK_DIM = 0;")
    op = load_operator(write_operator(tmp_path / "op", host=host))
    from tilewise.analysis.chip import load_chip
    from tilewise.analysis.rules.base import RuleContext
    from tilewise.analysis.rules.low_block_dim import LowBlockDim

    assert list(LowBlockDim().check(RuleContext(op.model, op.sources, load_chip()))) == []


def test_kernel_without_a_core_split_gets_a_note_and_no_fix(tmp_path: Path):
    host = replace_once(HOST, "constexpr uint32_t BLOCK_DIM = 48;", "constexpr uint32_t BLOCK_DIM = 1;")
    kernel = KERNEL.replace(" + blockLength * GetBlockIdx()", "")
    (f,) = low_block_dim(write_operator(tmp_path / "op", host=host, kernel=kernel))
    assert f.severity == "info" and f.fixes == [] and "GetBlockIdx" in f.message


def test_a_cap_that_idles_most_of_the_chip_is_a_note_with_a_verify_fix(tmp_path: Path):
    """`min(BLOCK_DIM, coreNum)` with BLOCK_DIM = 1 has the form of a deliberate cap, but runs on one core of 48."""
    host = replace_once(HOST, "constexpr uint32_t BLOCK_DIM = 48;", "constexpr uint32_t BLOCK_DIM = 1;")
    host = replace_once(
        host,
        "uint32_t blockDim = BLOCK_DIM;",
        "uint32_t coreNum = platform_ascendc::PlatformAscendC(context->GetPlatformInfo())"
        ".GetCoreNumAiv();\n    uint32_t blockDim = BLOCK_DIM < coreNum ? BLOCK_DIM : coreNum;",
    )
    (f,) = low_block_dim(write_operator(tmp_path / "op", host=host))
    assert f.severity == "info" and "caps the launch" in f.message
    (fix,) = f.fixes
    assert not fix.safe and fix.edits[0].new_text == "48"


# ---- the fix is safe only when the split is proved to stay sound at the new count for every case (issue 13) ----


def _stored_total_op(tmp_path: Path) -> Path:
    """BLOCK_DIM = 8, and the host stores the input size (`totalLength`) beside each core's share."""
    from opgen import TILING_H

    tiling_h = replace_once(
        TILING_H,
        "    TILING_DATA_FIELD_DEF(uint32_t, tileLength);\n",
        "    TILING_DATA_FIELD_DEF(uint32_t, tileLength);\n    TILING_DATA_FIELD_DEF(uint32_t, totalLength);\n",
    )
    host = replace_once(HOST, "constexpr uint32_t BLOCK_DIM = 48;", "constexpr uint32_t BLOCK_DIM = 8;")
    host = replace_once(
        host,
        "    tiling.set_tileLength(TILE_LENGTH);\n",
        "    tiling.set_tileLength(TILE_LENGTH);\n    tiling.set_totalLength(total);\n",
    )
    return write_operator(tmp_path / "op", host=host, tiling_h=tiling_h)


def _case(name: str, total: int, block_dim: int = 8):
    from tilewise.analysis.observed import CaseFacts

    return CaseFacts(
        case=name,
        block_dim=block_dim,
        tiling={"blockLength": total // block_dim, "tileLength": 8192, "totalLength": total},
    )


def _fix(root: Path, facts: list):
    op = load_operator(root)
    (f,) = [f for f in lint(op, facts=facts) if f.rule == "low-block-dim"]
    (fix,) = f.fixes
    return fix


def test_split_proved_sound_at_every_core_for_every_case_is_safe(tmp_path: Path):
    """48 x 8192 halves: at 48 cores each share is one whole tile, 16 KB, exact."""
    fix = _fix(_stored_total_op(tmp_path), [_case("a", 48 * 8192)])
    assert fix.safe and fix.edits[0].new_text == "48" and "proved for 1 case" in fix.title


def test_largest_count_every_case_allows_is_offered_as_safe(tmp_path: Path):
    """A second case of 16 tiles: 48, 32 and 24 cores would cut it into partial tiles or leave a remainder; 16 is
    the largest count both cases split into whole tiles."""
    fix = _fix(_stored_total_op(tmp_path), [_case("a", 48 * 8192), _case("b", 16 * 8192)])
    assert fix.safe and fix.edits[0].new_text == "16"


def test_split_that_would_misalign_stays_verify_only(tmp_path: Path):
    """8 tiles over 8 cores: no larger count keeps a whole tile per core, so nothing is proved."""
    fix = _fix(_stored_total_op(tmp_path), [_case("a", 8 * 8192)])
    assert not fix.safe and fix.edits[0].new_text == "48"


def test_without_cases_the_fix_stays_verify_only(tmp_path: Path):
    assert not _fix(_stored_total_op(tmp_path), []).safe


def test_facts_from_another_count_prove_nothing(tmp_path: Path):
    """A case that ran at 16 cores says nothing about the constant's 8: the host read here is not the one that ran."""
    assert not _fix(_stored_total_op(tmp_path), [_case("a", 48 * 8192, block_dim=16)]).safe


def test_block_index_stored_but_never_read_gets_the_split_first_note(tmp_path: Path):
    """`blockIdx = GetBlockIdx()` kept in a member nothing reads: every core would redo the whole tensor, so the
    finding says to split the work first and offers no count."""
    host = replace_once(HOST, "constexpr uint32_t BLOCK_DIM = 48;", "constexpr uint32_t BLOCK_DIM = 1;")
    kernel = KERNEL.replace(" + blockLength * GetBlockIdx()", "")
    kernel = replace_once(
        kernel,
        "        this->blockLength = blockLength;\n",
        "        this->blockLength = blockLength;\n        this->blockIdx = GetBlockIdx();\n",
    )
    kernel = replace_once(
        kernel, "    uint32_t tileLength;\n};", "    uint32_t tileLength;\n    uint32_t blockIdx;\n};"
    )
    (f,) = low_block_dim(write_operator(tmp_path / "op", host=host, kernel=kernel))
    assert f.severity == "info" and f.fixes == [] and "never uses GetBlockIdx()" in f.message


def test_kernel_that_reads_no_input_and_writes_once_is_silent(tmp_path: Path):
    """A shape-like kernel: no copy from GM, one copy out outside any loop: there is no work to split."""
    host = replace_once(HOST, "constexpr uint32_t BLOCK_DIM = 48;", "constexpr uint32_t BLOCK_DIM = 1;")
    kernel = replace_once(
        KERNEL,
        "        for (uint32_t i = 0; i < loops; i++) {\n            CopyIn(i);\n"
        "            Compute();\n            CopyOut(i);\n        }\n",
        "        LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();\n"
        "        Duplicate(yLocal, (half)1, 16);\n        outQueueY.EnQue<half>(yLocal);\n"
        "        yLocal = outQueueY.DeQue<half>();\n        DataCopy(yGm, yLocal, 16);\n"
        "        outQueueY.FreeTensor(yLocal);\n",
    )
    kernel = kernel.replace("        DataCopy(xLocal, xGm[progress * tileLength], tileLength);\n", "")
    assert low_block_dim(write_operator(tmp_path / "op", host=host, kernel=kernel)) == []
