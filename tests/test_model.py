"""The operator model: facts for every example, both layouts, and bad input that still yields a model."""

from __future__ import annotations

from pathlib import Path

import pytest
from opgen import KERNEL, replace_once, write_operator
from paths import EXAMPLES

from tilewise.analysis.errors import ProjectError
from tilewise.analysis.operator import load_operator
from tilewise.analysis.project import discover, locate

# name: (operator, entry, inputs, outputs, attrs, tiling struct, knobs with a tune annotation, tiling keys)
FACTS = {
    "add_custom": (
        "AddCustom",
        "add_custom",
        ["x", "y"],
        ["z"],
        [],
        "AddCustomTilingData",
        ["BLOCK_DIM", "BUFFER_NUM", "TILE_LENGTH"],
        [],
    ),
    "broadcast_add": (
        "BroadcastAdd",
        "broadcast_add",
        ["x", "b"],
        ["z"],
        [],
        "BroadcastAddTilingData",
        ["BLOCK_DIM", "BUFFER_NUM", "TILE_ROWS"],
        ["1", "2"],
    ),
    "cast_fp32_to_fp16": (
        "CastFp32ToFp16",
        "cast_fp32_to_fp16",
        ["x"],
        ["y"],
        [],
        "CastFp32ToFp16TilingData",
        ["BLOCK_DIM", "BUFFER_NUM", "TILE_LENGTH"],
        [],
    ),
    "column_sum_atomic": (
        "ColumnSumAtomic",
        "column_sum_atomic",
        ["x"],
        ["y"],
        [],
        "ColumnSumAtomicTilingData",
        ["BLOCK_DIM", "BUFFER_NUM", "COL_TILE", "ROW_TILE"],
        [],
    ),
    "compare_select": (
        "CompareSelect",
        "compare_select",
        ["x", "y"],
        ["z"],
        [],
        "CompareSelectTilingData",
        ["BLOCK_DIM", "BUFFER_NUM", "TILE_LENGTH"],
        [],
    ),
    "gelu": ("Gelu", "gelu", ["x"], ["y"], [], "GeluTilingData", ["BLOCK_DIM", "BUFFER_NUM", "TILE_LENGTH"], []),
    "kernel_invocation_add": (
        "add_kernel",
        "add_kernel",
        ["x", "y"],
        ["z"],
        [],
        "AddTilingData",
        ["BLOCK_DIM", "BUFFER_NUM", "TILE_LENGTH"],
        [],
    ),
    "leaky_relu": (
        "LeakyRelu",
        "leaky_relu",
        ["x"],
        ["y"],
        ["negative_slope"],
        "LeakyReluTilingData",
        ["BLOCK_DIM", "BUFFER_NUM", "TILE_LENGTH"],
        ["1", "2"],
    ),
    "mul_adds_fp32": (
        "MulAddsFp32",
        "mul_adds_fp32",
        ["x", "y"],
        ["z"],
        ["alpha"],
        "MulAddsFp32TilingData",
        ["BLOCK_DIM", "BUFFER_NUM", "TILE_LENGTH"],
        [],
    ),
    "multi_key_abs_sub": (
        "MultiKeyAbsSub",
        "multi_key_abs_sub",
        ["x", "y"],
        ["z"],
        [],
        "MultiKeyAbsSubTilingData",
        ["BLOCK_DIM", "BUFFER_NUM", "TILE_LENGTH"],
        ["1", "2"],
    ),
    "reduce_sum_all": (
        "ReduceSumAll",
        "reduce_sum_all",
        ["x"],
        ["y"],
        [],
        "ReduceSumAllTilingData",
        ["BLOCK_DIM", "BUFFER_NUM", "TILE_LENGTH"],
        [],
    ),
    "rms_norm": (
        "RmsNorm",
        "rms_norm",
        ["x", "gamma"],
        ["y"],
        ["epsilon"],
        "RmsNormTilingData",
        ["BLOCK_DIM", "BUFFER_NUM", "COL_TILE"],
        [],
    ),
    "silu": (
        "Silu",
        "silu",
        ["x"],
        ["y"],
        [],
        "SiluTilingData",
        ["BLOCK_DIM", "BUFFER_NUM", "TILE_LENGTH"],
        ["1", "2"],
    ),
    "softmax_row": (
        "SoftmaxRow",
        "softmax_row",
        ["x"],
        ["y"],
        [],
        "SoftmaxRowTilingData",
        ["BLOCK_DIM", "BUFFER_NUM", "ROWS_PER_TILE"],
        [],
    ),
}


