"""`tilewise bank list|show|mine` and `tilewise suggest`: browsing a bank, the one-line errors, and (with g++) the
whole loop on a small operator: mine a bank from the fast kernel, slow it by hand, and see the motif suggested,
verified and measured."""

from __future__ import annotations

import json

import pytest
from opgen import HOST, KERNEL, SCALE_GOLDEN, replace_once, scale_manifest, write_operator
from test_store import trajectory

from tilewise.cli import main
from tilewise.search.bank.store import save_bank


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _bank(tmp_path):
    path = tmp_path / "bank.json"
    save_bank(
        path,
        [trajectory(speedup=1.2), trajectory(speedup=1.6, op="B"), trajectory("large-tiles", 2.0)],
        device="emulator",
        chip="910B2",
    )
    return path


def test_bank_list_gives_every_motif_with_its_evidence(tmp_path, capsys):
    from tilewise.analysis.motifs import MOTIFS

    code, out, _ = run(capsys, "bank", "list", "--bank", str(_bank(tmp_path)), "--format", "json")
    rows = {r["motif"]: r for r in json.loads(out)["motifs"]}
    assert code == 0 and set(MOTIFS) <= set(rows)
    assert rows["double-buffer"]["trajectories"] == 2 and rows["double-buffer"]["median_speedup"] == 1.4
    assert rows["double-buffer"]["range"] == [1.2, 1.6] and rows["double-buffer"]["bottlenecks"] == {"mte2": 2}
    assert rows["pipe-sync"]["trajectories"] == 0 and rows["pipe-sync"]["median_speedup"] is None


def test_bank_show_prints_the_evidence_and_an_example(tmp_path, capsys):
    code, out, _ = run(capsys, "bank", "show", "double-buffer", "--bank", str(_bank(tmp_path)))
    assert code == 0
    assert "evidence: median 1.40x on 2 rewound kernels (1.20x-1.60x)" in out
    assert "example (" in out and "-a\n+b" in out and "[mined]" in out


def test_unknown_motif_and_bad_bank_are_one_line_errors(tmp_path, capsys):
    code, _, err = run(capsys, "bank", "show", "triple-buffer", "--bank", str(_bank(tmp_path)))
    assert code == 2 and err.startswith("error: unknown motif 'triple-buffer'; motifs are: double-buffer")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, _, err = run(capsys, "bank", "list", "--bank", str(bad))
    assert code == 2 and str(bad) in err and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "bank", "mine", "--motif", "nope", "--out", str(tmp_path / "x.json"))
    assert code == 2 and "unknown motif 'nope'" in err


# 8 cores of 2 tiles each: small enough to run in a few seconds, and two tiles per core for a barrier to cost
HOST_8 = replace_once(HOST, "BLOCK_DIM = 48;", "BLOCK_DIM = 8;")
ELEMENTS = 8 * 8192 * 2


@pytest.mark.slow  # mines the examples and verifies the motif on the emulator: many real builds and runs
def test_mine_then_suggest_verifies_the_motif_on_a_slowed_kernel(tmp_path, capsys, monkeypatch, emu_cache, needs_gxx):
    monkeypatch.setenv("TILEWISE_CACHE", str(emu_cache))
    fast = write_operator(tmp_path / "fast", host=HOST_8, manifest=scale_manifest(ELEMENTS))
    (fast / "golden.py").write_text(SCALE_GOLDEN)
    bank = tmp_path / "bank.json"
    code, out, _ = run(capsys, "bank", "mine", str(fast), "--motif", "pipe-sync", "--out", str(bank), "--no-cache")
    assert code == 0 and "kept     pipe-sync" in out, out
    slow_kernel = replace_once(
        KERNEL, "            CopyOut(i);\n", "            PipeBarrier<PIPE_ALL>();\n            CopyOut(i);\n"
    )
    slow = write_operator(tmp_path / "slow", kernel=slow_kernel, host=HOST_8, manifest=scale_manifest(ELEMENTS))
    (slow / "golden.py").write_text(SCALE_GOLDEN)
    code, out, _ = run(capsys, "suggest", str(slow), "--bank", str(bank), "--verify", "--top", "3", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["operator"] == "Scale" and data["profile"]["time_us"] > 0
    top = data["suggestions"][0]
    assert top["motif"] == "pipe-sync" and top["expected_speedup"] > 1.0
    assert top["edits"] and top["edits"][0]["file"].endswith("scale.cpp") and top["edits"][0]["new_text"] == ""
    assert top["verified"]["correct"] is True and top["verified"]["speedup"] > 1.03
    assert "Evidence: median" in top["why"]


def test_mining_by_default_takes_the_fast_examples_only():
    from paths import EXAMPLES

    from tilewise.cli.bank_command import example_operators

    found = example_operators()
    assert EXAMPLES / "add_custom" in found and EXAMPLES / "kernel_invocation_add" in found
    assert not [d for d in found if "_slow_" in d.name]  # a slow twin would teach the motif backwards
