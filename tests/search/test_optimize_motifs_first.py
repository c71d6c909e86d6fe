"""`optimize` verifies the deterministic rewrites on the sources as they are before its first tiling search, as
`suggest --verify` does: a tune first can grow a one-buffer queue's tiles until the UB holds no second buffer, and
the double-buffer rewrite `suggest` verifies then fails (issue 32 item 5)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import tilewise.search.optimize as optimize_module
from tilewise.analysis.operator import load_operator

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "motifs"))
from meaning_op import write_mix


def test_the_rewrites_are_tried_before_the_first_tune_and_the_model_only_after_it(monkeypatch, tmp_path):
    order: list[str] = []

    def tune(self):
        order.append("tune")
        return False

    def rewrite(self, reserve=0):
        order.append(f"rewrite{reserve}")
        return False

    def llm(self, tried):
        order.append("llm")
        return False

    monkeypatch.setattr(optimize_module._Loop, "_tune_stage", tune)
    monkeypatch.setattr(optimize_module._Loop, "_deterministic_rewrite", rewrite)
    monkeypatch.setattr(optimize_module._Loop, "_llm_rewrite", llm)
    monkeypatch.setattr(optimize_module, "profile_runs", lambda *a: ([], None))
    op = load_operator(write_mix(tmp_path / "m"))
    optimize_module.optimize(op, _NoDevice(), [], optimize_module.OptimizeOptions(budget=8))
    assert order == ["rewrite0", "tune", "rewrite0", "llm"]  # no model: the rewrites may spend all there is
    order.clear()
    model = object()  # (never asked: the model's stage is replaced)
    optimize_module.optimize(op, _NoDevice(), [], optimize_module.OptimizeOptions(budget=8, llm=model))  # type: ignore[arg-type]
    # with a model: before the first tune the rewrites may spend all, after it they leave the model's share
    assert order == ["rewrite0", "tune", f"rewrite{optimize_module.LLM_RESERVE}", "llm"]


class _NoDevice:
    name = "none"

    def __init__(self):
        from tilewise.analysis.chip import load_chip

        self.chip = load_chip()

    def run(self, op, request):  # pragma: no cover - the stages are replaced
        raise AssertionError("no run expected")


@pytest.mark.slow  # the closed loop on the emulator: a tune and each rewrite built and run
def test_a_single_buffered_queue_is_double_buffered_before_the_tune_fills_the_ub(
    emu_cache, needs_gxx, monkeypatch, tmp_path
):
    from tilewise.device.emulator import EmulatorDevice
    from tilewise.search.bank.store import BankFile

    monkeypatch.setattr(optimize_module, "user_bank_path", lambda: tmp_path / "bank.json")
    # one buffer per queue, four 4096-element tiles per core; the tile constant a tune would grow to fill the UB
    root = write_mix(
        tmp_path / "m",
        kernel={"@COUNT@": "1"},
        prelude="constexpr uint32_t TILE_ELEMS = 4096;",
        tile="    uint32_t tile = std::min<uint32_t>(perCore, TILE_ELEMS);",
        elements=48 * 16384,
    )
    op = load_operator(root)
    assert op.manifest is not None
    device = EmulatorDevice(cache_dir=emu_cache, timeout_s=120)
    result = optimize_module.optimize(
        op, device, list(op.manifest.cases), optimize_module.OptimizeOptions(budget=32), bank=BankFile()
    )
    accepted = [(s.stage, s.what) for s in result.steps if s.accepted]
    assert accepted[:2] == [("baseline", "the operator as it is"), ("motif", "double-buffer")], accepted
    assert result.speedup is not None and result.speedup > 1.05
