"""Editing never takes the server down (issue 20): a short seeded run of benchmarks/fuzz_lsp.py against the real
server process, and a Hypothesis state machine that edits an operator's sources and its tilewise.toml at random and
analyses each state in process, as the server's worker thread does."""

from __future__ import annotations

import logging
import random
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test
from lsp_helpers import EXAMPLES

from benchmarks.fuzz_edits import MUTATIONS, apply, lsp_lines
from benchmarks.fuzz_lsp import fuzz
from server.lsp.results import diagnostics_by_file
from server.lsp.state import OperatorSession, ServerState


@pytest.mark.asyncio
async def test_a_short_seeded_storm_leaves_the_server_up_and_answering(tmp_path: Path):
    # Bounded: 200 edits, or four minutes of storm, whichever comes first; a request waits at most a minute.
    report = await fuzz(
        200, seed=20, time_limit=240, big_lines=5000, request_timeout=60, latency_samples=3, workspace=tmp_path
    )
    print(report.summary())
    assert report.edits > 0
    assert report.crashes == 0, report.tracebacks
    assert report.unanswered == 0
    assert report.out_of_range == []


def test_constants_that_square_each_other_stay_within_64_bits(tmp_path: Path):
    # The fuzzer's reproducer (macro storm in a host header): each level squares the one before, and analysing the
    # 40th (2**(2**40) bits) hung the server. C++ computes in 64 bits: past them a constant's value is unknown.
    from analysis.operator import load_operator

    root = Path(shutil.copytree(EXAMPLES / "scale_shift", tmp_path / "scale_shift"))
    header = next((root / "op_host").glob("*tiling.h"))
    storm = "#define P0 3\n" + "".join(f"#define P{i} (P{i - 1} * P{i - 1} + 1)\n" for i in range(1, 40))
    op = load_operator(root, overlay={str(header): storm + header.read_text()})
    assert op.model is not None


class _Errors(logging.Handler):
    """Every record at ERROR or above: a lint rule, a pass or the motif retrieval that raised on the input."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


class Editing(RuleBasedStateMachine):
    """The leaky_relu example, its kernel and host sources edited as overlays (open documents) and its manifest
    on disk, analysed after every step by ServerState.analyse with the parsed-source cache kept between steps."""

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="tilewise-fuzz-state-"))
        self.root = Path(shutil.copytree(EXAMPLES / "leaky_relu", self.folder / "leaky_relu"))
        kernel = self.root / "op_kernel" / "leaky_relu.cpp"
        host = next((self.root / "op_host").glob("*.cpp"))
        self.originals = {str(kernel): kernel.read_text(), str(host): host.read_text()}
        self.texts = dict(self.originals)
        self.manifest = self.root / "tilewise.toml"
        self.good_manifest = self.manifest.read_bytes()
        self.state = ServerState()
        self.errors = _Errors()
        logging.getLogger().addHandler(self.errors)

    @rule(which=st.sampled_from([0, 1]), kind=st.sampled_from(sorted(MUTATIONS)), seed=st.integers(0, 2**32))
    def edit(self, which: int, kind: str, seed: int) -> None:
        path = sorted(self.texts)[which]
        self.texts[path] = apply(self.texts[path], MUTATIONS[kind](self.texts[path], random.Random(seed)))

    @rule()
    def restore(self) -> None:
        self.texts = dict(self.originals)

    @rule(cut=st.integers(0, 2000), garbage=st.binary(max_size=80))
    def break_manifest(self, cut: int, garbage: bytes) -> None:
        self.manifest.write_bytes(self.good_manifest[:cut] + garbage)

    @rule()
    def fix_manifest(self) -> None:
        self.manifest.write_bytes(self.good_manifest)

    @invariant()
    def analyses_with_diagnostics_on_lines_that_exist(self) -> None:
        root = str(self.root)
        analysis = self.state.analyse(self.state.snapshot(root, self.texts))
        assert not self.errors.records, [r.getMessage() for r in self.errors.records]
        for path, diagnostics in diagnostics_by_file(OperatorSession(root), analysis).items():
            text = self.texts.get(path)
            if text is None:
                text = Path(path).read_bytes().decode("utf-8", "replace")
            lines = lsp_lines(text)
            for d in diagnostics:
                assert d.range.start.line < lines, (path, d)

    def teardown(self) -> None:
        logging.getLogger().removeHandler(self.errors)
        shutil.rmtree(self.folder, ignore_errors=True)


def test_random_edit_sequences_analyse_without_an_exception(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("TILEWISE_CACHE", str(tmp_path / "cache"))  # the user's bank: none
    monkeypatch.setenv("TILEWISE_CASE_FACTS", "0")
    run_state_machine_as_test(
        Editing,
        settings=settings(
            max_examples=25,
            stateful_step_count=12,
            deadline=None,
            derandomize=True,  # the same sequences on every run: no flaky failures
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
