"""The tiling function's own knobs (analysis/extract/tiling_knobs.py): platform queries and decisive literals, how
the search space takes them, and the edits `tune --apply` makes for them."""

from __future__ import annotations

from pathlib import Path

from opgen import HOST, PLATFORM_HOST, replace_once, scale_manifest, write_operator

from tilewise.analysis.chip import load_chip
from tilewise.analysis.operator import load_operator
from tilewise.analysis.rewrite import apply_edits, tuned_edits
from tilewise.search.domains import REACH, ladder
from tilewise.search.space import build_space, config_texts, unreachable

PLATFORM_CPP = "op_host/scale.cpp"


def _op(tmp_path: Path, host: str = PLATFORM_HOST):
    return load_operator(write_operator(tmp_path / "scale", host=host, manifest=scale_manifest(4096)))


def _tiling_knobs(op) -> dict[str, tuple[int, str, str | None]]:
    return {k.name: (k.value, k.role, k.target) for k in op.model.tiling_knobs}


def test_platform_queries_and_divisors_are_knobs(tmp_path):
    knobs = _tiling_knobs(_op(tmp_path))
    assert knobs == {
        "platform.ub_bytes": (0, "tile", "ubSize"),
        "platform.cores": (0, "block_dim", "coreNum"),
        # `ubSize / 2 / 4`: two divisors on one line, told apart by column
        "perBuffer@scale.cpp:14:35": (2, "divisor", None),
        "perBuffer@scale.cpp:14:39": (4, "divisor", None),
    }


def test_facts_offsets_alignment_and_modes_are_not_knobs(tmp_path):
    host = replace_once(
        PLATFORM_HOST,
        "    uint32_t perBuffer = ubSize / 2 / 4;\n",
        "    uint32_t perBuffer = (ubSize - 1024 * 8) / 4 / 4;\n"  # a reservation: the 1024 * 8 stays
        "    uint32_t typeSize = 2;\n"  # a dtype's size
        "    uint32_t rows = (total + 15) / 16 * 16;\n"  # an alignment pair and an offset
        "    tiling.set_blockLength(rows / sizeof(uint16_t));\n"
        "    context->SetTilingKey(3);\n",  # a tiling key picks a kernel variant
    )
    host = replace_once(host, "tileLength = blockLength;", "tileLength = blockLength / typeSize;")
    names = set(_tiling_knobs(_op(tmp_path, host)))
    # only the two `/ 4`s of perBuffer remain among the literals
    assert names == {"platform.ub_bytes", "platform.cores", "perBuffer@scale.cpp:14:48", "perBuffer@scale.cpp:14:52"}


def test_a_query_whose_answer_is_never_used_is_not_a_knob(tmp_path):
    host = replace_once(PLATFORM_HOST, "uint32_t blockLength = total / coreNum;", "uint32_t blockLength = total / 8;")
    host = replace_once(host, "context->SetBlockDim(coreNum);", "context->SetBlockDim(8);")
    knobs = _tiling_knobs(_op(tmp_path, host))
    assert "platform.cores" not in knobs
    assert "platform.ub_bytes" in knobs
    (block_dim,) = [v for name, v in knobs.items() if name.startswith("blockDim@scale.cpp:")]
    assert block_dim == (8, "block_dim", None)  # a literal SetBlockDim is one


def test_named_constants_stay_with_the_constants_pass(tmp_path):
    op = _op(tmp_path, HOST)  # BLOCK_DIM and TILE_LENGTH are named constants
    assert {k.name for k in op.model.knobs} >= {"BLOCK_DIM", "TILE_LENGTH"}
    assert not [k for k in op.model.tiling_knobs if k.kind == "tiling_literal"]


