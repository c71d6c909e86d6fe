"""`tilewise/optimize` over stdio: the closed loop of search/optimize.py on a private copy of an operator, its steps
reported as progress, its answer the changed files' texts (the files themselves untouched); a model asked for
without a key is a one-line error; and the `tilewise.llm` settings.

The server here has a results cache and bank of its own (an optimisation teaches the user's bank, which the motif
tests read), and no API key in its environment whatever the machine running the tests has.
"""

from __future__ import annotations

import asyncio
import shutil
import uuid
from pathlib import Path

import pytest
import pytest_asyncio
from in_process import in_process_client
from lsp_helpers import EXAMPLES, IN_PROCESS_ENV, WORK, _workspace, open_doc
from lsprotocol import types
from pydantic import ValidationError
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled
from pytest_lsp import LanguageClient

from tilewise.lsp.features.optimize import step_progress
from tilewise.lsp.state import Settings
from tilewise.search.optimize import Step

BOUND_S = 300.0  # a broken server fails the test instead of hanging it; never what makes the test pass
GATED_GOLDEN = '''\
"""AddCustom's golden, gated: it says the optimisation has started, then holds the run until the test releases it."""
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def add_custom(x, y):
    with open(HERE / "calls", "a") as calls:
        calls.write("x")
    (HERE / "started").touch()
    deadline = time.monotonic() + 600
    while not (HERE / "release").exists():
        if time.monotonic() > deadline:
            raise TimeoutError("the test never released the run")
        time.sleep(0.02)
    return (x.astype(np.float32) + y.astype(np.float32)).astype(x.dtype)
'''
KEYS = ("TILEWISE_LLM_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL")


@pytest_asyncio.fixture
async def optimize_client(monkeypatch):
    async with in_process_client(
        {**IN_PROCESS_ENV, "TILEWISE_CACHE": str(WORK / "optimize")}, monkeypatch, unset=KEYS
    ) as lsp_client:
        await lsp_client.initialize_session(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True)),
                root_uri=_workspace().as_uri(),
            )
        )
        yield lsp_client
        await lsp_client.shutdown_session()


def _copy(tmp_path: Path) -> tuple[Path, dict[Path, str]]:
    root = tmp_path / "slow"
    shutil.copytree(EXAMPLES / "add_custom_slow_pipe_all", root)
    return root, {p: p.read_text() for p in root.rglob("*") if p.is_file()}


@pytest.mark.slow  # the real closed loop: a dozen builds and runs of the operator on the emulator
@pytest.mark.asyncio
async def test_optimize_answers_the_changed_files_and_reports_each_step(optimize_client: LanguageClient, tmp_path):
    client = optimize_client
    root, before = _copy(tmp_path)
    uri = open_doc(client, root / "op_kernel" / "add_custom.cpp")
    client.progress_reports["optimize-1"] = []  # the client's own token: the server reports on it
    result = await client.protocol.send_request_async(
        "tilewise/optimize", {"uri": uri, "budget": 12, "llm": False, "workDoneToken": "optimize-1"}
    )
    steps = result.steps
    assert steps and steps[0].stage == "baseline" and result.baseline_us > 0
    assert all(s.index == i for i, s in enumerate(steps))
    files = {Path(f.path): f for f in result.files}
    assert files, [(s.stage, s.what, s.detail) for s in steps]  # this operator's barrier in the loop goes at least
    for path, f in files.items():
        assert path.is_relative_to(root) and f.original == before[path] and f.optimized != f.original
    assert result.best_us < result.baseline_us and result.speedup > 1.0
    assert any(s.accepted and s.stage != "baseline" for s in steps)
    assert {p: p.read_text() for p in before} == before  # nothing written: the client applies what it wants
    reports = client.progress_reports["optimize-1"]
    assert reports[0].kind == "begin" and reports[-1].kind == "end"
    messages = [r.message for r in reports if r.kind == "report"]
    assert messages[0].startswith("baseline ") and any(m.startswith("step 1 (") for m in messages), messages
    assert reports[-1].message.startswith("best ")


async def _appears(path: Path) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + BOUND_S
    while not path.exists():
        assert loop.time() < deadline, f"{path.name} never appeared"
        await asyncio.sleep(0.05)


