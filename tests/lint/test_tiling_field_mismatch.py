"""tiling-field-mismatch says "never read" only when no read exists anywhere in the kernel's text, and "missing
field" only when the read really does not compile (issue 13). Kernels: variants of tests/opgen.py's scale operator,
whose tiling struct gains a field `extra` that the variants read in the ways public kernels do."""

from __future__ import annotations

from pathlib import Path

from opgen import HOST, KERNEL, TILING_H, replace_once, write_operator

from tilewise.analysis.lint import lint
from tilewise.analysis.operator import load_operator

RULE = "tiling-field-mismatch"
WITH_EXTRA = replace_once(
    TILING_H,
    "    TILING_DATA_FIELD_DEF(uint32_t, tileLength);\n",
    "    TILING_DATA_FIELD_DEF(uint32_t, tileLength);\n    TILING_DATA_FIELD_DEF(uint32_t, extra);\n",
)
ENTRY = (
    "    GET_TILING_DATA(tilingData, tiling);\n    KernelScale op;\n"
    "    op.Init(x, y, tilingData.blockLength, tilingData.tileLength);\n"
)


def found(root: Path) -> list:
    op = load_operator(root)
    return [f for f in lint(op) if f.rule == RULE]


def with_entry(body: str, before_class: str = "") -> str:
    kernel = replace_once(KERNEL, ENTRY, body)
    return replace_once(kernel, "class KernelScale {", before_class + "class KernelScale {")


def test_unread_field_speaks(tmp_path: Path):
    (f,) = found(write_operator(tmp_path / "op", tiling_h=WITH_EXTRA))
    assert f.severity == "info" and "'extra'" in f.message and f.line == 6


def test_field_read_inside_a_macro_body_is_read(tmp_path: Path):
    macro = (
        "#define SCALE_OP_IMPL(td)                                   \\\n"
        "    KernelScale op;                                          \\\n"
        "    op.Init(x, y, td.blockLength + td.extra, td.tileLength); \\\n"
        "    op.Process()\n\n"
    )
    kernel = with_entry("    GET_TILING_DATA(tilingData, tiling);\n    SCALE_OP_IMPL(tilingData);\n", macro)
    kernel = kernel.replace("    SCALE_OP_IMPL(tilingData);\n    op.Process();\n", "    SCALE_OP_IMPL(tilingData);\n")
    assert found(write_operator(tmp_path / "op", kernel=kernel, tiling_h=WITH_EXTRA)) == []


def test_struct_handed_to_a_macro_we_cannot_read_is_silent(tmp_path: Path):
    kernel = with_entry(
        "    GET_TILING_DATA(tilingData, tiling);\n    GENERAL_OP_IMPL(KernelScale, tilingData);\n"
        "    KernelScale op;\n    op.Init(x, y, tilingData.blockLength, tilingData.tileLength);\n",
        '#include "common/general_op.h"\n',
    )
    assert found(write_operator(tmp_path / "op", kernel=kernel, tiling_h=WITH_EXTRA)) == []


def test_field_read_through_a_stored_tiling_pointer_is_read(tmp_path: Path):
    helper = (
        "struct Holder {\n"
        "    const ScaleTilingData* tilingDevice;\n"
        "    __aicore__ inline uint32_t Extra() const { return tilingDevice->extra; }\n"
        "};\n\n"
    )
    kernel = with_entry(
        ENTRY + "    Holder h;\n    h.tilingDevice = &tilingData;\n    if (h.Extra() > 0) { op.Process(); }\n", helper
    )
    assert found(write_operator(tmp_path / "op", kernel=kernel, tiling_h=WITH_EXTRA)) == []


def test_field_read_from_a_struct_copy_in_a_member_is_read(tmp_path: Path):
    kernel = replace_once(
        KERNEL, "    uint32_t tileLength;\n};", "    uint32_t tileLength;\npublic:\n    ScaleTilingData tiling;\n};"
    )
    kernel = replace_once(
        kernel, ENTRY, ENTRY + "    op.tiling = tilingData;\n    if (op.tiling.extra > 0) { op.Process(); }\n"
    )
    assert found(write_operator(tmp_path / "op", kernel=kernel, tiling_h=WITH_EXTRA)) == []


def test_field_read_by_a_helper_taking_the_struct_pointer_is_read(tmp_path: Path):
    helper = "__aicore__ inline uint32_t ExtraOf(const ScaleTilingData* t)\n{\n    return t->extra;\n}\n\n"
    kernel = with_entry(ENTRY + "    if (ExtraOf(&tilingData) > 0) { op.Process(); }\n", helper)
    assert found(write_operator(tmp_path / "op", kernel=kernel, tiling_h=WITH_EXTRA)) == []


