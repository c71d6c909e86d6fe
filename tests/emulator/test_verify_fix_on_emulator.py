"""Verify on the emulator: a fix is run on every case before and after, and the verdict says whether the operator
still behaves the same (golden, or the unfixed outputs when there is none, and no new sanitizer finding) and how
much faster it got. (A fix with no case to run is tested in tests/search/test_verify_fix.py without g++.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from opgen import KERNEL, SCALE_GOLDEN, scale_manifest, write_operator

from tilewise.analysis.findings import Fix, TextEdit
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.search.verify_fix import verify_fix

CASES = scale_manifest(786432, golden=False)
WITH_GOLDEN = scale_manifest(786432)
# a full barrier after every tile: the fix under test removes it
SLOW_KERNEL = KERNEL.replace(
    "            CopyOut(i);\n", "            CopyOut(i);\n            PipeBarrier<PIPE_ALL>();\n"
)
assert SLOW_KERNEL != KERNEL


def _edit(op, path: str, old: str, new: str) -> Fix:
    sf = op.sources[path]
    start = sf.data.index(old.encode())
    end = start + len(old.encode())
    line, col = sf.line_col(start)
    end_line, end_col = sf.line_col(end)
    return Fix(
        title=f"{old} -> {new}",
        safe=False,
        edits=[
            TextEdit(
                file=path, line=line, col=col, end_line=end_line, end_col=end_col, new_text=new, start=start, end=end
            )
        ],
    )


def _kernel_path(op) -> str:
    return next(p for p in op.sources if p.endswith("scale.cpp") and "op_kernel" in p)


@pytest.fixture(scope="module")
def device(tmp_path_factory) -> EmulatorDevice:
    return EmulatorDevice(cache_dir=tmp_path_factory.mktemp("cache"))


def _operator(root: Path, manifest: str, kernel: str = SLOW_KERNEL):
    write_operator(root, kernel=kernel, manifest=manifest)
    (root / "golden.py").write_text(SCALE_GOLDEN)
    return load_operator(root)


def test_a_correct_fix_is_verified_with_its_speedup(tmp_path, device):
    op = _operator(tmp_path / "op", WITH_GOLDEN)
    kernel = _kernel_path(op)
    before = Path(kernel).read_text()
    fix = _edit(op, kernel, "PipeBarrier<PIPE_ALL>();", "")
    verdict = verify_fix(op, fix, device, list(op.manifest.cases))
    assert verdict.checked and verdict.correct, verdict.cases
    assert verdict.speedup is not None and verdict.speedup > 1.0  # the barrier serialised two tiles per core
    assert verdict.message().startswith("Verified on the emulator over 1 case: still correct")
    assert Path(kernel).read_text() == before  # the files on disk are never touched


def test_a_fix_that_breaks_the_golden_is_caught(tmp_path, device):
    op = _operator(tmp_path / "op", WITH_GOLDEN)
    fix = _edit(op, _kernel_path(op), "(half)2.0", "(half)3.0")
    verdict = verify_fix(op, fix, device, list(op.manifest.cases))
    assert verdict.checked and not verdict.correct
    assert "wrong output" in verdict.cases[0].detail
    assert "breaks case small" in verdict.message()


def test_without_a_golden_the_unfixed_outputs_decide(tmp_path, device):
    op = _operator(tmp_path / "op", CASES)
    kernel = _kernel_path(op)
    good = verify_fix(op, _edit(op, kernel, "PipeBarrier<PIPE_ALL>();", ""), device, list(op.manifest.cases))
    assert good.correct
    bad = verify_fix(op, _edit(op, kernel, "(half)2.0", "(half)3.0"), device, list(op.manifest.cases))
    assert not bad.correct and "differs from the unfixed run" in bad.cases[0].detail


def test_a_fix_that_stops_the_build_is_caught(tmp_path, device):
    op = _operator(tmp_path / "op", WITH_GOLDEN)
    verdict = verify_fix(op, _edit(op, _kernel_path(op), "(half)2.0", "(half)2.0 +"), device, list(op.manifest.cases))
    assert not verdict.correct and "compile_error" in verdict.cases[0].detail


def test_lint_verify_tries_the_unproven_fixes_and_says_what_held(tmp_path, capsys, monkeypatch):
    """`tilewise lint --verify`: an unproven fix is run on the cases and printed with its verdict."""
    import json

    import tilewise.cli.lint_command as lint_command
    from tilewise.analysis.findings import Finding
    from tilewise.analysis.lint import lint as real_lint
    from tilewise.cli import main

    root = tmp_path / "op"
    _operator(root, WITH_GOLDEN)

    def lint_with_an_unproven_fix(op, chip=None, **kw):
        path = _kernel_path(op)
        fix = _edit(op, path, "PipeBarrier<PIPE_ALL>();", "")
        e = fix.edits[0]
        found = Finding(
            rule="pipe-all-in-loop",
            severity="warning",
            file=path,
            line=e.line,
            col=e.col,
            end_line=e.end_line,
            end_col=e.end_col,
            message="barrier",
            fixes=[fix],
            start=e.start,
            end=e.end,
        )
        return [*real_lint(op, chip, **kw), found]

    monkeypatch.setattr(lint_command, "lint", lint_with_an_unproven_fix)
    monkeypatch.setenv("TILEWISE_CACHE", str(tmp_path / "cache"))
    main(["lint", str(root), "--verify", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    [verified] = [fix["verified"] for f in data for fix in f["fixes"] if "verified" in fix]
    assert verified["correct"] and verified["checked"] and verified["speedup"] > 1.0
    assert verified["message"].startswith("Verified on the emulator")


def test_a_fix_for_an_error_is_verified_by_the_case_passing_with_it(tmp_path, device):
    """The fix of a kernel that does not build (here: a typo) is proven by the case passing the golden with it."""
    op = _operator(tmp_path / "op", WITH_GOLDEN, kernel=SLOW_KERNEL.replace("(half)2.0", "(half)2.0 +"))
    verdict = verify_fix(op, _edit(op, _kernel_path(op), "(half)2.0 +", "(half)2.0"), device, list(op.manifest.cases))
    assert verdict.correct and verdict.cases[0].repaired
    assert "case small passes the golden (failing without it)" in verdict.message()
