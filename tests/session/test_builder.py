"""The session builder (tilewise.session.builder) without a device run: what a command line or an editor request
turns into, and each error it gives, as the one line naming the flag or file and the fix."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import numpy as np
import pytest
from paths import EXAMPLES

from tilewise.analysis.errors import TilewiseError
from tilewise.analysis.operator import load_operator
from tilewise.cli import build_parser
from tilewise.cli.common import session_request
from tilewise.session.builder import DeviceChoice, SessionRequest, TuneOptions, build_session, select_cases

ADD = EXAMPLES / "add_custom"
CASES = [c["name"] for c in tomllib.loads((ADD / "tilewise.toml").read_text())["cases"]]  # in the file's order


def _add(tmp_path: Path) -> Path:
    root = tmp_path / "add_custom"
    shutil.copytree(ADD, root)
    return root


def _error(request: SessionRequest, **kwargs) -> TilewiseError:
    with pytest.raises(TilewiseError) as caught:
        build_session(request, **kwargs)
    assert "\n" not in caught.value.one_line()
    return caught.value


def test_no_case_flag_takes_every_manifest_case_for_a_tune_and_the_first_for_a_run():
    tune = build_session(SessionRequest(str(ADD)))
    assert [c.name for c in tune.cases] == CASES
    assert tune.device.name == "emulator" and tune.arrays == {} and tune.problems == []
    run = build_session(SessionRequest(str(ADD), one_case=True))
    assert [c.name for c in run.cases] == ["fp16_base"] and run.case.name == "fp16_base"
    picked = build_session(SessionRequest(str(ADD), cases=("fp16_odd_tail", "fp16_base")))
    assert [c.name for c in picked.cases] == ["fp16_odd_tail", "fp16_base"]


def test_shape_flags_describe_one_case_on_top_of_the_named_one():
    s = build_session(SessionRequest(str(ADD), cases=("fp32_ragged",), shape=("x=8,64", "y=8,64")))
    [case] = s.cases
    assert case.name == "fp32_ragged"
    assert case.inputs["x"].shape == [8, 64] and case.inputs["x"].dtype == "float32"  # the case's dtype kept


def test_an_input_array_feeds_its_tensor_and_gives_its_shape(tmp_path: Path):
    data = tmp_path / "x.npy"
    np.save(data, np.ones((4, 32), dtype=np.float16))
    s = build_session(SessionRequest(str(ADD), inputs=(f"x={data}",), shape=("y=4,32",)))
    [case] = s.cases
    assert case.inputs["x"].shape == [4, 32] and set(s.arrays) == {"x"}
    assert s.arrays["x"].dtype == np.float16 and s.arrays["x"].shape == (4, 32)


def test_the_editors_texts_are_read_instead_of_the_files(tmp_path: Path):
    root = _add(tmp_path)
    kernel = root / "op_kernel" / "add_custom.cpp"
    text = kernel.read_text().replace("x + y", "x + y") + "\n// edited in the editor\n"
    s = build_session(SessionRequest(str(root), overlay={str(kernel.resolve()): text}))
    assert s.op.sources[str(kernel.resolve())].text == text
    assert "edited in the editor" not in kernel.read_text()


def test_a_loaded_operator_and_a_made_device_are_used_as_given():
    op = load_operator(ADD)
    device = DeviceChoice(chip="910B3").open()
    s = build_session(SessionRequest(str(ADD), manifest_purpose="to run or tune it"), op=op, device=device)
    assert s.op is op and s.device is device and [c.name for c in s.cases] == CASES


def test_problems_are_handed_over_before_a_later_error(tmp_path: Path):
    root = _add(tmp_path)
    kernel = root / "op_kernel" / "add_custom.cpp"
    kernel.write_bytes(b"\xff\xfe not utf-8")
    said: list = []
    err = _error(SessionRequest(str(root), shape=("nosuch=1",)), on_problems=said.append)
    assert said and said[0] and str(kernel) in said[0][0].file  # the problem, said before the error
    assert err.file == "--shape" and "unknown input 'nosuch'" in err.message


def test_the_tuner_gets_the_sessions_cases_inputs_and_options(tmp_path: Path):
    data = tmp_path / "x.npy"
    np.save(data, np.ones((4, 32), dtype=np.float16))
    s = build_session(SessionRequest(str(ADD), inputs=(f"x={data}",), shape=("y=4,32",)))
    tuner = s.tuner(TuneOptions(strategy="random", budget=5, seed=3, workers=1))
    assert tuner.cases == s.cases and tuner.budget == 5 and tuner.workers == 1 and tuner.strategy_name == "random"
    assert set(tuner.inputs) == {"x"}
    with pytest.raises(ValueError, match="unknown strategy 'annealing'"):
        s.tuner(TuneOptions(strategy="annealing"))


def test_the_command_line_says_what_the_request_holds():
    args = build_parser().parse_args(
        ["tune", str(ADD), "--case", "fp16_base", "--shape", "x=8,64", "--device", "emulator", "--chip", "910B3"]
    )
    request = session_request(args)
    assert request.cases == ("fp16_base",) and request.shape == ("x=8,64",) and not request.one_case
    assert request.device == DeviceChoice("emulator", chip="910B3", timeout_s=60.0)
    run = session_request(build_parser().parse_args(["run", str(ADD), "--case", "fp32_ragged"]), one_case=True)
    assert run.cases == ("fp32_ragged",) and run.one_case


# ---- each error, naming its flag or file --------------------------------------------------------------------------


def test_an_unknown_device_names_the_flag_it_came_from():
    err = _error(SessionRequest(str(ADD), device=DeviceChoice("tpu")))
    assert err.file == "--device" and "unknown device 'tpu'" in err.message and "emulator, npu" in err.message
    editor = _error(SessionRequest(str(ADD), device=DeviceChoice("tpu", flag="tilewise.device")))
    assert editor.file == "tilewise.device"


def test_a_folder_that_is_no_operator_is_named(tmp_path: Path):
    err = _error(SessionRequest(str(tmp_path)))
    assert str(tmp_path) in err.one_line()


def test_an_input_that_is_not_npy_names_the_file(tmp_path: Path):
    bad = tmp_path / "x.npy"
    bad.write_text("not an array")
    err = _error(SessionRequest(str(ADD), inputs=(f"x={bad}",)))
    assert err.file == str(bad) and "cannot load --input x" in err.message and "give a .npy file" in err.message


def test_an_unknown_case_names_the_manifest_and_the_cases_it_has():
    err = _error(SessionRequest(str(ADD), cases=("nosuch",)))
    assert err.file.endswith("tilewise.toml") and "no case named 'nosuch'" in err.message
    assert all(name in err.message for name in CASES)


def test_several_cases_with_shape_flags_is_refused_on_the_case_flag():
    err = _error(SessionRequest(str(ADD), cases=("fp16_base", "fp32_ragged"), shape=("x=8,64",)))
    assert err.file == "--case" and "give one --case with --shape" in err.message


def test_a_run_takes_one_case():
    err = _error(SessionRequest(str(ADD), cases=("fp16_base", "fp32_ragged"), one_case=True))
    assert err.file == "--case" and "a run runs one case" in err.message


def test_a_bad_shape_names_the_flag():
    err = _error(SessionRequest(str(ADD), shape=("x=big",)))
    assert err.file == "--shape" and "'x=big' is not a shape" in err.message
    err = _error(SessionRequest(str(ADD), shape=("x",)))
    assert err.file == "--shape" and "is not NAME=VALUE" in err.message


def test_a_case_named_for_an_operator_without_cases_names_its_folder(tmp_path: Path):
    root = _add(tmp_path)
    (root / "tilewise.toml").unlink()
    err = _error(SessionRequest(str(root), cases=("fp16_base",), shape=("x=8,64", "y=8,64")))
    assert err.file == str(root.resolve()) and "the operator has no tilewise.toml cases" in err.message


def test_an_editor_request_on_an_operator_without_cases_says_to_add_them(tmp_path: Path):
    root = _add(tmp_path)
    (root / "tilewise.toml").unlink()
    op = load_operator(root)
    with pytest.raises(ValueError, match="no tilewise.toml with shape cases; add one to run or tune it"):
        select_cases(op, SessionRequest(str(root), manifest_purpose="to run or tune it"))
