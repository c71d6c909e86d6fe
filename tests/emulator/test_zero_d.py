"""0-d tensors on the emulator, with the operator of tests/zero_d_op.py (y = x * value + dims, s = 2 * value): a
0-d input from a manifest's `shape = []`, from `--shape value=[]` or `value=scalar`, or from a .npy of shape ()
reaches the golden as an array of shape (), the kernel as a one-element GM buffer and the host tiling as a shape of
dim count 0; a 0-d output is read back and compared as 0-d. A one-element 1-d value is told apart all the way."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from zero_d_op import write_mul_value

from tilewise.analysis.operator import load_operator
from tilewise.cli import main
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import Measurement, RunRequest

# One worker runs this module (--dist loadgroup): its one operator folder is built once (a build is keyed by the
# sources' paths too), whatever runs between.
pytestmark = pytest.mark.xdist_group("test_zero_d")


@pytest.fixture(scope="session")
def op_root(tmp_path_factory, needs_gxx) -> Path:
    return write_mul_value(tmp_path_factory.mktemp("zero_d") / "mul_value")


X = np.arange(256, dtype=np.float32)


@pytest.fixture(scope="session")
def manifest_run(op_root, emu_cache) -> Measurement:
    """The manifest's 0-d case run once with value 1.5 (the build every test of the module then takes)."""
    op = load_operator(op_root)
    case = op.manifest.case("scalar_value")
    assert case.inputs["value"].shape == []
    request = RunRequest(case, inputs={"x": X, "value": np.array(1.5, dtype=np.float32)}, keep_outputs=True)
    return EmulatorDevice(cache_dir=emu_cache, timeout_s=60).run(op, request)


def cli_json(capsys, *argv) -> tuple[int, dict, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if captured.out.strip() else {}), captured.err


def test_a_manifest_0d_input_reaches_golden_kernel_and_tiling_as_0d(manifest_run):
    m = manifest_run
    # the golden asserts value.shape == () and leaves the dim count out of y: y is right only if the tiling saw 0
    assert m.ok and m.correct is True and m.error is None, m.error
    assert [(o.name, o.shape) for o in m.outputs] == [("y", [256]), ("s", [])]
    y, s = m.produced_outputs() or []
    assert y.shape == (256,) and s.shape == ()  # the 0-d output comes back 0-d
    np.testing.assert_allclose(y, X * 1.5)
    # the kernel's GetValue(0) read value's one-element GM buffer, and the host tiling read the same element
    assert float(s) == 3.0


@pytest.mark.parametrize("spelling", ["[]", "scalar"])
def test_run_takes_a_0d_shape_from_the_command_line(op_root, manifest_run, capsys, spelling):
    # the case's value is 1-d; the flag makes it 0-d, which the golden insists on
    code, d, err = cli_json(
        capsys, "run", op_root, "--case", "vector_value", "--shape", f"value={spelling}", "--format", "json"
    )
    assert code == 0 and d["correct"], (err, d.get("error"))
    assert [(o["name"], o["shape"]) for o in d["outputs"]] == [("y", [256]), ("s", [])]


def test_a_0d_npy_input_is_the_0d_input(op_root, manifest_run, capsys, tmp_path):
    three = tmp_path / "three.npy"
    np.save(three, np.array(3.0, dtype=np.float32))
    golden = f"{op_root / 'golden.py'}:golden_of_three"
    argv = ("run", op_root, "--case", "vector_value", "--input", f"value={three}", "--golden", golden)
    code, d, err = cli_json(capsys, *argv, "--format", "json")
    assert code == 0 and d["correct"], (err, d.get("error"))
    assert d["outputs"][1]["shape"] == []  # the array's shape () replaced the case's [1]


def any_rank(op_root: Path) -> str:
    return f"{op_root / 'golden.py'}:golden_any_rank"


def test_a_one_element_1d_value_is_dim_count_1_to_the_tiling(op_root, manifest_run, capsys):
    # The same element as a 1-d tensor of shape [1]: the tiling sees dim count 1 and y carries it, as the golden that
    # adds value.ndim expects; s takes value's shape.
    argv = ("run", op_root, "--case", "vector_value", "--golden", any_rank(op_root), "--format", "json")
    code, d, err = cli_json(capsys, *argv)
    assert code == 0 and d["correct"], (err, d.get("error"))
    assert [o["shape"] for o in d["outputs"]] == [[256], [1]]


def test_the_0d_golden_is_handed_a_1d_array_for_a_1d_value(op_root, manifest_run, capsys):
    code, d, _ = cli_json(capsys, "run", op_root, "--case", "vector_value", "--format", "json")
    assert code == 1 and d["error"]["kind"] == "golden_error" and "value is not 0-d" in d["error"]["message"]


def test_a_0d_value_is_dim_count_0_under_the_any_rank_golden(op_root, manifest_run, capsys):
    # y agrees with value.ndim = 0 only if the kernel added dim count 0
    code, d, err = cli_json(capsys, "run", op_root, "--golden", any_rank(op_root), "--format", "json")
    assert code == 0 and d["correct"], (err, d.get("error"))
