"""A kernel entry declared `__global__` without `__aicore__` does not compile for the AI Core.

Ascend 950's SIMT programming model declares its kernels `__global__` alone (like CUDA): they read the thread
built-ins (`threadIdx.x`, `blockIdx.x`, `blockDim.x`, `gridDim.x`) and are launched with four launch arguments
`<<<grid, block, dynUbufSize, stream>>>` (AscendC's own launch takes three: blockDim, l2ctrl, stream). Such an
entry is not missing anything, so the rule first proves the entry is not a SIMT kernel.
"""

from __future__ import annotations

import re

from tilewise.analysis.findings import Fix, edit_range
from tilewise.analysis.model import KernelEntry
from tilewise.analysis.rules.base import Rule, RuleContext

_THREAD_BUILTIN_RE = re.compile(r"\b(?:threadIdx|blockIdx|gridDim)\s*\.\s*[xyz]\b|\bblockDim\s*\.\s*[xyz]\b")
_SIMT_LAUNCH_ARGS = 4


class MissingAicore(Rule):
    id = "missing-aicore"
    severity = "error"
    summary = "kernel entry without __aicore__"

    def check(self, ctx: RuleContext):
        for entry in ctx.model.kernel.entries:
            if entry.has_aicore or _is_simt_kernel(ctx, entry):
                continue
            sf = ctx.sources.get(entry.file)
            fixes = []
            if sf is not None:
                mark = next(
                    (
                        m
                        for m in sf.pre.marks
                        if m.kind == "qualifier"
                        and m.name == "__global__"
                        and m.start < entry.loc.start
                        and entry.loc.start - m.start < 200
                    ),
                    None,
                )
                at = mark.end if mark else entry.loc.start
                text = " __aicore__" if mark else "__aicore__ "
                fixes.append(Fix(title="Add __aicore__ to the kernel entry", edits=[edit_range(sf, at, at, text)]))
            yield self.finding(
                entry.loc,
                (
                    f"kernel entry '{entry.name}' lacks __aicore__: it must be declared "
                    f'extern "C" __global__ __aicore__ void {entry.name}(...).'
                ),
                fixes,
            )


def _is_simt_kernel(ctx: RuleContext, entry: KernelEntry) -> bool:
    """Whether the entry is a SIMT kernel: launched with SIMT's four launch arguments, or its body reads the
    thread built-ins."""
    for each in ctx.sources.values():
        marks = each.pre.marks
        if any(m.kind == "launch" and m.name == entry.name and len(m.args) == _SIMT_LAUNCH_ARGS for m in marks):
            return True
    sf = ctx.sources.get(entry.file)
    if sf is None:
        return False
    body = next((f for f in sf.facts("function") if f.start_byte <= entry.loc.start < f.end_byte), None)
    return body is not None and _THREAD_BUILTIN_RE.search(sf.node_text(body)) is not None
