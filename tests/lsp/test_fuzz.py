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

from benchmarks.fuzz_edits import MUTATIONS, TOKEN_RE, apply, lsp_lines
from benchmarks.fuzz_lsp import fuzz
from tilewise.lsp.convert import lsp_range
from tilewise.lsp.results import diagnostics_by_file
from tilewise.lsp.server import TilewiseServer
from tilewise.lsp.state import OperatorSession, ServerState, path_to_uri


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
    assert report.stale == []


def test_constants_that_square_each_other_stay_within_64_bits(tmp_path: Path):
    # The fuzzer's reproducer (macro storm in a host header): each level squares the one before, and analysing the
    # 40th (2**(2**40) bits) hung the server. C++ computes in 64 bits: past them a constant's value is unknown.
    from tilewise.analysis.operator import load_operator

    root = Path(shutil.copytree(EXAMPLES / "scale_shift", tmp_path / "scale_shift"))
    header = next((root / "op_host").glob("*tiling.h"))
    storm = "#define P0 3\n" + "".join(f"#define P{i} (P{i - 1} * P{i - 1} + 1)\n" for i in range(1, 40))
    op = load_operator(root, overlay={str(header): storm + header.read_text()})
    assert op.model is not None


def test_an_include_no_file_can_have_is_unresolved_not_an_error(tmp_path: Path):
    # The fuzzer's reproducer: `#include "` typed before a line that holds a quote further down the file made a
    # "file name" of many lines, and looking it up raised OSError (File name too long), as a NUL in it raises
    # ValueError; tiling-field-mismatch (and the build scope) failed on the operator.
    from tilewise.analysis.lint import lint
    from tilewise.analysis.operator import load_operator

    root = Path(shutil.copytree(EXAMPLES / "leaky_relu", tmp_path / "leaky_relu"))
    kernel = root / "op_kernel" / "leaky_relu.cpp"
    text = kernel.read_text()
    errors = _Errors()
    logging.getLogger().addHandler(errors)
    try:
        for include in ['#include "\n' + "x" * 400 + '"\n', '#include "a\x00b.h"\n', '#include "' + "y" * 5000 + '"\n']:
            lint(load_operator(root, overlay={str(kernel): include + text}))
    finally:
        logging.getLogger().removeHandler(errors)
    assert not errors.records, [r.getMessage()[:200] for r in errors.records]


def _in_range(diagnostics, text: str) -> bool:
    lines = lsp_lines(text)
    return all(d.range.start.line < lines and d.range.end.line < lines for d in diagnostics)


class _Recording(TilewiseServer):
    """The server's publishes, as (uri, diagnostics, version), with no client."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[tuple[str, list, int | None]] = []

    def text_document_publish_diagnostics_for(self, uri: str, diagnostics: list, version: int | None = None) -> None:
        self.sent.append((uri, diagnostics, version))


def test_diagnostics_go_out_for_their_version_and_never_over_newer_ones(tmp_path: Path):
    # The fuzzer saw syntax errors published on lines past the end of the document. An analysis is published for
    # the versions it read (publishDiagnostics' `version`); one of an older snapshot that finished later neither
    # becomes the operator's analysis nor is published over the newer one; and a source a newer analysis has read
    # since (its findings' offsets now point into another text) is not published from the older analysis.
    root = Path(shutil.copytree(EXAMPLES / "leaky_relu", tmp_path / "leaky_relu"))
    kernel = str(root / "op_kernel" / "leaky_relu.cpp")
    uri = path_to_uri(kernel)
    long = Path(kernel).read_text() + "\n" * 40 + "int broken = ;\n"  # a syntax error 40 lines past the end
    short = "int broken = ;\n"
    server = _Recording()
    sent = server.sent
    state, session = server.state, server.state.session(str(root))
    old_snapshot = state.snapshot(str(root), {kernel: long}, {kernel: 7})
    new_snapshot = state.snapshot(str(root), {kernel: short}, {kernel: 8})

    old = state.analyse(old_snapshot)
    new = state.analyse(new_snapshot)  # re-reads the kernel: `old`'s offsets are of another text now
    assert not old.analysed(kernel) and new.analysed(kernel)
    session.analysis = None
    server.publish(str(root), old)  # e.g. a run's publish after settings dropped the analysis
    assert not [x for x in sent if x[0] == uri]

    assert server.adopt(session, new)
    server.publish(str(root))
    ((_, diagnostics, version),) = [x for x in sent if x[0] == uri]
    assert version == 8 and any(d.code == "syntax-error" for d in diagnostics) and _in_range(diagnostics, short)

    sent.clear()
    stale = state.analyse(old_snapshot)  # the older snapshot's analysis finishing last
    assert not server.adopt(session, stale) and session.analysis is new
    session.analysis = None
    server.publish(str(root), stale)
    assert not [x for x in sent if x[0] == uri]


def test_a_range_past_the_end_of_the_text_is_clamped_to_it():
    from tilewise.analysis.source import SourceFile

    sf = SourceFile("/x/k.cpp", "int a;\nint b = ;\n")
    span = lsp_range(sf, 10, 10_000)
    assert (span.start.line, span.end.line, span.end.character) == (1, 2, 0)
    assert lsp_range(sf, 10_000, 5).start == lsp_range(sf, 10_000, 5).end


def test_truncation_at_every_token_analyses_with_diagnostics_on_lines_that_exist(monkeypatch, tmp_path: Path):
    # The "truncation at every token", exhaustively for one kernel (the fuzzer spreads its truncations over
    # every file, but a run reaches only some tokens of each): a file half typed, cut at each of its 1,000 tokens.
    monkeypatch.setenv("TILEWISE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TILEWISE_CASE_FACTS", "0")
    root = str(EXAMPLES / "leaky_relu")
    kernel = str(EXAMPLES / "leaky_relu" / "op_kernel" / "leaky_relu.cpp")
    text = Path(kernel).read_text()
    state = ServerState()
    errors = _Errors()
    logging.getLogger().addHandler(errors)
    try:
        for m in TOKEN_RE.finditer(text):
            cut = text[: m.start()]
            analysis = state.analyse(state.snapshot(root, {kernel: cut}))
            diagnostics = diagnostics_by_file(OperatorSession(root), analysis)[kernel]
            assert _in_range(diagnostics, cut), (m.start(), diagnostics)
    finally:
        logging.getLogger().removeHandler(errors)
    assert not errors.records, [r.getMessage() for r in errors.records]


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
