"""Kernels for the Ascend 950 (arch35) are named as such when they fail to compile, and a kernel's 910B branch
(`#if __NPU_ARCH__ == 2201`) is the one the emulator compiles, as the device compiler does for dav-c220."""

from __future__ import annotations

import shutil
from pathlib import Path

from tilewise.analysis.manifest import Case, InputSpec
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.emulator.foreign_arch import foreign_arch_evidence, name_foreign_arch
from tilewise.device.protocol import RunError, RunRequest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "add_custom"
SPEC = InputSpec(shape=[4096], dtype="float32")
CASE = Case(name="c", inputs={"x": SPEC, "y": SPEC})


def test_evidence_is_read_from_the_compiler_output():
    assert "SIMT" in foreign_arch_evidence("k.h:21:10: fatal error: simt_api/asc_simt.h: No such file or directory")
    assert "MicroAPI" in foreign_arch_evidence("k.h:9:5: error: 'MicroAPI' has not been declared")
    assert foreign_arch_evidence("k.cpp:3:1: error: 'dyGm' was not declared in this scope") is None
    plain = RunError(kind="compile_error", message="'dyGm' was not declared", file="k.cpp", line=3)
    assert name_foreign_arch(plain, "k.cpp:3:1: error: 'dyGm' was not declared") is plain


def with_kernel_head(tmp_path: Path, head: str) -> Path:
    root = tmp_path / "add_custom"
    shutil.copytree(EXAMPLE, root)
    kernel = root / "op_kernel" / "add_custom.cpp"
    text = kernel.read_text()
    assert text.count('#include "kernel_operator.h"\n') == 1
    kernel.write_text(text.replace('#include "kernel_operator.h"\n', '#include "kernel_operator.h"\n' + head))
    return root


def test_an_arch35_kernel_is_named_not_reported_as_a_missing_header(tmp_path, emu_cache, needs_gxx):
    root = with_kernel_head(tmp_path, '#include "simt_api/asc_simt.h"\n')
    m = EmulatorDevice(cache_dir=emu_cache, timeout_s=60).run(load_operator(root), RunRequest(CASE))
    assert not m.ok and m.error.kind == "unsupported_arch", m.error
    assert m.error.file.endswith("add_custom.cpp") and m.error.line == 5
    assert "Ascend 950" in m.error.message and "SIMT" in m.error.message


def test_the_910b_branch_of_an_npu_arch_switch_is_compiled(tmp_path, emu_cache, needs_gxx):
    head = (
        '#if __NPU_ARCH__ == 3510\n#include "simt_api/asc_simt.h"\n#elif __NPU_ARCH__ == 2201\n'
        'constexpr int ARCH_OK = 1;\n#else\n#error "no branch for this chip"\n#endif\n'
        'static_assert(ARCH_OK == 1, "the A2 branch");\n'
    )
    m = EmulatorDevice(cache_dir=emu_cache, timeout_s=60).run(
        load_operator(with_kernel_head(tmp_path, head)), RunRequest(CASE, golden="golden.py:add_custom")
    )
    assert m.ok and m.correct, m.error
