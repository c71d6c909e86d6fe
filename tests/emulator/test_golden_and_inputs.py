"""Inputs, goldens and output checks: the Python half of the emulator, no compiler needed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tilewise.analysis.manifest import Case, InputSpec
from tilewise.device.dtypes import from_bf16_bits, to_bf16_bits
from tilewise.device.emulator.build import INCLUDE_DIR, compile_error
from tilewise.device.golden import GoldenError, check_outputs
from tilewise.device.golden import run_golden as golden_in_process
from tilewise.device.golden_process import run_golden_bounded
from tilewise.device.inputs import make_inputs
from tilewise.device.protocol import OutputCheck


def case(**inputs) -> Case:
    return Case(name="t", inputs={k: InputSpec(**v) for k, v in inputs.items()})


def test_inputs_are_seeded_typed_and_respect_init_hints():
    c = case(
        x={"shape": [4, 8], "dtype": "float16"},
        y={"shape": [16], "dtype": "float32", "init": "positive"},
        n={"shape": [5], "dtype": "int32"},
        b={"shape": [3], "dtype": "bfloat16", "init": "ones"},
    )
    a1, a2 = make_inputs(c, 7), make_inputs(c, 7)
    assert all(np.array_equal(a1[k], a2[k]) for k in a1)
    assert not np.array_equal(make_inputs(c, 8)["x"], a1["x"])
    assert a1["x"].dtype == np.float16 and a1["x"].shape == (4, 8)
    assert a1["y"].min() > 0 and a1["n"].dtype == np.int32
    assert np.all(from_bf16_bits(a1["b"]) == 1.0)
    given = make_inputs(c, 0, overrides={"x": np.full((4, 8), 3.0)})["x"]
    assert np.all(given == 3) and given.dtype == np.float16


def test_bf16_round_trip_rounds_to_nearest_even():
    v = np.array([1.0, 1.00390625, 1.01171875, -2.5], dtype=np.float32)  # 1 + 2^-8 is a tie: stays 1.0
    assert from_bf16_bits(to_bf16_bits(v)).tolist() == [1.0, 1.0, 1.015625, -2.5]


def write_golden(tmp_path: Path, body: str) -> str:
    (tmp_path / "golden.py").write_text("import numpy as np\n" + body)
    return "golden.py:golden"


def _in_child(spec, base, inputs, attrs, outputs=None):
    return run_golden_bounded(spec, base, inputs, attrs, outputs, timeout_s=60, memory_bytes=4 * 1024**3)


# The golden as the emulator runs it (in a bounded child process, device/golden_process.py) answers and fails as it
# does called in-process.
@pytest.fixture(params=["in-process", "child"])
def run_golden(request):
    return golden_in_process if request.param == "in-process" else _in_child


def test_golden_runs_with_inputs_and_attrs(tmp_path: Path, run_golden):
    spec = write_golden(tmp_path, "def golden(x, y, alpha=1.0):\n    return x * y + alpha\n")
    (out,) = run_golden(spec, tmp_path, [np.ones(3), np.full(3, 2.0)], {"alpha": 0.5})
    assert out.tolist() == [2.5, 2.5, 2.5]


@pytest.mark.parametrize(
    ("body", "kind", "text"),
    [
        ("def golden(x):\n    raise ValueError('nope')\n", "golden_error", "ValueError"),
        ("def other(x):\n    return x\n", "golden_error", "no function 'golden'"),
        ("import not_a_module_anywhere\ndef golden(x):\n    return x\n", "golden_error", "importing the golden failed"),
    ],
)
def test_golden_failures_are_typed(tmp_path: Path, body, kind, text, run_golden):
    spec = write_golden(tmp_path, body)
    with pytest.raises(GoldenError) as exc:
        run_golden(spec, tmp_path, [np.ones(3)], {})
    assert exc.value.error.kind == kind and text in exc.value.error.message
    assert exc.value.error.file.endswith("golden.py")


def test_golden_raise_names_its_line(tmp_path: Path, run_golden):
    spec = write_golden(tmp_path, "def golden(x):\n    y = x + 1\n    raise RuntimeError('bad')\n")
    with pytest.raises(GoldenError) as exc:
        run_golden(spec, tmp_path, [np.ones(3)], {})
    assert exc.value.error.line == 4  # line 1 is the import the test adds


def test_output_check_tolerances_shapes_and_counts():
    outs = [OutputCheck(name="z", shape=[4], dtype="float32")]
    got = [np.array([1.0, 2.0, 3.0, np.nan], dtype=np.float32)]
    (ok,) = check_outputs(outs, got, [np.array([1.0, 2.0005, 3.0, np.nan])], rtol=1e-3, atol=0)
    assert ok.ok and ok.max_abs_err == pytest.approx(0.0005, rel=1e-3)
    (bad,) = check_outputs(outs, got, [np.array([1.0, 2.1, 3.0, np.nan])], rtol=1e-3, atol=0)
    assert not bad.ok and bad.mismatches == 1
    with pytest.raises(GoldenError, match="2 output"):
        check_outputs(outs, got, [np.ones(4), np.ones(4)], 1e-3, 1e-3)
    with pytest.raises(GoldenError, match="shape"):
        check_outputs(outs, got, [np.ones(7)], 1e-3, 1e-3)


def test_compile_errors_prefer_the_users_file():
    stderr = (
        f"{INCLUDE_DIR}/tw/api/data_copy.h:10:5: error: no matching function\n"
        "/home/u/op/op_kernel/add.cpp:42:17: error: 'tileLen' was not declared in this scope\n"
    )
    e = compile_error(stderr, "kernel")
    assert (e.file, e.line, e.kind) == ("/home/u/op/op_kernel/add.cpp", 42, "compile_error")
    assert "tileLen" in e.message
