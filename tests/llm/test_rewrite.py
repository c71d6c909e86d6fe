"""`tilewise rewrite` end to end: a scripted model behind an OpenAI-compatible server on 127.0.0.1, the real
`openai` client, and the emulator verifying every candidate. Whatever the model answers, the user's files stay as
they were; only a correct and faster rewrite is accepted."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, Reply
from paths import EXAMPLES

from tilewise.analysis.operator import load_operator
from tilewise.cli import main
from tilewise.device.emulator import EmulatorDevice
from tilewise.search.bank.store import load_banks
from tilewise.search.llm.client import LlmClient, LlmSettings
from tilewise.search.llm.rewrite import rewrite

KEY = "sk-test-rewrite-0123456789abcdef"
BARRIER = "            PipeBarrier<PIPE_ALL>();\n"
LOOP_END = "            CopyOut(i, len);\n"
ADD = "        Add(zLocal, xLocal, yLocal, len);\n"


def block(search: str, replace: str, path: str = "op_kernel/add_custom.cpp") -> str:
    return f"{path}\n```cpp\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n"


REMOVE_BARRIER = "The queues already order the stages.\n\n" + block(LOOP_END + BARRIER, LOOP_END)


@pytest.fixture(scope="module")
def op_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("rewrite") / "add_custom_slow_pipe_all"
    shutil.copytree(EXAMPLES / "add_custom_slow_pipe_all", root)
    return root


@pytest.fixture
def attempt(op_dir, emu_cache, needs_gxx, monkeypatch):
    """rewrite(script) -> (result, server): one rewrite of pipe-sync on the large case, checked to leave the files
    exactly as they were."""
    monkeypatch.setenv("TILEWISE_CACHE", str(emu_cache))
    before = _digest(op_dir)

    def go(script, **settings):
        op = load_operator(op_dir)
        cases = [op.manifest.case("fp16_large")]
        settings.setdefault("max_retries", 1)
        with FakeOpenAI(script) as server:
            llm = LlmClient(LlmSettings(model="scripted", base_url=server.base_url, api_key=KEY, **settings))
            result = rewrite(op, EmulatorDevice(), cases, "pipe-sync", llm, load_banks()[0])
        assert _digest(op_dir) == before, "a rewrite changed the user's files"
        assert KEY not in json.dumps(result.json(str(op_dir))) and KEY not in result.reason
        return result, server

    return go


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(root)).encode() + p.read_bytes())
    return h.hexdigest()


def test_a_correct_faster_rewrite_is_accepted_with_its_measured_speedup(attempt, op_dir):
    result, server = attempt([REMOVE_BARRIER])
    assert result.accepted, result.reason
    v = result.verified
    assert v.correct and v.speedup > 1.05 and v.time_us < v.before_us
    assert result.reason.startswith(f"accepted: correct on every case and {v.speedup:.2f}x as fast")
    [edited] = result.texts.values()
    assert "PipeBarrier<PIPE_ALL>" not in edited.split("Process()")[1].split("private:")[0]
    # the prompt carried the sources, the profile and the motif with a measured example from the bank
    prompt = server.requests[0]["json"]["messages"][1]["content"]
    assert "op_kernel/add_custom.cpp" in prompt and "bound by" in prompt and "pipe barrier" in prompt.lower()
    assert "A measured example of this motif" in prompt and "```diff" in prompt
    assert result.json(str(op_dir))["verified"]["speedup"] == v.speedup


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (block(ADD, ADD.replace(";", "")), "rejected: compile_error at add_custom.cpp:"),  # no semicolon
        (block(ADD, ADD.replace("Add(", "Sub(")), "rejected: wrong output z"),
    ],
    ids=["does-not-compile", "wrong"],
)
def test_a_rewrite_that_breaks_the_kernel_is_rejected_with_what_the_device_said(attempt, answer, words):
    result, _ = attempt([answer])
    assert not result.accepted and result.verified is not None and not result.verified.correct
    assert result.reason.startswith(words), result.reason


def test_a_correct_but_slower_rewrite_is_rejected_as_slower(attempt):
    # Add twice with the same operands: the same result, one more vector pass per tile
    result, _ = attempt([block(ADD, ADD + ADD)])
    assert not result.accepted and result.verified.correct
    assert result.reason.startswith("rejected: correct but not faster (0.")


def test_an_answer_without_edits_is_rejected(attempt):
    result, server = attempt(["I think the kernel is already optimal."])
    assert not result.accepted and result.reason == "rejected: the answer has no SEARCH/REPLACE edits"
    assert result.verified is None and len(server.requests) == 1


def test_a_search_block_that_does_not_match_goes_back_once_with_the_reason(attempt):
    wrong = block("PipeBarrier<PIPE_ALL>();\n", "")  # not indented as in the file
    result, server = attempt([wrong, REMOVE_BARRIER])
    assert result.accepted and result.asked == 2
    retry = server.requests[1]["json"]["messages"]
    assert retry[-2]["role"] == "assistant" and retry[-2]["content"] == wrong
    assert "is not in the file" in retry[-1]["content"] and "other indentation" in retry[-1]["content"]


def test_a_search_block_that_misses_twice_is_rejected(attempt):
    wrong = block("PipeBarrier<PIPE_ALL>();\n", "")
    result, server = attempt([wrong, wrong])
    assert not result.accepted and len(server.requests) == 2
    assert result.reason.startswith("rejected: the edits do not match the sources, also when asked again")


def test_a_429_is_retried_and_the_rewrite_goes_on(attempt):
    result, server = attempt([Reply(status=429), REMOVE_BARRIER])
    assert result.accepted and len(server.requests) == 2


@pytest.mark.parametrize(
    ("script", "settings", "words"),
    [
        ([Reply(delay_s=1.5, text=REMOVE_BARRIER)], {"timeout_s": 0.3, "max_retries": 0}, "did not answer within"),
        ([Reply(raw=b"{not json")], {}, "not a chat completion"),
    ],
    ids=["timeout", "malformed"],
)
def test_a_model_that_cannot_be_asked_rejects_the_rewrite_with_the_reason(attempt, script, settings, words):
    result, _ = attempt(script, **settings)
    assert not result.accepted and result.reason.startswith("rejected: the model could not be asked:")
    assert words in result.reason or "has no text" in result.reason


def test_the_cli_prints_the_json_the_issue_gives_and_writes_only_with_apply(
    op_dir, emu_cache, needs_gxx, monkeypatch, capsys
):
    monkeypatch.setenv("TILEWISE_CACHE", str(emu_cache))
    kernel = op_dir / "op_kernel/add_custom.cpp"
    before = kernel.read_text()
    with FakeOpenAI([REMOVE_BARRIER, REMOVE_BARRIER]) as server:
        args = [
            "rewrite",
            str(op_dir),
            "--motif",
            "pipe-sync",
            "--case",
            "fp16_large",
            "--llm-base-url",
            server.base_url,
        ]
        assert main([*args, "--format", "json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert kernel.read_text() == before
        assert main([*args, "--apply"]) == 0
    assert {"motif", "accepted", "reason", "edits", "verified"} <= set(data) and data["accepted"] is True
    assert data["edits"] == [{"file": "op_kernel/add_custom.cpp", "search": LOOP_END + BARRIER, "replace": LOOP_END}]
    assert set(data["verified"]) == {"correct", "time_us", "speedup", "error"} and data["verified"]["speedup"] > 1
    assert "pipe-sync: accepted" in capsys.readouterr().out
    assert kernel.read_text() == before.replace(LOOP_END + BARRIER, LOOP_END)
    kernel.write_text(before)  # (the module's other tests start from the slow kernel)


def test_the_cli_refuses_an_unknown_motif_and_a_hosted_endpoint_without_a_key(monkeypatch, capsys):
    for name in ("OPENAI_API_KEY", "TILEWISE_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    slow = str(EXAMPLES / "add_custom_slow_pipe_all")
    assert main(["rewrite", slow, "--motif", "no-such"]) == 2
    assert "unknown motif 'no-such'; motifs are: double-buffer" in capsys.readouterr().err
    assert main(["rewrite", slow, "--motif", "pipe-sync"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("error: no API key for the hosted endpoint: set OPENAI_API_KEY")
    assert main(["optimize", slow, "--llm"]) == 2
    assert "or run with --no-llm" in capsys.readouterr().err
