"""The bank file: written whole, validated when read, merged with the shipped one, summarised per motif."""

from __future__ import annotations

import json

import pytest

from tilewise.analysis.errors import TilewiseError
from tilewise.search.bank.store import (
    SHIPPED_PATH,
    Features,
    Profile,
    Trajectory,
    evidence,
    load_bank,
    load_banks,
    save_bank,
    unified_diff,
)


def trajectory(motif: str = "double-buffer", speedup: float = 1.5, op: str = "Op", bottleneck: str = "mte2"):
    return Trajectory(
        motif=motif,
        operator=op,
        source=f"ops/{op}",
        description="BUFFER_NUM 2 -> 1",
        diff="-a\n+b\n",
        slow=Profile(time_us=speedup * 10, bottleneck=bottleneck),
        fast=Profile(time_us=10.0, bottleneck=bottleneck),
        cases=[],
        speedup=speedup,
        features=Features(bottleneck=bottleneck),
    )


def test_saved_trajectories_read_back_and_the_same_change_replaces_the_old(tmp_path):
    path = tmp_path / "bank.json"
    assert save_bank(path, [trajectory(speedup=1.2)], device="emulator", chip="c") == 1
    assert save_bank(path, [trajectory(speedup=1.4), trajectory(op="Other")], device="emulator", chip="c") == 2
    bank = load_bank(path)
    assert sorted(t.speedup for t in bank.trajectories) == [1.4, 1.5]
    assert not list(tmp_path.glob("*.tmp"))  # written whole under a temporary name, then renamed


def test_an_invalid_bank_is_one_line_naming_the_file_and_nothing_is_lost(tmp_path):
    path = tmp_path / "bank.json"
    path.write_text(json.dumps({"version": 7, "trajectories": []}))
    with pytest.raises(TilewiseError) as info:
        load_bank(path)
    line = info.value.one_line()
    assert str(path) in line and "mine it again" in line and "\n" not in line
    merged, problems = load_banks(user=path, shipped=None)
    assert merged.trajectories == [] and len(problems) == 1
    save_bank(path, [trajectory()], device="emulator", chip="c")  # adding to it keeps the bad file aside
    assert (tmp_path / "bank.json.bad").read_text().startswith('{"version": 7')
    assert len(load_bank(path).trajectories) == 1


def test_evidence_gives_median_range_and_bottlenecks():
    from tilewise.search.bank.store import BankFile

    bank = BankFile(
        trajectories=[
            trajectory(speedup=s, op=f"op{i}", bottleneck=b)
            for i, (s, b) in enumerate([(1.1, "mte2"), (1.5, "vector"), (2.0, "mte2")])
        ]
    )
    ev = evidence(bank)["double-buffer"]
    assert ev.count == 3 and ev.median == 1.5 and (ev.low, ev.high) == (1.1, 2.0)
    assert ev.bottlenecks == {"mte2": 2, "vector": 1}
    assert [t.operator for t in ev.for_bottleneck("mte2")] == ["op0", "op2"]
    assert ev.summary() == "median 1.50x on 3 rewound kernels (1.10x-2.00x)"
    assert ev.best_example().operator == "op1"


def test_the_shipped_bank_validates_and_has_evidence_for_most_motifs():
    from tilewise.analysis.motifs import MOTIFS

    bank = load_bank(SHIPPED_PATH, missing_ok=False)
    covered = set(evidence(bank))
    assert covered <= set(MOTIFS)
    assert len(covered) >= len(MOTIFS) * 2 // 3, f"the shipped bank covers only {sorted(covered)}"
    assert all(t.source.startswith("examples/") for t in bank.trajectories)  # mined from the project's own examples


def test_diff_paths_are_relative_to_the_operator():
    diff = unified_diff({"/r/op_kernel/k.cpp": "a\nb\n"}, {"/r/op_kernel/k.cpp": "a\nc\n"}, "/r")
    assert diff.startswith("--- a/op_kernel/k.cpp\n+++ b/op_kernel/k.cpp\n") and "-b\n+c\n" in diff


def test_the_shipped_bank_can_be_replaced_or_left_out(tmp_path, monkeypatch):
    user = tmp_path / "user.json"
    save_bank(user, [trajectory(op="Mine")], device="emulator", chip="c")
    other = tmp_path / "other.json"
    save_bank(other, [trajectory(op="Theirs")], device="emulator", chip="c")
    monkeypatch.setenv("TILEWISE_SHIPPED_BANK", "")
    assert [t.operator for t in load_banks(user)[0].trajectories] == ["Mine"]
    monkeypatch.setenv("TILEWISE_SHIPPED_BANK", str(other))
    assert sorted(t.operator for t in load_banks(user)[0].trajectories) == ["Mine", "Theirs"]
    monkeypatch.delenv("TILEWISE_SHIPPED_BANK")
    assert len(load_banks(user)[0].trajectories) > 100  # the shipped bank's evidence and the user's
