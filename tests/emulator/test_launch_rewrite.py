"""A `<<<>>>` launch is rewritten for the emulator as a launcher_for call on the kernel (device/emulator/build.py);
inside a macro whose kernel name is pasted together (`k_##name##_custom<<<...>>>`, as a kernel-invocation program
declaring one launcher per dtype writes it) the whole pasted name becomes the launcher's argument, so the paste
still forms one identifier. Checked on sources written for this test."""

from __future__ import annotations

from tilewise.analysis.source import SourceFile
from tilewise.device.emulator.build import rewrite_launches

MACRO = """\
#define DECLARE(name)                                                   \\
    extern "C" void pad_##name##_do(uint32_t blockDim, void* stream,   \\
                                    uint8_t* x, uint8_t* y)            \\
    {                                                                  \\
        pad_##name##_custom<<<blockDim, nullptr, stream>>>(x, y);      \\
    }
DECLARE(half)
"""

PLAIN = """\
void run(uint32_t blockDim, void* stream, uint8_t* x, uint8_t* y)
{
    add_custom<<<blockDim, nullptr, stream>>>(x, y);
}
"""


def test_a_pasted_kernel_name_in_a_macro_is_the_launchers_argument():
    out = rewrite_launches(SourceFile("k.cpp", MACRO), MACRO)
    assert "::tw::launcher_for(pad_##name##_custom, blockDim)(x, y);" in out
    assert "<<<" not in out and out.count("\n") == MACRO.count("\n")


def test_a_plain_launch_is_rewritten_as_before():
    out = rewrite_launches(SourceFile("k.cpp", PLAIN), PLAIN)
    assert "    ::tw::launcher_for(add_custom, blockDim)(x, y);" in out
