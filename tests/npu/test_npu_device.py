"""The NPU device against a fake CANN installation (tests/npu/fake_cann.py): the paths a user hits, from no CANN
to a profile the device cannot read, and a run whose outputs pass the golden with msprof's figures."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from fake_cann import make_fake_cann, make_project
from paths import EXAMPLES

from tilewise.analysis.operator import load_operator
from tilewise.cli import main
from tilewise.device.npu.cann import CannError, find_cann, soc_name
from tilewise.device.npu.device import NpuDevice
from tilewise.device.npu.msprof import read_profile
from tilewise.device.protocol import RunRequest
from tilewise.device.registry import make_device


@pytest.fixture(scope="module")
def cann_home(tmp_path_factory, needs_gxx) -> Path:
    return make_fake_cann(tmp_path_factory.mktemp("cann") / "ascend-toolkit" / "latest")


@pytest.fixture
def npu(cann_home, tmp_path, monkeypatch):
    """(device, operator folder): the fake toolkit sourced, a fresh results and build cache, a copy of add_custom."""
    monkeypatch.setenv("ASCEND_HOME_PATH", str(cann_home))
    monkeypatch.setenv("TILEWISE_CACHE", str(tmp_path / "cache"))
    for name in ("FAKE_MSPROF_FREQ", "FAKE_MSPROF_REORDER", "FAKE_MSPROF_OP_NAME", "FAKE_MSPROF_HANG"):
        monkeypatch.delenv(name, raising=False)
    root = make_project(EXAMPLES / "add_custom", tmp_path / "add_custom")
    return NpuDevice(0, timeout_s=60), root


def _run(device, root: Path, case: str = "fp16_base", **kw):
    op = load_operator(root)
    return device.run(op, RunRequest(op.manifest.case(case), **kw))


def test_without_cann_one_line_says_what_to_source(monkeypatch, capsys):
    for name in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(CannError, match=r"source /usr/local/Ascend/ascend-toolkit/set_env.sh. .*tilewise doctor"):
        find_cann()
    with pytest.raises(ValueError, match="CANN not found"):
        make_device("npu:0")
    assert main(["run", str(EXAMPLES / "add_custom"), "--device", "npu"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("error: --device: CANN not found: ASCEND_HOME_PATH is not set")
    assert main(["doctor", "--device", "npu"]) == 1
    assert "miss CANN toolkit: CANN not found" in capsys.readouterr().out


def test_the_soc_comes_from_npu_smi_and_names_the_chip(npu, cann_home):
    device, _ = npu
    assert soc_name(find_cann()) == "Ascend910B3" and device.soc == "Ascend910B3"
    assert device.chip.name == "910B3" and device.chip.vector_cores == 40  # 910B3's own chip file


def test_a_run_builds_installs_in_scratch_runs_the_aclnn_harness_and_reads_msprof(npu, tmp_path, monkeypatch):
    device, root = npu
    monkeypatch.setenv("ASCEND_RT_VISIBLE_DEVICES", "3")  # as Ray sets it: msprof must not see it
    monkeypatch.setenv("ASCEND_OPP_PATH", str(tmp_path / "users-opp"))
    device = NpuDevice(0, timeout_s=60)  # (a device reads the environment when it is made)
    m = _run(device, root)
    assert m.ok and m.correct is True and m.error is None, m.error
    assert m.time_us == 12.5 and m.block_dim == 8 and m.bottleneck == "mte2" and m.chip == "910B3"
    assert m.pipes["mte2"].busy_us == 64.0 and m.pipes["mte2"].ratio == 0.8 and m.pipes["vector"].ratio == 0.1
    assert m.outputs[0].name == "z" and m.outputs[0].shape == [48, 4096] and m.warnings == []
    assert not (tmp_path / "users-opp").exists()  # installed into the scratch vendor path only
    installed = list((tmp_path / "cache/npu").glob("*/opp/vendors/customize/op_api/lib/libcust_opapi.so"))
    assert len(installed) == 1
    again = _run(device, root, "fp32_ragged")
    assert again.ok and again.correct is True and again.cached_build  # one build serves every case


def test_a_down_clocked_launch_is_a_warning_and_reordered_columns_read_the_same(npu, monkeypatch):
    device, root = npu
    monkeypatch.setenv("FAKE_MSPROF_FREQ", "800")
    monkeypatch.setenv("FAKE_MSPROF_REORDER", "1")
    m = _run(NpuDevice(0, timeout_s=60), root)
    assert m.ok and m.correct and m.time_us == 12.5 and m.pipes["mte2"].ratio == 0.8
    [w] = m.warnings
    assert w.kind == "downclocked" and "800 MHz of its rated 1800 MHz" in w.message


def test_a_profile_without_the_kernels_row_is_an_error_naming_what_was_there(npu, monkeypatch):
    device, root = npu
    monkeypatch.setenv("FAKE_MSPROF_OP_NAME", "other_kernel_0")
    m = _run(NpuDevice(0, timeout_s=60), root)
    assert not m.ok and m.error.kind == "npu"
    assert m.error.message == "msprof's OpBasicInfo has no row for kernel add_custom (it has: other_kernel_0)"


def test_a_build_failure_is_the_compilers_error_at_the_users_line(npu):
    device, root = npu
    kernel = root / "op_kernel/add_custom.cpp"
    lines = kernel.read_text().splitlines(keepends=True)
    lines.insert(40, "    SYNTAX_ERROR_HERE;\n")
    kernel.write_text("".join(lines))
    m = _run(device, root)
    assert not m.ok and m.error.kind == "compile_error" and m.error.line == 41, m.error
    assert m.error.file == str(root / "op_kernel/add_custom.cpp") and "SYNTAX_ERROR_HERE" in m.error.message


def test_a_hang_is_killed_at_the_timeout(npu, monkeypatch):
    _, root = npu
    monkeypatch.setenv("FAKE_MSPROF_HANG", "1")
    device = NpuDevice(0, timeout_s=2, build_timeout_s=60)
    m = _run(device, root)
    assert not m.ok and m.error.kind == "timeout" and "within 2 s" in m.error.message, m.error


def test_a_half_written_build_is_never_taken_for_a_good_one(npu, tmp_path):
    device, root = npu
    assert _run(device, root).ok
    [scratch] = (tmp_path / "cache/npu").iterdir()
    (scratch / "built.json").unlink()  # as if the process was killed before the build was recorded
    m = _run(device, root)
    assert m.ok and not m.cached_build


def test_published_opbasicinfo_rows_parse(tmp_path):
    out = tmp_path / "OPPROF_20250101_X" / "TopkCustom" / "0"
    out.mkdir(parents=True)
    header = "Op Name,Op Type,Task Duration(us),Block Dim,Mix Block Dim,Device Id,Pid,Current Freq,Rated Freq\n"
    # the two rows CANN 8.3.RC1 printed in a public README (lines end in a comma)
    rows = (
        "topk_custom_0,vector,155.740005,1,NA,4,1304945,1800,1800,\n"
        "topk_custom_0,vector,23.160000,1,NA,5,1252295,800,1800,\n"
    )
    (out / "OpBasicInfo_20250101000000000.csv").write_text(header + rows)
    prof = read_profile(tmp_path, "topk_custom")
    assert prof.rows == 2 and prof.block_dim == 1 and prof.time_us == pytest.approx((155.740005 + 23.16) / 2)
    assert prof.warnings[0].kind == "downclocked" and prof.warnings[0].count == 1 and prof.pipes == {}


def test_run_tune_and_doctor_take_the_npu_from_the_command_line(npu, capsys):
    import json

    _, root = npu
    assert main(["doctor", "--device", "npu:0"]) == 0
    text = capsys.readouterr().out
    assert "ok   NPU card 0: Ascend910B3" in text and "ok   chip file: 910B3" in text
    assert main(["run", str(root), "--device", "npu:0", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] and data["correct"] and data["time_us"] == 12.5 and data["chip"] == "910B3"
    args = ["tune", str(root), "--device", "npu", "--budget", "3", "--case", "fp16_base", "--format", "json"]
    assert main(args) == 0
    tuned = json.loads(capsys.readouterr().out)
    assert tuned["baseline_us"] == pytest.approx(12.5) and tuned["evaluations"] == 3 and not tuned["failed"]


def test_an_operator_without_build_sh_gets_an_msopgen_project_around_its_own_sources(npu, tmp_path):
    import json
    import shutil

    device, _ = npu
    root = tmp_path / "bare_add"
    shutil.copytree(EXAMPLES / "add_custom", root)  # op_host/, op_kernel/ and a manifest: no build.sh
    m = _run(device, root)
    assert m.ok and m.correct is True, m.error
    [scratch] = [p for p in (tmp_path / "cache/npu").iterdir() if (p / "project").is_dir()]
    project = scratch / "project"
    [op] = json.loads((scratch / "op.json").read_text())
    assert op["op"] == "AddCustom" and op["input_desc"][0] == {
        "name": "x", "param_type": "required", "format": ["ND", "ND"], "type": ["float16", "float"]
    }  # fmt: skip
    assert "NOT_REPLACED" not in (project / "op_kernel/add_custom.cpp").read_text()  # the user's kernel, not a stub
    presets = json.loads((project / "CMakePresets.json").read_text())["configurePresets"][0]["cacheVariables"]
    assert presets["ASCEND_CANN_PACKAGE_PATH"]["value"] == os.environ["ASCEND_HOME_PATH"]
    assert presets["ASCEND_COMPUTE_UNIT"]["value"] == "ascend910b"


# Goldens that would take the caller down if they ran in its process: one ends it, one never returns.
EXITING_GOLDEN = "import os\n\n\ndef add_custom(x, y):\n    os._exit(3)\n"
ENDLESS_GOLDEN = "import time\n\n\ndef add_custom(x, y):\n    while True:\n        time.sleep(1)\n"


def test_the_golden_runs_in_a_bounded_child_not_in_the_caller(npu):
    device, root = npu
    (root / "golden.py").write_text(EXITING_GOLDEN)
    m = _run(device, root)  # were the golden run in this process, pytest itself would exit here
    assert not m.ok and m.correct is False and m.error.kind == "golden_error", m.error
    assert m.error.file == str(root / "golden.py") and "the golden's process failed" in m.error.message

    (root / "golden.py").write_text(ENDLESS_GOLDEN)
    start = time.monotonic()
    m = _run(NpuDevice(0, timeout_s=2, build_timeout_s=60), root)
    assert time.monotonic() - start < 30, "waited for the golden instead of killing it"
    assert m.error.kind == "golden_error" and "did not finish within 2 s" in m.error.message, m.error
