"""What benchmarks/fuzz_lsp.py keeps apart from its storm: the report it prints, the client it drives the server
with (every publishDiagnostics handed to the fuzzer, the server's own requests answered as an editor would), and
small readings of the disk and of the server process."""

from __future__ import annotations

import os
import random
import re
import shutil
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import BaseLanguageClient

from benchmarks.fuzz_edits import lsp_lines

ROOT = Path(__file__).resolve().parent.parent
SOURCE_SUFFIXES = {".cpp", ".h", ".hpp", ".cc", ".cce"}
ODD_SEPARATORS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")  # str.splitlines ends lines there, LSP not


@dataclass
class Report:
    edits: int = 0
    seconds: float = 0.0
    exited: int | None = None  # the server's return code when it exited before shutdown
    tracebacks: list[str] = field(default_factory=list)  # one line each: where, what, after which edit
    requests: int = 0
    unanswered: int = 0
    error_answers: int = 0
    publishes: int = 0
    out_of_range: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)  # diagnostics published for a version older than ones shown
    error_messages: int = 0  # window/showMessage errors (a failed analysis, once per distinct failure)
    rss_start_mb: float = 0.0
    rss_end_mb: float = 0.0
    latency_before_ms: float = 0.0
    latency_after_ms: float = 0.0
    cpu_before_ms: float = 0.0  # the server's CPU time per latency edit
    cpu_after_ms: float = 0.0
    kinds: Counter = field(default_factory=Counter)

    def count_error_message(self) -> None:
        self.error_messages += 1

    @property
    def crashes(self) -> int:
        return (self.exited is not None) + len(self.tracebacks)

    def summary(self) -> str:
        ratio = self.latency_after_ms / self.latency_before_ms if self.latency_before_ms else float("nan")
        cpu_ratio = self.cpu_after_ms / self.cpu_before_ms if self.cpu_before_ms else float("nan")
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.kinds.items()))
        lines = [
            f"edits: {self.edits} in {self.seconds:.1f} s ({kinds})",
            f"crashes: {self.crashes} (server exit: {'no' if self.exited is None else f'code {self.exited}'}; "
            f"tracebacks logged: {len(self.tracebacks)})",
            f"requests: {self.requests}, unanswered: {self.unanswered}, error answers: {self.error_answers}",
            f"publishDiagnostics: {self.publishes}, diagnostics on missing lines: {len(self.out_of_range)}, "
            f"stale (an older version after a newer): {len(self.stale)}",
            f"error messages shown: {self.error_messages}",
            f"RSS start: {self.rss_start_mb:.1f} MB, end: {self.rss_end_mb:.1f} MB",
            f"latency didChange -> publishDiagnostics (median): before {self.latency_before_ms:.1f} ms, "
            f"after {self.latency_after_ms:.1f} ms, ratio {ratio:.2f}",
            f"server CPU per edit: before {self.cpu_before_ms:.1f} ms, after {self.cpu_after_ms:.1f} ms, "
            f"ratio {cpu_ratio:.2f}",
        ]
        lines += [f"  traceback: {t}" for t in self.tracebacks[:20]]
        lines += [f"  out of range: {o}" for o in self.out_of_range[:20]]
        lines += [f"  stale: {o}" for o in self.stale[:20]]
        return "\n".join(lines)


def disk_lines(path: Path) -> int:
    """The LSP line count of a file on disk as the server reads it; 0 for a file that is not there."""
    try:
        return lsp_lines(path.read_bytes().decode("utf-8", "replace"))
    except OSError:
        return 0


def operators_in(folder: Path) -> list[Path]:
    """Operator folders under `folder`: ones with op_kernel/ or a tilewise.toml (not nested in another)."""
    found: list[Path] = []
    for p in sorted(folder.rglob("*")):
        is_operator = p.is_dir() and ((p / "op_kernel").is_dir() or (p / "tilewise.toml").is_file())
        if is_operator and not any(q in p.parents for q in found):
            found.append(p)
    return found


def cpu_seconds(pid: int) -> float:
    """User and system CPU time the process has used (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    return 0.0


class FuzzClient(BaseLanguageClient):
    """A client that hands every publishDiagnostics to the fuzzer and answers what the server may ask."""

    def __init__(self, on_publish: Callable[[types.PublishDiagnosticsParams], None], on_error: Callable[[], None]):
        super().__init__("tilewise-fuzz", "1")

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(ls: FuzzClient, params: types.PublishDiagnosticsParams) -> None:
            on_publish(params)

        @self.feature(types.WINDOW_SHOW_MESSAGE)
        def show(ls: FuzzClient, params: types.ShowMessageParams) -> None:
            if params.type == types.MessageType.Error:
                on_error()

        @self.feature(types.WINDOW_LOG_MESSAGE)
        def log(ls: FuzzClient, params: types.LogMessageParams) -> None:
            pass

        @self.feature(types.WORKSPACE_CONFIGURATION)
        def configuration(ls: FuzzClient, params: types.ConfigurationParams) -> list[object]:
            return [None for _ in params.items]

        @self.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def progress(ls: FuzzClient, params: types.WorkDoneProgressCreateParams) -> None:
            return None

        @self.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register(ls: FuzzClient, params: types.RegistrationParams) -> None:
            return None


GARBAGE_MANIFESTS = [
    b'[operator\nname = "',
    b'[[cases]]\nname = 1\n[cases.inputs.x]\nshape = [-1, 0]\ndtype = "float99"\n',
    b"\x00\xff\xfe garbage \n[golden]\nfunction = 3\n",
    b"[[cases]]\n" * 50,
    b"= = =\n",
]


def make_workspace(folder: Path, corpus: Path | None, corpus_ops: int, seed: int) -> tuple[list[Path], Path]:
    """Copies of the examples (and of `corpus_ops` corpus operators) in `folder`, and an untouched copy of one
    example for the latency probe."""
    ops = []
    for example in sorted(p for p in (ROOT / "examples").iterdir() if p.is_dir()):
        ops.append(Path(shutil.copytree(example, folder / example.name)))
    if corpus is not None and corpus.is_dir():
        found = operators_in(corpus)
        for i, op in enumerate(random.Random(seed).sample(found, min(corpus_ops, len(found)))):
            ops.append(Path(shutil.copytree(op, folder / f"corpus{i}_{op.name}", symlinks=True)))
    probe = Path(shutil.copytree(ROOT / "examples" / "leaky_relu", folder / "probe_leaky_relu"))
    return ops, probe


def write_dump(dump: Path, ws: Path, named: list[tuple[str, dict[Path, str], list[str]]]) -> None:
    """For each of the first tracebacks: the traceback, and the open documents' texts when it was printed."""
    for name, snapshot, text in named:
        folder = dump / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "traceback.txt").write_text("\n".join(text) + "\n")
        for path, source in snapshot.items():
            out = folder / path.relative_to(ws)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(source.encode("utf-8", "surrogatepass"))
