"""The CLI: JSON shapes of inspect and lint, exit codes, and one-line errors that never hide the rest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from opgen import KERNEL, replace_once, write_operator
from paths import EXAMPLES

from tilewise.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_inspect_json_has_the_documented_keys(capsys):
    code, out, _ = run(capsys, "inspect", str(EXAMPLES / "add_custom"), "--format", "json")
    assert code == 0
    d = json.loads(out)
    assert d["operator"] == "AddCustom" and d["layout"] == "project"
    assert d["kernel"]["entry"] == "add_custom" and d["kernel"]["file"].endswith("op_kernel/add_custom.cpp")
    assert d["inputs"][0] == {**d["inputs"][0], "name": "x", "dtypes": ["float16", "float32"]}
    assert [o["name"] for o in d["outputs"]] == ["z"] and d["attrs"] == []
    assert d["tiling"]["struct"] == "AddCustomTilingData" and d["tiling"]["function"] == "TilingFunc"
    assert {"name": "tileLength", "type": "uint32_t"}.items() <= d["tiling"]["fields"][3].items()
    knob = next(k for k in d["knobs"] if k["name"] == "TILE_LENGTH")
    assert {k: knob[k] for k in ("value", "line")} == {"value": 4096, "line": 10} and knob["file"].endswith(".cpp")
    assert {"name": "inQueueX", "position": "VECIN", "depth": 2}.items() <= d["queues"][0].items()


def test_inspect_text_mentions_the_essentials(capsys):
    code, out, _ = run(capsys, "inspect", str(EXAMPLES / "softmax_row"))
    assert code == 0
    for word in ("SoftmaxRow", "softmax_row", "SoftmaxRowTilingData", "ROWS_PER_TILE", "inQueueX", "VECIN"):
        assert word in out
    # the tiling function's own knobs: its platform queries and the literals that decide its tiling
    for word in ("tiling-function knob", "platform.cores", "the chip's", "workLength@softmax_row.cpp:57"):
        assert word in out


def test_lint_json_schema_and_exit_code(capsys, tmp_path: Path):
    kernel = replace_once(KERNEL, 'extern "C" __global__ __aicore__ void', 'extern "C" __global__ void')
    root = write_operator(tmp_path / "op", kernel=kernel)
    code, out, _ = run(capsys, "lint", str(root), "--format", "json")
    assert code == 1
    (f,) = json.loads(out)
    assert set(f) == {"rule", "severity", "file", "line", "col", "end_line", "end_col", "message", "fixes"}
    assert f["rule"] == "missing-aicore" and f["severity"] == "error"
    (fix,) = f["fixes"]
    assert set(fix) == {"title", "edits", "safe"} and fix["safe"] is True  # adding the qualifier is proven safe
    assert set(fix["edits"][0]) == {"file", "line", "col", "end_line", "end_col", "new_text"}


def test_lint_warnings_only_exit_zero_and_text_format(capsys):
    code, out, _ = run(capsys, "lint", str(EXAMPLES / "add_custom_slow_pipe_all"))
    assert code == 0
    assert "warning" in out and "[pipe-all-in-loop]" in out and "fix: Remove the full pipe barrier" in out


def test_lint_a_single_file_reports_only_that_file(capsys):
    path = EXAMPLES / "add_custom_slow_pipe_all" / "op_kernel" / "add_custom.cpp"
    code, out, _ = run(capsys, "lint", str(path), "--format", "json")
    assert {Path(f["file"]).name for f in json.loads(out)} == {"add_custom.cpp"}
    assert {f["rule"] for f in json.loads(out)} == {"pipe-all-in-loop"}


def test_lint_whole_examples_tree(capsys):
    code, out, err = run(capsys, "lint", str(EXAMPLES), "--format", "json")
    assert code == 0, err
    rules = {f["rule"] for f in json.loads(out)}
    assert {
        "pipe-all-in-loop",
        "single-buffer",
        "scalar-loop",
        "small-copy",
        "low-block-dim",
        "aligned-datacopypad",
    } <= rules


def test_bad_paths_give_one_line_errors_and_the_rest_still_comes_out(capsys, tmp_path: Path):
    (tmp_path / "readme.txt").write_text("not an operator")
    code, out, err = run(
        capsys,
        "lint",
        str(tmp_path / "nope"),
        str(tmp_path / "readme.txt"),
        str(EXAMPLES / "add_custom_slow_single_buffer"),
        "--format",
        "json",
    )
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 2 and "does not exist" in lines[0] and "not inside an AscendC operator" in lines[1]
    assert "Traceback" not in err
    assert any(f["rule"] == "single-buffer" for f in json.loads(out))


def test_non_utf8_source_is_named_and_lint_continues(capsys, tmp_path: Path):
    root = write_operator(tmp_path / "op")
    (root / "op_kernel" / "notes.h").write_bytes(b"// \xff\xfe\n")
    code, out, err = run(capsys, "lint", str(root))
    assert code == 1
    assert "notes.h:1: error: is not UTF-8" in err and "0 findings" in out


def test_malformed_manifest_is_reported_by_inspect(capsys, tmp_path: Path):
    root = write_operator(tmp_path / "op", manifest='[[cases]]\nname = "a"\n[cases.inputs.x]\nshape = [4]\n')
    code, out, err = run(capsys, "inspect", str(root), "--format", "json")
    assert code == 1 and json.loads(out)["operator"] == "Scale"
    assert "tilewise.toml:3: error: 'cases[0].inputs.x.dtype': required field is missing" in err


def test_unknown_chip_is_a_clear_error(capsys):
    code, _, err = run(capsys, "lint", str(EXAMPLES / "add_custom"), "--chip", "999Z")
    assert code == 2 and "unknown chip" in err and "910B2" in err


def test_console_script_runs_without_traceback(tmp_path: Path):
    proc = subprocess.run(
        [sys.executable, "-m", "tilewise", "inspect", str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "not inside an AscendC operator" in proc.stderr
