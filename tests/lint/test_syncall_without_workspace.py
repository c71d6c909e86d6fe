"""syncall-without-workspace: error only when the tiling proves the workspace 0 for the hard-sync SyncAll()
(issue 13). On this project's scale operator (tests/opgen.py, whose tiling sets `ws[0] = 0`)."""

from __future__ import annotations

from pathlib import Path

from opgen import HOST, KERNEL, replace_once, write_operator

from tilewise.analysis.lint import lint
from tilewise.analysis.operator import load_operator

HARD_SYNC = replace_once(KERNEL, "    op.Process();\n", "    op.Process();\n    SyncAll();\n")


def syncall(root: Path):
    op = load_operator(root)
    assert not op.model.syntax_errors
    return [f for f in lint(op) if f.rule == "syncall-without-workspace"]


def test_hard_sync_with_a_zero_workspace_is_an_error(tmp_path: Path):
    (f,) = syncall(write_operator(tmp_path / "op", kernel=HARD_SYNC))
    assert f.severity == "error" and "sets the workspace size to 0" in f.message


def test_soft_sync_brings_its_own_buffers(tmp_path: Path):
    # SyncAll(gmWorkspace, ubWorkspace, cores): the kernel's own GM flags, not the host's workspace, are its premise
    kernel = replace_once(
        KERNEL,
        "    op.Process();\n",
        "    op.Process();\n    AscendC::GlobalTensor<int32_t> flags;\n"
        "    AscendC::LocalTensor<int32_t> mark;\n    SyncAll(flags, mark, 8);\n",
    )
    assert syncall(write_operator(tmp_path / "op", kernel=kernel)) == []


def test_workspace_set_out_of_sight_is_only_a_note(tmp_path: Path):
    host = replace_once(
        HOST, "    size_t* ws = context->GetWorkspaceSizes(1);\n    ws[0] = 0;\n", "    SetSizes(context);\n"
    )
    (f,) = syncall(write_operator(tmp_path / "op", kernel=HARD_SYNC, host=host))
    assert f.severity == "info" and "unproven" in f.message


def test_a_non_zero_workspace_is_quiet(tmp_path: Path):
    host = replace_once(HOST, "ws[0] = 0;", "ws[0] = 16 * 1024 * 1024;")
    assert syncall(write_operator(tmp_path / "op", kernel=HARD_SYNC, host=host)) == []