@pytest.mark.asyncio
async def test_a_cancelled_optimisation_stops_at_its_next_step(optimize_client: LanguageClient, tmp_path):
    """Cancelled while the baseline is measured (the golden holds it): the loop never starts its tuning, and the
    request ends cancelled once the measurement in flight has ended."""
    client = optimize_client
    root, _ = _copy(tmp_path)
    (root / "golden.py").write_text(GATED_GOLDEN)
    uri = open_doc(client, root / "op_kernel" / "add_custom.cpp")
    request_id = f"optimize-{uuid.uuid4()}"
    client.progress_reports[request_id] = []
    job = asyncio.ensure_future(
        client.protocol.send_request_async(
            "tilewise/optimize", {"uri": uri, "budget": 40, "workDoneToken": request_id}, msg_id=request_id
        )
    )
    try:
        await _appears(root / "started")
        assert not job.done()
        client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=request_id))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + BOUND_S
        while not any(r.kind == "end" for r in client.progress_reports[request_id]):
            assert loop.time() < deadline, "the progress never ended"
            await asyncio.sleep(0.05)
        assert client.progress_reports[request_id][-1].message == "cancelled"
    finally:
        (root / "release").touch()
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(job, BOUND_S)
    # the baseline's cases ran to their end; no tuning configuration followed them
    assert 1 <= len((root / "calls").read_text()) <= 4


@pytest.mark.asyncio
async def test_a_model_without_a_key_or_server_is_a_one_line_error(optimize_client: LanguageClient, tmp_path):
    client = optimize_client
    root, before = _copy(tmp_path)
    uri = open_doc(client, root / "op_kernel" / "add_custom.cpp")
    with pytest.raises(JsonRpcException) as err:
        await client.protocol.send_request_async("tilewise/optimize", {"uri": uri, "budget": 4, "llm": True})
    message = err.value.message
    assert "OPENAI_API_KEY" in message and "\n" not in message and "Traceback" not in message
    assert {p: p.read_text() for p in before} == before


@pytest.mark.asyncio
async def test_optimize_params_are_checked(optimize_client: LanguageClient):
    with pytest.raises(JsonRpcException) as err:
        await optimize_client.protocol.send_request_async("tilewise/optimize", {"uri": "x", "budget": 0})
    assert "budget: Input should be greater than or equal to 1" in err.value.message


@pytest.mark.asyncio
async def test_a_bad_llm_setting_is_named_in_full(optimize_client: LanguageClient):
    optimize_client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"tilewise": {"llm": {"baseUrl": "127.0.0.1:8080"}}})
    )
    message = await optimize_client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)
    assert message.type == types.MessageType.Error and "tilewise.llm.baseUrl" in message.message
    assert "http://127.0.0.1:8080/v1" in message.message  # what a good one looks like


def test_llm_settings_from_the_client_section():
    default = Settings()
    assert default.llm.base_url is None and default.llm.model is None
    s = Settings.model_validate({"llm": {"baseUrl": "http://127.0.0.1:8080/v1", "model": "qwen2.5-coder"}})
    assert (s.llm.base_url, s.llm.model) == ("http://127.0.0.1:8080/v1", "qwen2.5-coder")
    blank = Settings.model_validate({"llm": {"baseUrl": "  ", "model": ""}})  # VS Code's empty settings
    assert blank.llm.base_url is None and blank.llm.model is None
    # the key is never a setting: one put there anyway is not kept
    keyed = Settings.model_validate({"llm": {"model": "m", "apiKey": "sk-secret"}})
    assert "sk-secret" not in repr(keyed) and "sk-secret" not in str(keyed.model_dump())
    # what the config feature merges a change into: the settings by alias, as the client names them
    again = Settings.model_validate({**s.model_dump(by_alias=True), "chip": "910B4"})
    assert again.llm == s.llm
    with pytest.raises(ValidationError) as err:
        Settings.model_validate({"llm": {"baseUrl": "localhost:8080"}})
    assert "http(s) URL" in str(err.value)


def test_step_progress_lines():
    accepted = Step(3, "motif", "pipe-sync", True, 12.3, 1.2, "correct on every case", 1)
    assert step_progress(accepted, 12.3, 18.7) == "step 3 (motif pipe-sync): accepted, best 12.3 µs (1.52x)"
    rejected = Step(4, "tune", "tiling " + "x" * 80, False, None, None, "none beat the current one", 6)
    line = step_progress(rejected, 12.3, None)
    assert line.startswith("step 4 (tune tiling x") and line.endswith("…): rejected, best 12.3 µs")
    assert step_progress(Step(0, "baseline", "the operator as it is", True, 18.7, None, "measured"), 18.7, 18.7) == (
        "baseline 18.7 µs"
    )