def test_space_takes_the_platform_at_the_chips_figures(tmp_path):
    op = _op(tmp_path)
    chip = load_chip("910B2")
    space = {k.name: k for k in build_space(op, chip).knobs}
    cores, ub = space["platform.cores"], space["platform.ub_bytes"]
    assert cores.current == chip.vector_cores and max(cores.domain) == chip.vector_cores and min(cores.domain) == 1
    assert ub.current == chip.ub_bytes and min(ub.domain) == chip.ub_bytes // 16
    # `ubSize / 2`: a divisor of the buffers, from the undivided 1 up on the ladder (its buffers are sized at run
    # time: fitted to the UB only once a screening has seen them)
    divisor = space["perBuffer@scale.cpp:14:35"]
    assert divisor.role == "divisor" and divisor.domain == ladder(1, 2 * REACH)
    assert divisor.domain[:6] == [1, 2, 3, 4, 6, 8]
    assert space["perBuffer@scale.cpp:14:35"].source == "tiling_literal"


def test_annotations_still_decide_the_space(tmp_path):
    host = replace_once(
        PLATFORM_HOST,
        "namespace optiling {",
        "constexpr uint32_t SPLIT = 2;  // tilewise: tune SPLIT in [1, 2]\nnamespace optiling {",
    )
    host = replace_once(
        host, "uint32_t blockLength = total / coreNum;", "uint32_t blockLength = total / coreNum / SPLIT;"
    )
    space = build_space(_op(tmp_path, host), load_chip("910B2"))
    assert [k.name for k in space.knobs] == ["SPLIT"]


def test_a_literal_knob_rewrites_only_its_literal(tmp_path):
    op = _op(tmp_path)
    texts = config_texts(op, {"perBuffer@scale.cpp:14:39": 8})
    ((path, text),) = texts.items()
    assert path.endswith(PLATFORM_CPP)
    before = op.sources[path].text.splitlines()
    after = text.splitlines()
    assert [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b] == [13]
    assert after[13] == "    uint32_t perBuffer = ubSize / 2 / 8;"


def test_apply_clamps_a_platform_query_after_it(tmp_path):
    op = _op(tmp_path)
    figures = {"platform.cores": 48, "platform.ub_bytes": 196608}
    config = {"platform.cores": 8, "platform.ub_bytes": 196608, "perBuffer@scale.cpp:14:35": 2}
    edits = tuned_edits(op.model, op.sources, config, platform=figures, cases=["small", "large"])
    assert {e.file for e in edits} == {str(tmp_path / "scale" / PLATFORM_CPP)}
    path = edits[0].file
    after = apply_edits(op.sources[path].text, edits).splitlines()
    before = op.sources[path].text.splitlines()
    added = [line for line in after if line not in before]
    assert added == [
        "    coreNum = coreNum < 8 ? coreNum : 8;  // tilewise: tuned: platform.cores 8 (the chip has 48) on cases "
        "small, large"
    ]
    assert after.index(added[0]) == before.index("    uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();") + 1
    # nothing else changes: not the chip-sized UB, not the literal the search left where it was
    assert len(after) == len(before) + 1


def test_what_no_knob_reaches_is_said(tmp_path):
    host = replace_once(
        PLATFORM_HOST,
        "context->SetBlockDim(coreNum);",
        "context->SetBlockDim(coreNum);\n    context->SetTilingKey(tileLength > 1024 ? 1 : 0);",
    )
    op = _op(tmp_path, host)
    notes = unreachable(op, build_space(op, load_chip("910B2")))
    assert any("tiling key (tileLength > 1024 ? 1 : 0)" in n for n in notes)
    assert any("split" in n for n in notes)


def test_core_counts_that_divide_every_cases_work_join_the_domain(tmp_path):
    root = write_operator(tmp_path / "scale", host=PLATFORM_HOST, manifest=scale_manifest(36 * 1024))
    space = {k.name: k for k in build_space(load_operator(root), load_chip("910B2")).knobs}
    cores = space["platform.cores"].domain
    assert {3, 6, 9, 18, 36} <= set(cores)  # 36 x 1024 elements split evenly over these
    assert 5 not in cores and 7 not in cores and max(cores) == 48
