"""An OpDef whose dtype list comes from a helper function (`.DataType(DtypesWith(ge::DT_BF16))`, issue 13): the
model reads the helper when it simply returns a braced list, else leaves the list empty with a note; never a
problem (which the CLI and lint print as an error). Operator: tests/opgen.py's scale operator, its OpDef edited."""

from __future__ import annotations

from pathlib import Path

from opgen import HOST, replace_once, write_operator

from tilewise.analysis.operator import load_operator

X_LINE = '        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});\n'


def with_helper(helper: str, call: str) -> str:
    host = replace_once(HOST, X_LINE, X_LINE.replace("DataType({ge::DT_FLOAT16})", f"DataType({call})"))
    return replace_once(host, "namespace ops {\n", helper + "namespace ops {\n")


def test_helper_returning_a_braced_list_is_read(tmp_path: Path):
    helper = (
        "static std::vector<ge::DataType> DtypesWith(ge::DataType extra)\n{\n"
        "    return {ge::DT_FLOAT16, ge::DT_FLOAT, extra};\n}\n\n"
    )
    op = load_operator(write_operator(tmp_path / "op", host=with_helper(helper, "DtypesWith(ge::DT_BF16)")))
    (x,) = op.model.inputs
    assert x.dtypes == ["float16", "float32", "bfloat16"] and x.dtype_note is None
    assert op.problems == []


def test_helper_returning_a_local_vector_is_read(tmp_path: Path):
    helper = (
        "std::vector<ge::DataType> AllTypes()\n{\n"
        "    std::vector<ge::DataType> types = {ge::DT_INT32, ge::DT_FLOAT};\n    return types;\n}\n\n"
    )
    op = load_operator(write_operator(tmp_path / "op", host=with_helper(helper, "AllTypes()")))
    assert op.model.inputs[0].dtypes == ["int32", "float32"] and op.problems == []


def test_helper_computing_its_list_is_skipped_with_a_note(tmp_path: Path):
    helper = (
        "static std::vector<ge::DataType> DtypeScalarToTensor2(ge::DataType t)\n{\n"
        "    std::vector<ge::DataType> out;\n    for (int i = 0; i < 2; i++) {\n        out.push_back(t);\n"
        "    }\n    return out;\n}\n\n"
    )
    op = load_operator(write_operator(tmp_path / "op", host=with_helper(helper, "DtypeScalarToTensor2(ge::DT_BF16)")))
    (x,) = op.model.inputs
    assert x.dtypes == [] and "DtypeScalarToTensor2(ge::DT_BF16)" in x.dtype_note
    assert op.problems == []


def test_helper_defined_nowhere_is_skipped_with_a_note(tmp_path: Path):
    op = load_operator(write_operator(tmp_path / "op", host=with_helper("", "DtypesFromLibrary(ge::DT_BF16)")))
    assert op.model.inputs[0].dtypes == [] and op.model.inputs[0].dtype_note and op.problems == []
