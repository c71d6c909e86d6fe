"""Retrieval and ranking without a device, and verification's choices on a fake device whose time follows the
sources' text (no g++): the fastest correct value of a knob motif wins, a wrong rewrite is never offered as faster."""

from __future__ import annotations

import re

from paths import EXAMPLES
from test_mine import TextDevice
from test_store import trajectory

from tilewise.analysis.operator import load_operator
from tilewise.device.protocol import Measurement
from tilewise.search.bank.store import BankFile
from tilewise.search.bank.suggest import retrieve, suggest

SLOW_CORES = EXAMPLES / "add_custom_slow_block_dim_1"


def test_only_motifs_whose_pattern_is_present_are_retrieved_and_same_bottleneck_evidence_ranks_first():
    op = load_operator(EXAMPLES / "add_custom_slow_pipe_all")
    bank = BankFile(
        trajectories=[
            trajectory("pipe-sync", 1.3, "a", "mte2"),
            trajectory("double-buffer", 5.0, "b", "vector"),  # no single-buffer queue here: never retrieved
        ]
    )
    found = retrieve(op, bank, bottleneck="mte2")
    assert [s.motif for s in found][:1] == ["pipe-sync"] and "double-buffer" not in {s.motif for s in found}
    top = found[0]
    assert top.expected_speedup == 1.3 and "1 of them bound by MTE2 like this kernel" in top.why
    assert top.evidence_title() == (
        "Order the stages with queues or events, not a full pipe barrier: median 1.30x on 1 rewound kernel"
    )
    assert top.edits and top.edits[0].new_text == ""  # the barrier's line deleted
    # the same evidence from kernels bound elsewhere counts for half
    other = retrieve(op, BankFile(trajectories=[trajectory("pipe-sync", 1.3, "a", "vector")]), bottleneck="mte2")
    assert other[0].score < top.score and "none bound by MTE2" in other[0].why


def test_a_motif_without_evidence_is_shown_last_with_no_gain_claimed():
    op = load_operator(EXAMPLES / "add_custom_slow_pipe_all")
    [s] = [x for x in retrieve(op, BankFile()) if x.motif == "pipe-sync"]
    assert s.expected_speedup is None and "no measured trajectory" in s.why
    assert s.evidence_title().endswith("(no measured evidence yet)")


class CoresDevice(TextDevice):
    """Fastest at 8 blocks: fewer leave cores idle, more pay launch overhead on this small case."""

    def run(self, op, request):
        m = super().run(op, request)
        text = "".join((request.texts or {p: sf.text for p, sf in op.sources.items()}).values())
        blocks = int(re.search(r"BLOCK_DIM = (\d+);", text).group(1))
        m.time_us = 10.0 * (8 / blocks if blocks < 8 else 1 + (blocks - 8) / 40)
        return m


def test_verification_measures_the_in_between_values_and_keeps_the_fastest():
    op = load_operator(SLOW_CORES)
    device = CoresDevice({})
    bank = BankFile(trajectories=[trajectory("all-cores", 2.0, "a", "mte2")])
    result = suggest(op, device, bank, [op.manifest.cases[0]], top=5, verify=True)
    [s] = [x for x in result.suggestions if x.motif == "all-cores"]
    assert s.verified is not None and s.verified.correct and s.verified.speedup == 8.0
    assert [e.new_text for e in s.edits] == ["8"] and "the best is BLOCK_DIM = 8" in s.verified.message
    # the kernel as it is ran once; each of the four values once (the fix's 48, and 2, 8, 24)
    assert device.runs == 1 + 4


def test_a_rewrite_that_breaks_the_kernel_is_verified_wrong_and_ranked_after_the_wins():
    op = load_operator(EXAMPLES / "add_custom_slow_pipe_all")
    broken = TextDevice({}, broken=())

    def run(op, request):
        text = "".join((request.texts or {p: sf.text for p, sf in op.sources.items()}).values())
        ok = "PipeBarrier<PIPE_ALL>();" in text  # removing the barrier "breaks" it on this fake device
        return Measurement(ok=True, correct=ok, case=request.case.name, time_us=10.0 if ok else 5.0, bottleneck="mte2")

    broken.run = run  # type: ignore[method-assign]
    bank = BankFile(trajectories=[trajectory("pipe-sync", 1.3)])
    result = suggest(op, broken, bank, [op.manifest.cases[0]], verify=True)
    [s] = [x for x in result.suggestions if x.motif == "pipe-sync"]
    assert s.verified is not None and not s.verified.correct and not s.verified.faster
    assert result.suggestions[-1].motif == "pipe-sync" or all(
        x.verified is None or not x.verified.correct for x in result.suggestions
    )


def test_a_guessed_motif_comes_after_every_proved_one():
    op = load_operator(EXAMPLES / "rms_norm_slow_datacopypad_aligned")
    # large-tiles is only a guess here (no rule sized the copies), with strong evidence; aligned-copy is proved
    bank = BankFile(trajectories=[trajectory("large-tiles", 4.0), trajectory("aligned-copy", 1.05)])
    found = [s.motif for s in retrieve(op, bank, bottleneck="mte2")]
    assert "large-tiles" in found and found.index("aligned-copy") < found.index("large-tiles")
