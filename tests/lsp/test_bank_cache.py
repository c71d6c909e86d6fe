"""The editor's experience bank (server/lsp/bank.py): read again only when the user's bank file changes, and a
retrieval that fails costs the suggestions, never the analysis's lint diagnostics."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tilewise.lsp import bank as lsp_bank
from tilewise.lsp.bank import BankCache
from tilewise.lsp.state import ServerState
from tilewise.search.bank.store import CaseTimes, Features, Profile, Trajectory, save_bank

ROOT = Path(__file__).resolve().parents[2]


def _trajectory(motif: str) -> Trajectory:
    return Trajectory(
        motif=motif,
        operator="Op",
        source="here",
        description=motif,
        diff="",
        slow=Profile(time_us=2.0),
        fast=Profile(time_us=1.0),
        cases=[CaseTimes(case="c", fast_us=1.0, slow_us=2.0)],
        speedup=2.0,
        features=Features(),
    )


def test_the_banks_are_read_again_only_when_the_users_file_changes(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("TILEWISE_CACHE", str(tmp_path))
    banks = BankCache()
    first = banks.get()
    assert banks.get() is first  # nothing changed: not read again
    save_bank(tmp_path / "bank.json", [_trajectory("pipe-sync")], device="emulator", chip="910B2")
    second = banks.get()
    assert second is not first and any(t.motif == "pipe-sync" for t in second.trajectories)
    assert banks.get() is second
    stat = (tmp_path / "bank.json").stat()
    os.utime(tmp_path / "bank.json", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert banks.get() is not second


def test_a_failing_retrieval_keeps_the_lint_diagnostics(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TILEWISE_CACHE", str(tmp_path))
    root = tmp_path / "op"
    shutil.copytree(ROOT / "examples" / "add_custom_slow_pipe_all", root)
    state = ServerState()
    analysis = state.analyse(state.snapshot(str(root), {}))
    assert [s.motif for s in analysis.suggestions if s.motif == "pipe-sync"] == ["pipe-sync"]

    def broken(*args, **kwargs):
        raise RuntimeError("a detector tripped")

    monkeypatch.setattr(lsp_bank, "retrieve", broken)
    analysis = state.analyse(state.snapshot(str(root), {}))
    assert analysis.suggestions == []
    assert any(f.rule == "pipe-all-in-loop" for f in analysis.findings)
