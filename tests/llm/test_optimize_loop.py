"""`tilewise optimize` on the emulator: the closed loop without a model (tiling search and deterministic motifs),
with a scripted model for a slowdown no detector knows, and the tiling evolution inside its markers. The user's
files change only with --apply, after every case ran again."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, Reply
from paths import EXAMPLES

import tilewise.search.optimize
from tilewise.analysis.operator import load_operator
from tilewise.cli import main
from tilewise.device.emulator import EmulatorDevice
from tilewise.search.bank.store import load_bank
from tilewise.search.llm.client import LlmClient, LlmSettings
from tilewise.search.llm.evolve import evolve_tiling, regions

ADD = "        Add(zLocal, xLocal, yLocal, len);\n"


@pytest.fixture
def env(emu_cache, needs_gxx, monkeypatch, tmp_path):
    monkeypatch.setenv("TILEWISE_CACHE", str(emu_cache))
    bank = tmp_path / "user-bank.json"
    monkeypatch.setattr(tilewise.search.optimize, "user_bank_path", lambda: bank)
    return bank


def _copy(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(EXAMPLES / name, root)
    return root


def _digest(root: Path) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())).hexdigest()


@pytest.mark.slow  # the closed loop on the emulator: a tune and every step verified by real builds and runs
def test_without_a_model_the_loop_tunes_and_removes_the_barrier_and_writes_a_patch_that_applies(env, tmp_path, capsys):
    root = _copy(tmp_path, "add_custom_slow_pipe_all")
    before = _digest(root)
    patch = tmp_path / "opt.diff"
    args = ["optimize", str(root), "--no-llm", "--budget", "12", "--case", "fp16_large", "--out", str(patch)]
    assert main([*args, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert _digest(root) == before  # no --apply: the sources are as they were
    accepted = [(s["stage"], s["what"]) for s in data["steps"] if s["accepted"]]
    assert accepted[0] == ("baseline", "the operator as it is") and ("motif", "pipe-sync") in accepted
    assert data["speedup"] > 1.2 and data["best_us"] < data["baseline_us"] and data["evaluations"] <= 12 + 2
    kernel = next(f for f in data["files"] if f["path"].endswith("op_kernel/add_custom.cpp"))
    assert "PipeBarrier<PIPE_ALL>();" in kernel["original"] and "PipeBarrier<PIPE_ALL>();" not in kernel["optimized"]
    # the patch is a plain unified diff of the operator's folder
    check = subprocess.run(["git", "apply", "--check", str(patch)], cwd=root, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    # the accepted kernel step taught the user's bank
    assert [t.motif for t in load_bank(env).trajectories] == ["pipe-sync"]
    # --apply re-runs every case on the optimised sources and writes them
    assert main([*args[:-2], "--apply"]) == 0
    assert "--apply: every case passes" in capsys.readouterr().out
    assert (root / "op_kernel/add_custom.cpp").read_text() == kernel["optimized"]


@pytest.mark.slow  # the closed loop on the emulator, each step built and run
def test_a_model_rewrites_a_slowdown_no_detector_knows_and_the_step_is_verified(env, tmp_path, capsys):
    root = _copy(tmp_path, "add_custom")
    kernel = root / "op_kernel/add_custom.cpp"
    kernel.write_text(kernel.read_text().replace(ADD, ADD * 4))  # the same Add four times: correct, and slower
    answer = (
        f"The Add is repeated.\n\nop_kernel/add_custom.cpp\n<<<<<<< SEARCH\n{ADD * 4}=======\n{ADD}>>>>>>> REPLACE\n"
    )
    with FakeOpenAI([answer, Reply(status=400, text="no more")]) as server:
        code = main(
            ["optimize", str(root), "--llm", "--llm-base-url", server.base_url, "--llm-retries", "0"]
            + ["--budget", "10", "--case", "fp16_large", "--format", "json"]
        )
    data = json.loads(capsys.readouterr().out)
    assert code == 0, data
    [step] = [s for s in data["steps"] if s["stage"] == "llm" and s["accepted"]]
    assert step["speedup"] > 1.0 and "correct on every case" in step["detail"]
    [changed] = [f for f in data["files"] if f["path"].endswith("add_custom.cpp") and "op_kernel" in f["path"]]
    assert changed["optimized"].count("Add(zLocal") == 1 and kernel.read_text().count("Add(zLocal") == 4
    rejected = [s for s in data["steps"] if s["stage"] == "llm" and not s["accepted"]]
    assert all("could not be asked" in s["detail"] for s in rejected)
    assert data["tokens"] > 0 and server.requests[0]["json"]["messages"][0]["role"] == "system"


def test_the_tiling_evolves_only_inside_its_markers_and_keeps_the_fastest_correct_variant(env, tmp_path):
    root = _copy(tmp_path, "add_custom_slow_block_dim_1")
    host = root / "op_host/add_custom.cpp"
    old = "    uint32_t blockDim = BLOCK_DIM < coreNum ? BLOCK_DIM : coreNum;\n"
    text = host.read_text()
    assert old in text
    host.write_text(text.replace(old, f"    // tilewise: evolve-begin\n{old}    // tilewise: evolve-end\n"))
    op = load_operator(root)
    [region] = regions(op)
    assert region.text({str(host): host.read_text()}) == old

    def answer(search: str, replace: str) -> str:
        return f"Use every core.\nop_host/add_custom.cpp\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n"

    outside = answer("constexpr uint32_t BLOCK_DIM = 1;", "constexpr uint32_t BLOCK_DIM = 48;")
    inside = answer(old, "    uint32_t blockDim = coreNum;\n")
    with FakeOpenAI([outside, inside, Reply(status=400)]) as server:
        llm = LlmClient(LlmSettings(base_url=server.base_url, api_key="k", max_retries=0))
        found = evolve_tiling(op, EmulatorDevice(), [op.manifest.case("fp16_base")], llm, budget=3)
    assert found.texts is not None and found.candidates == 1
    assert "uint32_t blockDim = coreNum;" in found.texts[str(host)] and "BLOCK_DIM = 1;" in found.texts[str(host)]
    assert found.reason.startswith("Use every core.")
    # the model saw the measured variants: the second prompt came after the refused one, the third lists two
    prompts = [r["json"]["messages"][1]["content"] for r in server.requests]
    assert "## Variant 1:" in prompts[0] and "## Variant 2:" in prompts[2]