def test_struct_copied_as_bytes_is_silent(tmp_path: Path):
    kernel = with_entry(ENTRY + "    CopyToWorkspace(workspace, (const uint8_t*)&tilingData, sizeof(tilingData));\n")
    assert found(write_operator(tmp_path / "op", kernel=kernel, tiling_h=WITH_EXTRA)) == []


def test_a_host_tiling_class_with_methods_is_no_tiling_struct(tmp_path: Path):
    """Kernel-invocation style: the host's `ScaleTilingHelper` class (methods, members) is never shipped."""
    host = HOST + (
        "\nclass ScaleTilingHelper {\npublic:\n    bool IsCapable();\n    uint32_t DoTiling();\n"
        "private:\n    uint32_t coreNum_;\n};\n"
    )
    assert found(write_operator(tmp_path / "op", host=host)) == []


def test_setter_on_a_library_struct_is_no_missing_field(tmp_path: Path):
    host = replace_once(
        HOST,
        "    tiling.set_tileLength(TILE_LENGTH);\n",
        "    tiling.set_tileLength(TILE_LENGTH);\n    SoftMaxTiling smTiling;\n    smTiling.set_srcM(4);\n",
    )
    assert found(write_operator(tmp_path / "op", host=host)) == []


def test_setter_of_an_undeclared_field_is_an_error(tmp_path: Path):
    host = replace_once(
        HOST,
        "    tiling.set_tileLength(TILE_LENGTH);\n",
        "    tiling.set_tileLength(TILE_LENGTH);\n    tiling.set_tileCount(4);\n",
    )
    (f,) = found(write_operator(tmp_path / "op", host=host))
    assert f.severity == "error" and "set_tileCount" in f.message


HOST_TILING_CLASS = """\
#include "tiling_base/tiling_base.h"
namespace optiling {
class ScaleTilingRegBase : public TilingBaseClass {
protected:
    constexpr static int64_t RESERVED_BYTES{0};
    uint64_t GetTilingKey() const override;
private:
    int64_t rowTotal_{0};
    uint64_t coreNum_{0};
};
}
"""


def test_members_of_a_host_tiling_class_are_no_tiling_fields(tmp_path: Path):
    # ops-nn hold-out: with no BEGIN_TILING_DATA_DEF in sight, a host class deriving from TilingBaseClass became the
    # operator's tiling struct and its constants, methods and private members were reported as fields never read.
    # A class with a base is not data shipped to the kernel, and its full member list is not known either.
    root = write_operator(tmp_path / "op", tiling_h=HOST_TILING_CLASS)
    op = load_operator(root)
    assert [f.message for f in lint(op) if f.rule == "tiling-field-mismatch"] == []


def _unread_with_registrations(tmp_path: Path, extra: str) -> list[str]:
    tiling_h = replace_once(
        TILING_H,
        "    TILING_DATA_FIELD_DEF(uint32_t, tileLength);\n",
        "    TILING_DATA_FIELD_DEF(uint32_t, tileLength);\n    TILING_DATA_FIELD_DEF(uint32_t, gradScaleIsEmpty);\n",
    )
    tiling_h = replace_once(
        tiling_h,
        "REGISTER_TILING_DATA_CLASS(Scale, ScaleTilingData)\n",
        "REGISTER_TILING_DATA_CLASS(Scale, ScaleTilingData)\n" + extra,
    )
    op = load_operator(write_operator(tmp_path / "op", tiling_h=tiling_h))
    return [f.message for f in lint(op) if f.rule == "tiling-field-mismatch"]


def test_struct_shared_with_another_operator_is_not_reported_unread(tmp_path: Path):
    # ops-nn hold-out: SwiGluTilingData is registered for SwiGlu, SwiGluGrad and DequantSwigluQuant; the field this
    # kernel never reads is read by DequantSwigluQuant's kernel, elsewhere: "remove it" would break that operator.
    assert _unread_with_registrations(tmp_path, "REGISTER_TILING_DATA_CLASS(ScaleGrad, ScaleTilingData)\n") == []


def test_tiling_key_registrations_are_this_operators_own(tmp_path: Path):
    # `<Op>_<tiling key>` registrations name this operator: the unread field is still reported
    (msg,) = _unread_with_registrations(tmp_path, "REGISTER_TILING_DATA_CLASS(Scale_1001, ScaleTilingData)\n")
    assert "'gradScaleIsEmpty'" in msg and "never read" in msg
