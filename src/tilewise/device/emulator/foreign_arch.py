"""Kernels written for an architecture the emulator does not model, named as such when they fail to compile.

The emulator runs the vector core of the Atlas A2/A3 (910B, `__NPU_ARCH__` 2201) and the 310B. The Ascend 950
(arch35, `__NPU_ARCH__` 3510) adds a register-based vector programming model (`MicroAPI::RegTensor`, `__simd_vf__`
functions), a SIMT API (`simt_api/...`) and the operators of ops-math/ops-nn built on the `atvoss` DAG framework,
which exists only for it. Such a kernel stops at a missing header or an unknown name, and "simt_api/asc_simt.h: No
such file" sends its author looking for an include path. So when a compile fails and the compiler's output shows one
of these marks, the error says what it is: a kernel for a chip the emulator does not run, not a gap to fill.

Only a failed compile is judged: a kernel that keeps an arch35 branch beside its 910B one compiles and runs.
"""

from __future__ import annotations

import re

from tilewise.device.protocol import RunError

# (pattern in the compiler's output, what it shows); the first match is the evidence named in the message
_MARKS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bsimt_api/"), "the SIMT API (simt_api/)"),
    (re.compile(r"\batvoss/"), "the atvoss DAG framework, written for arch35"),
    (re.compile(r"\bMicroAPI\b|\bRegTensor\b|\bMaskReg\b"), "the register-based MicroAPI"),
    (re.compile(r"__simd_vf__|__VEC_SCOPE__"), "a __simd_vf__ vector function"),
    (re.compile(r"/arch35/"), "sources under arch35/"),
)


def foreign_arch_evidence(stderr: str) -> str | None:
    """What in a failed compile's output shows an Ascend 950 (arch35) kernel, or None."""
    for pattern, what in _MARKS:
        if pattern.search(stderr):
            return what
    return None


def name_foreign_arch(error: RunError, stderr: str) -> RunError:
    """`error` retyped `unsupported_arch`, its message saying why, when the failed compile's output shows a kernel
    for the Ascend 950; else `error` as it was. The file and line stay those of the compiler's first error."""
    evidence = foreign_arch_evidence(stderr)
    if evidence is None:
        return error
    return RunError(
        kind="unsupported_arch",
        file=error.file,
        line=error.line,
        message=(
            f"{error.message} - this kernel is written for the Ascend 950 (arch35: it uses {evidence}), which the "
            f"emulator does not model; it runs Atlas A2/A3 (910B) and 310B vector-core kernels, so run this operator "
            f"on a 910B code path or on a real Ascend 950"
        ),
    )
