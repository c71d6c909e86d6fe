"""Old kernels define `__aicore__` the way the device toolchain does, `#define __aicore__ [aicore]` in their device
branch (Huawei's kernel_invocation/Add_tile tiling header). g++ reads `[aicore]` as a structured binding, so the
emulator's build blanks the attribute (device/emulator/build.py `blank_cce_attributes`); these tests pin that it
does, keeps every position, and leaves subscripts alone."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tilewise.device.emulator.build import INCLUDE_DIR, blank_cce_attributes

KERNEL = """#include "kernel_operator.h"
#ifndef __CCE_KT_TEST__
#define __aicore__ [aicore]
#endif
inline __aicore__ int32_t Blocks(int32_t n) { return (n + 31) / 32; }
int32_t aicore = 1;
int32_t table[2] = {5, 6};
int32_t Pick() { return table[aicore] + Blocks(64); }
"""


def test_the_attribute_is_blanked_in_place():
    out = blank_cce_attributes(KERNEL)
    assert "[aicore]" not in out.split("int32_t aicore")[0]
    assert "table[aicore]" in out  # a subscript named aicore stays
    assert len(out) == len(KERNEL) and out.count("\n") == KERNEL.count("\n")
    assert blank_cce_attributes("f()[aicore] + a[ aicore ]") == "f()[aicore] + a[ aicore ]"  # subscripts


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_a_kernel_defining_aicore_as_the_attribute_compiles(tmp_path: Path):
    def compiles(text: str) -> subprocess.CompletedProcess:
        src = tmp_path / "k.cpp"
        src.write_text(text)
        return subprocess.run(
            ["g++", "-std=c++17", "-fsyntax-only", "-w", "-I", str(INCLUDE_DIR), str(src)],
            capture_output=True,
            text=True,
            timeout=600,
        )

    assert compiles(KERNEL).returncode != 0  # as written, g++ cannot read it
    p = compiles(blank_cce_attributes(KERNEL))
    assert p.returncode == 0, p.stderr[-2000:]