@pytest.mark.parametrize("name", sorted(FACTS))
def test_example_model_facts(name: str):
    op = load_operator(EXAMPLES / name)
    m = op.model
    operator, entry, inputs, outputs, attrs, struct, knobs, keys = FACTS[name]
    assert op.problems == []
    assert m.syntax_errors == []
    assert (m.operator, m.kernel.entry) == (operator, entry)
    assert [t.name for t in m.inputs] == inputs
    assert [t.name for t in m.outputs] == outputs
    assert [a.name for a in m.attrs] == attrs
    assert m.tiling.struct == struct and m.tiling.fields
    assert sorted({k.name for k in m.knobs if k.domain}) == knobs
    assert sorted({b.key.text for b in m.tiling_key_branches}) == keys
    assert m.queues and m.init_buffers and m.api_calls
    read = {r.field for r in m.tiling_reads}
    assert read <= {f.name for f in m.tiling.fields}, "every field the kernel reads is declared"
    for k in m.knobs:
        assert Path(k.file).read_text().splitlines()[k.line - 1][k.col - 1 :].startswith(str(k.value)) or k.value < 0


def test_model_details_of_add_custom():
    m = load_operator(EXAMPLES / "add_custom" / "op_kernel" / "add_custom.cpp").model
    assert m.layout == "project"
    assert m.inputs[0].dtypes == ["float16", "float32"] and m.inputs[0].formats == ["ND", "ND"]
    assert [f.name for f in m.tiling.fields] == ["totalLength", "blockLength", "lastBlockLength", "tileLength"]
    (tf,) = m.tiling.functions
    assert tf.name == "TilingFunc" and [e.text for e in tf.block_dim] == ["usedCores"]
    assert {s.field for s in tf.setters} == {"totalLength", "blockLength", "lastBlockLength", "tileLength"}
    assert [w.text for w in tf.workspace] == ["0"] and tf.uses_platform
    q = {q.name: q for q in m.queues}
    assert (q["inQueueX"].position, q["inQueueX"].depth, q["outQueueZ"].position) == ("VECIN", 2, "VECOUT")
    assert m.pipes == ["pipe"]
    ib = {b.queue: b for b in m.init_buffers}
    assert ib["inQueueX"].num.value == 2 and ib["inQueueX"].size.text == "tileLength * sizeof(T)"
    add = m.calls("Add")[0]
    assert add.function == "Compute" and add.owner == "KernelAdd" and add.in_loop and not add.loops
    assert [c.function for c in m.calls("GET_TILING_DATA")] == ["add_custom"]
    knob = m.knob("TILE_LENGTH")
    assert (knob.value, knob.side, knob.role, knob.kind) == (4096, "host", "tile", "constexpr")
    assert knob.domain == [64, 128, 256, 512, 1024, 2048, 4096, 8192]
    assert m.knob("BUFFER_NUM").side == "kernel"


def test_kernel_invocation_layout():
    m = load_operator(EXAMPLES / "kernel_invocation_add" / "add_kernel.cpp").model
    assert m.layout == "invocation"
    (launch,) = m.launches
    assert launch.kernel == "add_kernel" and launch.block_dim.text == "blockDim"
    assert m.knob("BLOCK_DIM").value == 8


def test_locate_from_any_file_and_discover_many():
    a = locate(EXAMPLES / "gelu" / "op_host" / "gelu_tiling.h")
    assert a.root == (EXAMPLES / "gelu").resolve()
    found = discover(EXAMPLES)
    assert len(found) == len([p for p in EXAMPLES.iterdir() if p.is_dir()])


