"""0-d tensors without a device run: the spellings of a 0-d shape on the command line and the one-line errors for
bad ones, the case a command line builds (a 0-d manifest input, a .npy of shape (), a flag either way), the inputs
drawn for a 0-d spec, and the NPU harness's spec line."""

from __future__ import annotations

from argparse import Namespace
from pathlib import Path

import numpy as np
import pytest
from zero_d_op import write_mul_value

from tilewise.analysis.errors import TilewiseError
from tilewise.analysis.manifest import Case, InputSpec
from tilewise.analysis.operator import load_operator
from tilewise.cli import main
from tilewise.device.inputs import make_inputs
from tilewise.device.npu.harness import spec_text
from tilewise.session.cases import TensorRef, build_case, parse_shape

VALUE = TensorRef("value", None)


@pytest.mark.parametrize(
    ("text", "dims"),
    [
        ("[]", []),
        ("[ ]", []),
        ("()", []),
        ("scalar", []),
        ("Scalar", []),
        (" scalar ", []),
        ("1", [1]),
        ("8,1024", [8, 1024]),
        ("8x1024", [8, 1024]),
        ("8, 1024", [8, 1024]),
        ("[8, 1024]", [8, 1024]),
        ("(8,1024)", [8, 1024]),
        ("(4,)", [4]),
        ("4,", [4]),
        ("[1]", [1]),
    ],
)
def test_shape_spellings(text, dims):
    assert parse_shape(text, VALUE) == dims


@pytest.mark.parametrize("text", ["", "[", "[8", "8]", "(8]", "[a]", "8,,2", ",8", "scalars", "[]]", "x", "1.5"])
def test_a_bad_spelling_is_a_one_line_error_that_shows_the_0d_one(text):
    with pytest.raises(TilewiseError) as caught:
        parse_shape(text, VALUE)
    e = caught.value
    assert e.file == "--shape" and "\n" not in e.one_line()
    assert e.message.startswith(f"'value={text}' is not a shape; write --shape value=D0,D1,...")
    assert "value=[] / value=scalar for a 0-d tensor" in e.message


@pytest.fixture
def op_root(tmp_path: Path) -> Path:
    return write_mul_value(tmp_path / "mul_value")


@pytest.mark.parametrize(
    ("flag", "words"),
    [
        ("value=", ["'value=' is not a shape", "value=[] / value=scalar for a 0-d tensor"]),
        ("value=[", ["'value=[' is not a shape"]),
        ("value=0", ["'value'", "every dimension must be a positive integer"]),
        ("value=[-1]", ["'value'", "every dimension must be a positive integer"]),
    ],
)
def test_the_command_line_says_a_bad_shape_in_one_line(op_root, capsys, flag, words):
    for command in ("run", "tune"):
        code = main([command, str(op_root), "--shape", flag])
        captured = capsys.readouterr()
        (line,) = captured.err.strip().splitlines()
        assert code == 2 and captured.out == "" and line.startswith("error: --shape: "), line
        assert all(w in line for w in words), line


def _case(op_root: Path, case: str | None = None, shape=None, arrays=None) -> Case:
    args = Namespace(case=case, shape=shape, dtype=None, attr=None)
    return build_case(load_operator(op_root), args, arrays)


def test_the_manifests_0d_input_stays_0d_and_flags_make_or_unmake_one(op_root):
    assert _case(op_root).inputs["value"].shape == []  # scalar_value, as the manifest says
    assert _case(op_root, shape=["value=1"]).inputs["value"].shape == [1]
    assert _case(op_root, "vector_value").inputs["value"].shape == [1]
    assert _case(op_root, "vector_value", shape=["value=scalar"]).inputs["value"].shape == []
    # without a manifest the flags alone describe the case
    (op_root / "tilewise.toml").unlink()
    case = _case(op_root, shape=["x=4,64", "value=[]"])
    assert {n: s.shape for n, s in case.inputs.items()} == {"x": [4, 64], "value": []}


def test_an_npy_of_shape_nothing_is_a_0d_input(op_root):
    zero_d = {VALUE: np.array(2.0, dtype=np.float32)}
    assert _case(op_root, "vector_value", arrays=zero_d).inputs["value"].shape == []
    one = {VALUE: np.array([2.0], dtype=np.float32)}
    assert _case(op_root, arrays=one).inputs["value"].shape == [1]  # the array's shape wins over the manifest's
    assert _case(op_root, "vector_value", shape=["value=[]"], arrays=one).inputs["value"].shape == []  # --shape's


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int32", "bool"])
def test_the_inputs_drawn_for_a_0d_spec_are_0d(dtype):
    case = Case(name="c", inputs={"value": InputSpec(shape=[], dtype=dtype), "x": InputSpec(shape=[3], dtype=dtype)})
    drawn = make_inputs(case, seed=0)
    assert drawn["value"].shape == () and drawn["x"].shape == (3,)
    # a one-element array given for it takes its shape; two elements cannot be one
    given = make_inputs(case, seed=0, overrides={"value": np.ones(1)})["value"]
    assert isinstance(given, np.ndarray) and given.shape == ()
    with pytest.raises(
        ValueError, match=r"input value: an array of shape \[2\] \(2 elements\) cannot be an input of shape \[\]"
    ):
        make_inputs(case, seed=0, overrides={"value": np.ones(2)})


def test_the_npu_harness_spec_gives_a_0d_tensor_rank_0(op_root):
    op = load_operator(op_root)
    text = spec_text(op.model, op.manifest.case("scalar_value"), [[256], []], "/w", 0)
    lines = text.splitlines()
    assert "input x 1 256 /w/in_x.bin" in lines
    assert "input value 0 /w/in_value.bin" in lines  # rank 0, no dims: the harness reads the file name next
    assert "output out1 0 /w/out_1.bin" in lines
