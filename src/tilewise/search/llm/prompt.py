"""What the model is told: the rules of the answer, the operator's kernel and tiling sources, how it runs (time,
pipes, bottleneck per case), and the one motif to apply with a measured before/after example from the bank.

The AscendOptimizer method gives the model one retrieved motif per iteration, not a list: a focused rewrite is
easier to verify and to attribute. The example is the bank's trajectory of that motif whose kernel shares this
one's bottleneck (else the largest gain), as its slow -> fast diff, cut to a size a prompt can carry.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from tilewise.analysis.manifest import Case
from tilewise.analysis.motifs import MOTIFS, Site
from tilewise.analysis.operator import Operator
from tilewise.device.protocol import Measurement
from tilewise.search.bank.store import BankFile, Profile, Trajectory

MAX_SOURCE_CHARS = 60_000  # the sources beyond this are cut (a prompt of a few tens of thousands of tokens)
MAX_EXAMPLE_CHARS = 6_000

ANSWER_RULES = """\
You optimise AscendC kernels (Huawei Ascend NPU operators). You change the code only as the task asks, keep the \
operator's results identical (within floating-point rounding), and keep every AscendC API call valid: queue \
AllocTensor/EnQue/DeQue/FreeTensor pairing, 32-byte aligned DataCopy lengths, buffers that fit the Unified Buffer.

Answer with edits in SEARCH/REPLACE blocks, nothing else is applied. Each block is:

path/relative/to/the/operator/folder.cpp
<<<<<<< SEARCH
the exact existing lines, copied character for character, enough of them to be unique in the file
=======
the new lines
>>>>>>> REPLACE

Rules: the path line comes first, relative to the operator's folder, exactly as given in the sources below. The \
SEARCH part must match the file exactly, including indentation and comments. Use several small blocks rather \
than rewriting a whole file. Do not edit tilewise.toml or the golden. You may explain in one or two sentences \
before the blocks."""


@dataclass
class RewriteTask:
    """Everything a rewrite prompt is made of."""

    op: Operator
    motif: str
    runs: list[tuple[Case, Measurement]]
    profile: Profile | None
    sites: list[Site]
    example: Trajectory | None


def editable_sources(op: Operator) -> dict[str, str]:
    """The operator's kernel and host (tiling) sources, path -> text: what the model sees and may change."""
    wanted = [*op.model.kernel_files, *op.model.host_files]
    seen = [p for p in dict.fromkeys(wanted) if p in op.sources]
    manifest = op.manifest.path if op.manifest else None
    return {p: op.sources[p].text for p in seen if p != manifest}


def pick_example(bank: BankFile, motif: str, bottleneck: str | None) -> Trajectory | None:
    """The motif's trajectory to show: same bottleneck first, then the largest gain, then the shortest diff."""
    pool = [t for t in bank.trajectories if t.motif == motif]
    if not pool:
        return None
    return min(pool, key=lambda t: (t.fast.bottleneck != bottleneck, -t.speedup, len(t.diff)))


def motif_text(motif: str) -> str:
    """The motif's what/why/example, from its module's docstring (analysis/motifs/<id>.py)."""
    m = MOTIFS.get(motif)
    if m is None:
        return motif
    doc = sys.modules[type(m).__module__].__doc__ or ""
    return f"{m.title}\n\n{doc.strip()}"


def rewrite_messages(task: RewriteTask) -> list[dict[str, str]]:
    root = str(task.op.project.root)
    parts = [
        f"# Task\n\nApply this optimisation to the operator `{task.op.model.operator}`:\n\n{motif_text(task.motif)}"
    ]
    if task.sites:
        where = "\n".join(f"- {os.path.relpath(s.file, root)}:{s.line}: {s.why}" for s in task.sites[:5])
        parts.append(f"# Where the pattern is\n\n{where}")
    if task.example is not None:
        diff = task.example.diff
        if len(diff) > MAX_EXAMPLE_CHARS:
            diff = diff[:MAX_EXAMPLE_CHARS] + "\n... (cut)\n"
        parts.append(
            f"# A measured example of this motif\n\nIn `{task.example.operator}` ({task.example.description}) it "
            f"made the kernel {task.example.speedup:.2f}x as fast. Slow -> fast:\n\n```diff\n{diff}```"
        )
    parts.append(f"# How the operator runs now (timing model of the chip)\n\n{profile_text(task.runs, task.profile)}")
    parts.append(f"# The sources\n\n{sources_text(editable_sources(task.op), root)}")
    return [{"role": "system", "content": ANSWER_RULES}, {"role": "user", "content": "\n\n".join(parts)}]


def profile_text(runs: list[tuple[Case, Measurement]], prof: Profile | None) -> str:
    lines = []
    if prof is not None:
        pipes = ", ".join(f"{k} {v:.0%}" for k, v in prof.pipes.items())
        lines.append(f"total {prof.time_us:.2f} us over the cases; bound by {prof.bottleneck or '?'}; busy {pipes}")
    for case, m in runs:
        shapes = ", ".join(f"{n}={list(i.shape)} {i.dtype}" for n, i in case.inputs.items())
        if m.ok and m.time_us is not None:
            lines.append(
                f"- case {case.name} ({shapes}): {m.time_us:.2f} us, blockDim {m.block_dim}, bound by {m.bottleneck}"
            )
        else:
            lines.append(f"- case {case.name} ({shapes}): fails: {m.error.message if m.error else 'wrong output'}")
    return "\n".join(lines) or "(no run)"


def sources_text(texts: dict[str, str], root: str) -> str:
    out, used = [], 0
    for path, text in texts.items():
        name = os.path.relpath(path, root)
        if used + len(text) > MAX_SOURCE_CHARS:
            out.append(f"{name}\n(left out: the prompt's size limit)")
            continue
        used += len(text)
        out.append(f"{name}\n```cpp\n{text}{'' if text.endswith(chr(10)) else chr(10)}```")
    return "\n\n".join(out)


def retry_message(reasons: list[str]) -> dict[str, str]:
    """The one follow-up a mismatched answer gets: why its edits did not apply."""
    listed = "\n".join(f"- {r}" for r in reasons)
    return {
        "role": "user",
        "content": "Your edits could not be applied:\n"
        f"{listed}\n\nAnswer again with SEARCH/REPLACE blocks whose SEARCH parts are copied exactly from the files "
        "as given above (the files are unchanged: none of your edits was applied).",
    }
