"""`tilewise rewrite`: ask a model to apply one motif to the operator, and keep its answer only if the device says
it is correct and faster.

The steps, each able to end the attempt with its reason (`RewriteResult.reason`):
1. profile the operator as it is (every case; a case that already fails ends it: fix that first);
2. ask the model (search/llm/prompt.py) and read the SEARCH/REPLACE blocks of its answer (search/llm/blocks.py);
3. blocks that do not match the files exactly go back to the model once, with the reason; a second miss ends it;
4. the edits are applied in memory and every case runs (search/verify_fix.py, the same check as a lint fix's
   "Verify"): a compile error at its line, a sanitizer error, a new sanitizer warning, wrong output, or no gain
   each end it;
5. a correct and faster rewrite is accepted, with its measured speedup. Nothing is written to the user's files here:
   the CLI's `--apply` does that, through analysis/rewrite.py's atomic writes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from tilewise.analysis.findings import Fix, TextEdit
from tilewise.analysis.manifest import Case
from tilewise.analysis.motifs import MOTIFS, MotifContext, Site
from tilewise.analysis.operator import Operator
from tilewise.device.protocol import Device, Measurement, RunRequest
from tilewise.search.bank.features import profile
from tilewise.search.bank.store import BankFile
from tilewise.search.bank.suggest import MemoDevice, Verified
from tilewise.search.llm.blocks import AnswerError, Block, parse_blocks, to_edits
from tilewise.search.llm.client import LlmClient, LlmError
from tilewise.search.llm.prompt import RewriteTask, editable_sources, pick_example, retry_message, rewrite_messages
from tilewise.search.verify_fix import failure_text, verify_fix


@dataclass
class RewriteResult:
    motif: str
    accepted: bool
    reason: str
    blocks: list[Block] = field(default_factory=list)
    edits: list[TextEdit] = field(default_factory=list)  # whole-file edits over the texts the rewrite started from
    verified: Verified | None = None
    texts: dict[str, str] = field(default_factory=dict)  # the rewritten files' whole new texts (path -> text)
    asked: int = 0  # completions asked for (2 when the first answer's edits did not match)

    def json(self, root: str) -> dict[str, Any]:
        """`tilewise rewrite --format json`: the shape the issue gives."""
        v = self.verified
        return {
            "motif": self.motif,
            "accepted": self.accepted,
            "reason": self.reason,
            "edits": [{"file": b.path, "search": b.search, "replace": b.replace} for b in self.blocks],
            "files": sorted(os.path.relpath(p, root) for p in self.texts),
            "verified": None
            if v is None
            else {"correct": v.correct, "time_us": v.time_us, "speedup": v.speedup, "error": v.error},
        }


def profile_runs(
    op: Operator, device: Device, cases: list[Case], seed: int, golden: str | None
) -> tuple[list[tuple[Case, Measurement]], str | None]:
    """Every case on the operator as it is, and the first failure's reason (None when all pass)."""
    runs = [(case, device.run(op, RunRequest(case, seed=seed, golden=golden, keep_outputs=True))) for case in cases]
    for case, m in runs:
        if not m.ok or m.correct is False:
            return runs, f"case {case.name} fails as it is ({failure_text(m)}): fix it before optimising"
    return runs, None


def rewrite(
    op: Operator,
    device: Device,
    cases: list[Case],
    motif: str,
    llm: LlmClient,
    bank: BankFile,
    *,
    seed: int = 0,
    golden: str | None = None,
) -> RewriteResult:
    """One LLM-guided rewrite of `op` applying `motif`, verified on every case (see the module's docstring)."""
    if not cases:
        return RewriteResult(motif, False, "the operator has no case to run: add [[cases]] to tilewise.toml")
    memo = device if isinstance(device, MemoDevice) else MemoDevice(device)
    runs, failing = profile_runs(op, memo, cases, seed, golden)
    if failing:
        return RewriteResult(motif, False, failing)
    prof = profile(runs)
    task = RewriteTask(op, motif, runs, prof, _sites(op, motif, device), pick_example(bank, motif, prof.bottleneck))
    result = RewriteResult(motif, False, "")
    edits = _ask_for_edits(task, llm, result)
    if edits is None:
        return result
    verdict = verify_fix(
        op, Fix(title=f"{motif} (LLM)", edits=edits), memo, cases, seed=seed, golden=golden, kinds=_kinds(motif)
    )
    result.verified = Verified.of(verdict)
    result.edits = edits
    result.texts = {e.file: e.new_text for e in edits}
    result.accepted, result.reason = judge(result.verified, verdict.message())
    return result


def judge(v: Verified, message: str) -> tuple[bool, str]:
    """(accepted, reason) for a verified rewrite: correct and faster, or why not."""
    if not v.correct:
        return False, f"rejected: {v.error or message}"
    if v.speedup is None:
        return False, f"rejected: no timing to compare ({message})"
    if v.speedup <= 1.0:
        return False, f"rejected: correct but not faster ({v.speedup:.3f}x: {v.before_us:.2f} µs -> {v.time_us:.2f} µs)"
    return (
        True,
        f"accepted: correct on every case and {v.speedup:.2f}x as fast ({v.before_us:.2f} µs -> {v.time_us:.2f} µs)",
    )


def _ask_for_edits(task: RewriteTask, llm: LlmClient, result: RewriteResult) -> list[TextEdit] | None:
    """The answer's edits over the operator's texts, or None with `result.reason` saying why not."""
    op = task.op
    texts = editable_sources(op)
    root = str(op.project.root)
    messages = rewrite_messages(task)
    for attempt in (1, 2):
        try:
            answer = llm.complete(messages)
        except LlmError as exc:
            result.reason = f"rejected: the model could not be asked: {exc}"
            return None
        result.asked = attempt
        try:
            blocks = parse_blocks(answer.text)
        except AnswerError as exc:
            reasons = [str(exc)]
            blocks = []
        else:
            if not blocks:
                result.reason = "rejected: the answer has no SEARCH/REPLACE edits"
                return None
            edits, mismatches = to_edits(blocks, texts, root, set(texts))
            reasons = [m.reason for m in mismatches]
            if not reasons:
                result.blocks = blocks
                if not edits:
                    result.reason = "rejected: the edits change nothing (every REPLACE equals its SEARCH)"
                    return None
                return edits
        if attempt == 1:  # sent back once with the reason; the files are untouched
            messages = [*messages, {"role": "assistant", "content": answer.text}, retry_message(reasons)]
    result.blocks = blocks
    result.reason = f"rejected: the edits do not match the sources, also when asked again: {reasons[0]}"
    return None


def _sites(op: Operator, motif: str, device: Device) -> list[Site]:
    m = MOTIFS.get(motif)
    if m is None:
        return []
    try:
        return m.detect(MotifContext(op, device.chip))
    except Exception:  # noqa: BLE001 - a detector tripping on unusual code costs the hint, not the rewrite
        return []


def _kinds(motif: str) -> list[str]:
    m = MOTIFS.get(motif)
    return list(m.kinds) if m is not None else []
