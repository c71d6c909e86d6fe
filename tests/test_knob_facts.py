"""Constants that state facts of the types or the hardware are no knobs (analysis/knob_facts.py), judged by what the
code does with them, in each spelling: a named `const`, a `constexpr`, a `#define`, an enumerator, a literal in the
tiling function. The tilings are written here; the names are neutral or misleading on purpose, so that only the use
gives a fact away. And what looks like a fact but is a choice stays a knob: a tile count that divides one length
and multiplies another, a ceiling division by a tile size."""

from __future__ import annotations

from pathlib import Path

import pytest
from opgen import HOST, KERNEL, replace_once, scale_manifest, write_operator

from tilewise.analysis.chip import load_chip
from tilewise.analysis.knob_facts import knob_facts
from tilewise.analysis.operator import Operator, load_operator
from tilewise.search.space import build_space


def _op(tmp_path: Path, host_head: str = "", host_body: str = "", kernel_head: str = "", kernel_body: str = ""):
    """The test operator with constants declared at the top of the host (`host_head`) or kernel (`kernel_head`)
    and statements that use them in the tiling function (`host_body`) or the kernel's Init (`kernel_body`)."""
    host = replace_once(HOST, "namespace optiling {", host_head + "namespace optiling {")
    anchor = "    uint32_t blockDim = BLOCK_DIM;\n"
    host = replace_once(host, anchor, anchor + host_body)
    kernel = replace_once(KERNEL, "class KernelScale {", kernel_head + "class KernelScale {")
    kernel = replace_once(
        kernel, "        this->tileLength = tileLength;\n", "        this->tileLength = tileLength;\n" + kernel_body
    )
    return load_operator(write_operator(tmp_path / "scale", host=host, kernel=kernel, manifest=scale_manifest(4096)))


def facts(op: Operator) -> dict[str, str]:
    return knob_facts(op.model, op.sources)


def knobs_searched(op: Operator) -> set[str]:
    return {k.name for k in build_space(op, load_chip("910B2")).knobs}


# ---- type sizes --------------------------------------------------------------------------------------------------
def test_a_constant_compared_with_a_sizeof_is_a_type_size(tmp_path):
    op = _op(
        tmp_path,
        host_head="constexpr uint32_t WIDE = 4;\n",
        host_body="    if (sizeof(float) == WIDE) { total = total * 1; }\n"
        "    tiling.set_tileLength(TILE_LENGTH / WIDE);\n",
    )
    assert "type size" in facts(op)["WIDE"]
    assert "WIDE" not in knobs_searched(op) and "TILE_LENGTH" in knobs_searched(op)


def test_a_define_compared_through_a_variable_holding_a_sizeof_is_a_type_size(tmp_path):
    op = _op(
        tmp_path,
        host_head="#define NARROW 2\n",
        host_body="    uint32_t each = sizeof(uint16_t);\n    if (each != NARROW) { return ge::GRAPH_FAILED; }\n"
        "    tiling.set_blockLength(total / blockDim / NARROW);\n",
    )
    assert "type size" in facts(op)["NARROW"]
    assert "NARROW" not in knobs_searched(op)


def test_a_constant_in_the_place_of_a_sizeof_is_a_type_size(tmp_path):
    """`bytes = n * K` in one branch, `bytes = n * sizeof(half)` in the other: K stands where a sizeof stands."""
    op = _op(
        tmp_path,
        host_head="const uint32_t UNIT_A = 4;\n",
        host_body="    uint32_t bytes = 0;\n"
        "    if (total > 4096) { bytes = TILE_LENGTH * UNIT_A; } else { bytes = TILE_LENGTH * sizeof(uint16_t); }\n"
        "    tiling.set_tileLength(bytes / 2);\n",
    )
    assert "type size" in facts(op)["UNIT_A"]


def test_a_constant_chosen_against_a_sizeof_or_by_the_dtype_is_a_type_size(tmp_path):
    op = _op(
        tmp_path,
        host_head="constexpr uint32_t SZ_A = 4;\nconstexpr uint32_t SZ_B = 2;\nconstexpr uint32_t SZ_C = 4;\n",
        host_body="    auto dt = context->GetInputDesc(0)->GetDataType();\n"
        "    uint32_t w = (dt == ge::DT_FLOAT) ? SZ_A : SZ_B;\n"
        "    uint32_t v = total > 8 ? SZ_C : sizeof(uint16_t);\n"
        "    tiling.set_tileLength(TILE_LENGTH / w / v);\n",
    )
    found = facts(op)
    assert {"SZ_A", "SZ_B", "SZ_C"} <= set(found) and all("type size" in found[n] for n in ("SZ_A", "SZ_B", "SZ_C"))


