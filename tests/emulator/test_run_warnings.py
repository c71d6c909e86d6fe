"""What a device does without stopping, the emulator does too and reports as a warning at the user's line (run
result, CLI text and JSON, editor diagnostics); outputs start as poison unless the case says they start zeroed; an
access a little past a GM tensor (in its guard) is a warning, further out a GM out-of-bounds error. All on the small
scale operator of tests/opgen.py."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from lsprotocol import types
from opgen import HOST, KERNEL, replace_once, write_operator

from tilewise.analysis.manifest import Case, InputSpec
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import Measurement, RunError, RunRequest, RunWarning
from tilewise.lsp.results import run_error_items

X = {"x": InputSpec(shape=[48 * 8192], dtype="float16")}
GOLDEN = "def golden(x, scale=2.0):\n    return (x.astype('float32') * 2.0).astype('float16')\n"
MANIFEST = """\
[operator]
name = "Scale"
[golden]
function = "golden.py:golden"
[[cases]]
name = "one"
[cases.inputs.x]
shape = [393216]
dtype = "float16"
"""


def run(emu_cache: Path, kernel: str, case: Case | None = None, name: str = "warn"):
    root = write_operator(emu_cache.parent / "warnings-operator" / name, kernel=kernel, host=HOST, manifest=MANIFEST)
    (root / "golden.py").write_text(GOLDEN)
    device = EmulatorDevice(cache_dir=emu_cache, timeout_s=60)
    golden = str(root / "golden.py:golden")
    return device.run(load_operator(root), RunRequest(case or Case(name="one", inputs=X), golden=golden)), root


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


UNALIGNED = replace_once(
    KERNEL,
    "DataCopy(xLocal, xGm[progress * tileLength], tileLength);",
    "DataCopy(xLocal, xGm[progress * tileLength], tileLength - 1);",
)


def test_an_unaligned_datacopy_runs_drops_its_tail_and_warns_at_the_line(emu_cache, needs_gxx):
    """The device rounds a count-form DataCopy down to whole 32-byte blocks (8191 halves = 16382 bytes: 16352 are
    copied), so the run goes on; the last 15 halves of each tile are never read, their outputs are wrong, and the
    warning names the call."""
    m, root = run(emu_cache, UNALIGNED)
    assert m.ok and m.error is None, m.error
    assert m.correct is False
    [w] = m.warnings
    assert w.kind == "misaligned" and w.file == str(root / "op_kernel" / "scale.cpp")
    assert w.line == line_of(UNALIGNED, "tileLength - 1")
    assert "16382 bytes" in w.message and "16352" in w.message and "DataCopyPad" in w.message
    assert w.count == 48  # one tile per block, 48 blocks


def test_the_cli_lists_warnings_in_text_and_json(emu_cache, needs_gxx, capsys, monkeypatch):
    from tilewise.cli import main

    monkeypatch.setenv("TILEWISE_CACHE", str(emu_cache))
    root = write_operator(
        emu_cache.parent / "warnings-operator" / "cli", kernel=UNALIGNED, host=HOST, manifest=MANIFEST
    )
    (root / "golden.py").write_text(GOLDEN)
    line = line_of(UNALIGNED, "tileLength - 1")
    assert main(["run", str(root)]) == 1
    out = "".join(capsys.readouterr().out.split())  # the console wraps long lines
    assert f"scale.cpp:{line}:warning[misaligned]" in out
    assert main(["run", str(root), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    [w] = data["warnings"]
    assert (w["kind"], w["line"], w["count"]) == ("misaligned", line, 48)
    assert w["file"].endswith("scale.cpp") and not Path(w["file"]).is_absolute()


COPY_OUT = "        DataCopy(yGm[progress * tileLength], yLocal, tileLength);\n"
ATOMIC = replace_once(KERNEL, COPY_OUT, "        SetAtomicAdd<half>();\n" + COPY_OUT + "        SetAtomicNone();\n")


def test_outputs_start_poisoned_so_an_unzeroed_atomic_add_fails_unless_the_case_zeroes_them(emu_cache, needs_gxx):
    """A device does not clear outputs: an atomic add into an output nobody zeroed adds to whatever was there. The
    emulator's outputs start as all-ones bytes (nan for half), so the kernel fails; the case option
    `outputs_init = "zeros"` is for operators whose contract is to accumulate into zeroed memory."""
    m, _ = run(emu_cache, ATOMIC, name="atomic")
    assert m.ok and m.correct is False
    zeroed = Case(name="one", inputs=X, outputs_init="zeros")
    m, _ = run(emu_cache, ATOMIC, zeroed, name="atomic")
    assert m.ok and m.correct, m.error


def test_a_write_far_past_the_end_of_an_output_is_an_out_of_bounds_error(emu_cache, needs_gxx):
    k = replace_once(
        KERNEL,
        "DataCopy(yGm[progress * tileLength], yLocal, tileLength);",
        "DataCopy(yGm[progress * tileLength + 47 * blockLength + 8], yLocal, tileLength);",
    )
    m, root = run(emu_cache, k, name="oob")
    assert not m.ok and m.error.kind == "gm_out_of_bounds", m.error
    assert m.error.line == line_of(k, "47 * blockLength + 8") and "output y" in m.error.message


COPY_OUT_LAST = "        DataCopy(yGm[progress * tileLength], yLocal, tileLength);\n"


def _extra_write_after_y(halves_past: int) -> str:
    """The scale kernel, whose last block also writes 16 halves `halves_past` halves after the end of y (y is 768
    KiB, a multiple of 32 bytes, so its device allocation ends 32 bytes = 16 halves after it)."""
    return replace_once(
        KERNEL,
        COPY_OUT_LAST,
        COPY_OUT_LAST + "        if (GetBlockIdx() == GetBlockNum() - 1) "
        f"DataCopy(yGm[blockLength + {halves_past}], yLocal, 16);  // @extra\n",
    )


def test_a_write_into_the_guard_after_an_output_is_a_warning_and_not_part_of_the_output(emu_cache, needs_gxx):
    """A little past a GM tensor's allocation the device writes other memory without stopping (tw::kGmGuard): the
    run goes on, the bytes land in the guard, and y itself (its own length) is what the output check compares."""
    k = _extra_write_after_y(32)  # bytes [64, 96) after y: past the allocator's padding, inside the 4 KiB guard
    m, root = run(emu_cache, k, name="guard_write")
    assert m.ok and m.error is None and m.correct, m.error
    [w] = [w for w in m.warnings if w.kind == "gm_out_of_bounds"]
    assert w.line == line_of(k, "@extra") and w.file == str(root / "op_kernel" / "scale.cpp")
    assert "output y" in w.message and "96 bytes past its end" in w.message


def test_a_write_beyond_the_guard_after_an_output_is_an_error(emu_cache, needs_gxx):
    k = _extra_write_after_y(2064)  # bytes [4128, 4160) after y: its guard ends at 32 + 4096 = 4128
    m, root = run(emu_cache, k, name="guard_beyond")
    assert not m.ok and m.error.kind == "gm_out_of_bounds", m.error
    assert m.error.line == line_of(k, "@extra") and "AI Core exception" in m.error.message


def test_a_read_into_the_guard_after_an_input_is_a_warning_and_the_output_check_decides(emu_cache, needs_gxx):
    """Every block reads its tile 32 halves late: the last block's read ends 64 bytes past x, in the guard. The
    device reads whatever lies there; the run goes on and the output is wrong, as the golden says."""
    k = replace_once(
        KERNEL,
        "DataCopy(xLocal, xGm[progress * tileLength], tileLength);",
        "DataCopy(xLocal, xGm[progress * tileLength + 32], tileLength);",
    )
    m, root = run(emu_cache, k, name="guard_read")
    assert m.ok and m.error is None and m.correct is False, m.error
    assert [(w.kind, w.line) for w in m.warnings] == [("gm_out_of_bounds", line_of(k, "tileLength + 32"))]
    assert "input x" in m.warnings[0].message


def test_run_warnings_become_warning_diagnostics_beside_the_error(tmp_path):
    root = write_operator(tmp_path / "scale")
    op = load_operator(root)
    kernel = str(root / "op_kernel" / "scale.cpp")
    m = Measurement(
        ok=False,
        error=RunError(kind="deadlock", message="stuck", file=kernel, line=40),
        warnings=[
            RunWarning(kind="race", message="unsynchronised", file=kernel, line=37, count=3),
            RunWarning(kind="misaligned", message="elsewhere", file="/not/in/op.cpp", line=1),
        ],
    )
    items = run_error_items(SimpleNamespace(op=op), m)
    assert [(i.diagnostic.severity, i.diagnostic.code, i.diagnostic.range.start.line) for i in items] == [
        (types.DiagnosticSeverity.Error, "deadlock", 39),
        (types.DiagnosticSeverity.Warning, "race", 36),
    ]