def test_not_an_operator_is_a_clear_error(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(ProjectError) as exc:
        locate(tmp_path / "notes.txt")
    assert "not inside an AscendC operator" in str(exc.value) and "notes.txt" in str(exc.value)


@pytest.mark.parametrize("qualifier", ["__global__ __vector__", "__vector__ __global__", "__global__ __mix__(1, 2)"])
def test_an_asc_file_whose_entry_names_the_core_kind_is_a_kernel_invocation(tmp_path: Path, qualifier: str):
    """Newer CANN's single-source .asc files qualify the entry with the core kind (`__vector__`, `__cube__`,
    `__mix__(m, n)`) instead of `__aicore__`, and launch a template entry with its arguments before the <<<>>>."""
    src = tmp_path / "scale.asc"
    src.write_text(
        '#include "kernel_operator.h"\n'
        f"template <uint32_t n>\n{qualifier} void scale(GM_ADDR x) {{ }}\n"
        "int main() { scale<64><<<8, nullptr, nullptr>>>(nullptr); return 0; }\n"
    )
    op = locate(tmp_path)
    assert op.layout == "invocation" and src in op.kernel_files and src in op.host_files
    model = load_operator(tmp_path).model
    assert model.kernel.entry == "scale"


def test_missing_op_host_still_gives_the_kernel_model(tmp_path: Path):
    root = write_operator(tmp_path / "op")
    for f in (root / "op_host").iterdir():
        f.unlink()
    (root / "op_host").rmdir()
    op = load_operator(root)
    assert any("missing op_host/" in p.message for p in op.problems)
    assert op.model.kernel.entry == "scale" and op.model.queues


def test_non_utf8_and_binary_files_are_problems_not_crashes(tmp_path: Path):
    root = write_operator(tmp_path / "op")
    (root / "op_kernel" / "extra.h").write_bytes(b"// caf\xe9\nint x;\n")
    (root / "op_kernel" / "blob.h").write_bytes(b"\x00\x01\x02binary")
    op = load_operator(root)
    messages = {Path(p.file).name: p.message for p in op.problems}
    assert "not UTF-8" in messages["extra.h"] and "re-save" in messages["extra.h"]
    assert "binary" in messages["blob.h"]
    assert op.model.kernel.entry == "scale"


def test_unknown_dtype_in_opdef_is_reported_with_its_line(tmp_path: Path):
    from opgen import HOST

    host = replace_once(
        HOST,
        'this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16})',
        'this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT77})',
    )
    op = load_operator(write_operator(tmp_path / "op", host=host))
    (p,) = op.problems
    expected_line = next(i for i, line in enumerate(host.splitlines(), 1) if "DT_FLOAT77" in line)
    assert "unknown dtype 'ge::DT_FLOAT77'" in p.message and p.line == expected_line


def test_half_typed_kernel_still_builds_a_model(tmp_path: Path):
    cut = KERNEL[: KERNEL.index("        outQueueY.EnQue<half>(yLocal);")] + "        outQueueY.En"
    op = load_operator(write_operator(tmp_path / "op", kernel=cut))
    assert op.model.syntax_errors
    assert {b.queue for b in op.model.init_buffers} == {"inQueueX", "outQueueY"}
    assert op.model.calls("Muls") and op.model.tiling.struct == "ScaleTilingData"


def test_nested_calls_that_start_together_come_outer_first():
    """`GetTPipePtr()->FetchEventID(...)`: two calls start at one byte. Their order used to follow the query's match
    order, which varied between loads; now the outer call always comes first."""
    calls = load_operator(EXAMPLES / "softmax_row").model.api_calls
    pairs = [(a, b) for a, b in zip(calls, calls[1:], strict=False) if a.loc.start == b.loc.start]
    assert pairs and all(a.loc.end > b.loc.end for a, b in pairs)
    assert [(a.name, b.name) for a, b in pairs][0] == ("FetchEventID", "GetTPipePtr")


def test_a_valid_ge_dtype_the_analysis_does_not_model_is_no_problem(tmp_path: Path):
    # ops-nn's relu_grad_v2 registers ge::DT_UINT1 (a 1-bit mask, in the Graph API's DataType list): lint printed
    # "unknown dtype ... use a ge::DT_* type" as an error on valid code and exited 1.
    from opgen import HOST

    host = replace_once(
        HOST,
        'this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16})',
        'this->Output("y").ParamType(REQUIRED).DataType({ge::DT_UINT1})',
    )
    op = load_operator(write_operator(tmp_path / "op", host=host))
    assert op.problems == []