def test_a_literal_the_tiling_compares_with_a_sizeof_is_no_knob(tmp_path):
    op = _op(
        tmp_path,
        host_body="    uint32_t splitCount = 4;\n    if (splitCount == sizeof(float)) { blockDim = blockDim + 0; }\n"
        "    tiling.set_tileLength(TILE_LENGTH / splitCount);\n",
    )
    (literal,) = [k for k in op.model.tiling_knobs if k.kind == "tiling_literal" and "splitCount" in k.context]
    assert "type size" in facts(op)[literal.name]
    assert literal.name not in knobs_searched(op)


# ---- alignments and block sizes -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("head", "body"),
    [
        ("constexpr uint32_t GRAIN = 32;\n", "    uint32_t up = (TILE_LENGTH + GRAIN - 1) / GRAIN * GRAIN;\n"),
        ("#define GRAIN 16\n", "    uint32_t blocks = TILE_LENGTH / GRAIN;\n    uint32_t up = blocks * GRAIN;\n"),
        ("const uint32_t GRAIN = 64;\n", "    uint32_t up = TILE_LENGTH & ~(GRAIN - 1);\n"),
        ("constexpr uint32_t GRAIN = 8;\n", "    uint32_t up = TILE_LENGTH;\n    if (up % GRAIN != 0) { up = 0; }\n"),
        ("constexpr uint32_t GRAIN = 32;\n", "    uint32_t up = AlignUp(TILE_LENGTH, GRAIN);\n"),
    ],
    ids=["ceil-align", "via-variable", "mask", "modulus", "align-helper"],
)
def test_a_rounding_unit_is_an_alignment(tmp_path, head, body):
    op = _op(tmp_path, host_head=head, host_body=body + "    tiling.set_tileLength(up);\n")
    assert "alignment" in facts(op)["GRAIN"]
    assert "GRAIN" not in knobs_searched(op)


def test_the_block_dividing_a_byte_length_is_a_fact(tmp_path):
    op = _op(
        tmp_path,
        kernel_head="constexpr uint32_t CHUNKS = 32;\n",
        kernel_body="        uint32_t blocks = this->tileLength * sizeof(half) / CHUNKS;\n"
        "        DataCopy(xGm, xGm, blocks);\n",
    )
    assert "32-byte block" in facts(op)["CHUNKS"]


# ---- hardware limits ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("head", "body"),
    [
        ("constexpr uint32_t LIMIT_A = 65535;\n", "    uint32_t len = std::min(TILE_LENGTH, LIMIT_A);\n"),
        ("#define LIMIT_A 255\n", "    uint32_t len = TILE_LENGTH;\n    if (len > LIMIT_A) { len = 1; }\n"),
        ("const uint32_t LIMIT_A = 32;\n", "    uint32_t len = std::max(TILE_LENGTH * sizeof(uint16_t), LIMIT_A);\n"),
    ],
    ids=["burst-length", "repeats", "one-block-floor"],
)
def test_a_bound_at_a_hardware_limit_is_a_fact(tmp_path, head, body):
    op = _op(tmp_path, host_head=head, host_body=body + "    tiling.set_tileLength(len);\n")
    assert "LIMIT_A" in facts(op)
    assert "LIMIT_A" not in knobs_searched(op)


def test_a_literal_bound_at_a_field_limit_is_no_knob(tmp_path):
    op = _op(tmp_path, host_body="    tiling.set_tileLength(std::min(TILE_LENGTH, 65535U));\n")
    assert not [n for n in knobs_searched(op) if n.startswith("tileLength@")]


def test_an_enumerator_is_never_a_knob(tmp_path):
    op = _op(
        tmp_path,
        host_head="enum Sizes : uint32_t { EL_BYTES = 4, GRAIN_E = 32 };\n",
        host_body="    tiling.set_tileLength((TILE_LENGTH + GRAIN_E - 1) / GRAIN_E * GRAIN_E / EL_BYTES);\n",
    )
    assert not {"EL_BYTES", "GRAIN_E"} & {k.name for k in op.model.knobs} and not {"EL_BYTES", "GRAIN_E"} & (
        knobs_searched(op)
    )


# ---- choices that look like facts ---------------------------------------------------------------------------------
def test_a_count_that_divides_one_length_and_multiplies_another_stays_a_knob(tmp_path):
    """`tile = share / PARTS` and `loops = PARTS * 2` are two uses of a tile count, not a unit converted back."""
    op = _op(
        tmp_path,
        host_head="constexpr uint32_t PARTS = 4;\n",
        host_body="    uint32_t piece = total / blockDim / PARTS;\n    uint32_t loops = PARTS * 2;\n"
        "    tiling.set_tileLength(piece + loops * 0);\n",
    )
    assert "PARTS" not in facts(op)
    assert "PARTS" in knobs_searched(op)


def test_a_ceiling_division_by_a_tile_size_stays_a_knob(tmp_path):
    op = _op(
        tmp_path,
        host_head="constexpr uint32_t PIECE = 32;\n",
        host_body="    uint32_t count = (total + PIECE - 1) / PIECE;\n    tiling.set_blockLength(count);\n",
    )
    assert "PIECE" not in facts(op)


def test_a_ping_pong_index_keeps_its_buffer_count_a_knob(tmp_path):
    """`i % BUFFER_NUM` picks a buffer; only a remainder compared with 0 or taken off is an alignment check."""
    op = _op(tmp_path, kernel_body="        uint32_t slot = this->tileLength % BUFFER_NUM;\n        slot = slot + 1;\n")
    assert "BUFFER_NUM" not in facts(op) and "BUFFER_NUM" in knobs_searched(op)


def test_a_threshold_on_a_byte_length_is_no_type_size(tmp_path):
    """`n * sizeof(T) > K` compares K with a byte length, not with a type's size."""
    op = _op(
        tmp_path,
        host_head="constexpr uint32_t SMALL_TILE = 64;\n",
        host_body="    uint32_t tile = TILE_LENGTH;\n"
        "    if (total * sizeof(uint16_t) < SMALL_TILE) { tile = TILE_LENGTH / SMALL_TILE; }\n"
        "    tiling.set_tileLength(tile);\n",
    )
    assert "SMALL_TILE" not in facts(op)


@pytest.mark.parametrize(
    "body",
    [
        "    uint32_t tail = total % PIECE == 0 ? PIECE : total % PIECE;\n    tiling.set_tileLength(tail);\n",
        "    uint32_t whole = total / PIECE * PIECE;\n    tiling.set_tileLength(total - whole + PIECE);\n",
        "    uint32_t t = TILE_LENGTH;\n    if (total < PIECE) { t = total; }\n    tiling.set_tileLength(t / PIECE);\n",
    ],
    ids=["tail-of-tiles", "whole-tiles", "threshold-on-elements"],
)
def test_a_tile_sizes_own_arithmetic_keeps_it_a_knob(tmp_path, body):
    """The tail of a tiling (`n % TILE == 0 ? TILE : n % TILE`), its whole tiles (`n / TILE * TILE`) and a threshold
    on an element count read like an alignment or a block bound; at a tile's size (1024) they are the tiling's."""
    op = _op(tmp_path, host_head="constexpr uint32_t PIECE = 1024;\n", host_body=body)
    assert "PIECE" not in facts(op) and "PIECE" in knobs_searched(op)


def test_a_core_or_buffer_count_is_a_choice_however_else_it_is_used(tmp_path):
    """BUFFER_NUM also rounds a length to an even count (`n / BUFFER_NUM * BUFFER_NUM`), which reads as an
    alignment: what it feeds, the InitBuffers' count, decides that it is searched."""
    op = _op(
        tmp_path,
        kernel_body="        uint32_t even = this->tileLength / BUFFER_NUM * BUFFER_NUM;\n"
        "        this->tileLength = even;\n",
    )
    assert "alignment" in facts(op)["BUFFER_NUM"]
    assert "BUFFER_NUM" in knobs_searched(op)


def test_two_casts_of_products_are_no_counterparts(tmp_path):
    """`static_cast<size_t>(K * N)` beside `static_cast<size_t>(sizeof(float) * N)`: two sizes computed, not one
    expression with K where a sizeof stands."""
    op = _op(
        tmp_path,
        host_head="constexpr uint32_t PIECE = 512;\n",
        host_body="    size_t a = static_cast<size_t>(PIECE * total);\n"
        "    size_t b = static_cast<size_t>(sizeof(float) * total);\n"
        "    tiling.set_tileLength(a / PIECE + b * 0 + PIECE);\n",
    )
    assert "PIECE" not in facts(op)
