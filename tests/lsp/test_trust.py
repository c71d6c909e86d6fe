"""An untrusted workspace (`initializationOptions: {"trusted": false}`, server/lsp/features/trust.py): lint keeps
working from the sources as text, while every request that builds or runs the operator answers an error that names
the untrusted workspace, and the background case facts never run. Nothing executes: the golden (a Python file of
the workspace) is never imported and the server's cache holds no build. Nor is anything offered that the server would
refuse: no Run/Tune/Verify/Optimize code lens and no "Verify on the emulator" action; the fixes that edit text stay."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
import pytest_asyncio
from in_process import in_process_client
from lsp_helpers import EXAMPLES, IN_PROCESS_ENV, WORK, _workspace, open_doc, wait_until
from lsprotocol import types
from opgen import HOST, KERNEL, SCALE_GOLDEN, scale_manifest, write_operator
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tilewise.lsp.features.trust import trusted_from
from tilewise.lsp.server import FACTS_DELAY_S

CACHE = WORK / "untrusted-cache"
# case facts on (the editor's default): only the trust keeps the cases from running on open and save; builds go
# beside the results (no session build cache), where the test sees that none was made
# the golden's import leaves a mark: a run (or anything else that imports it) would execute the workspace's code
MARKING_GOLDEN = """\
from pathlib import Path

import numpy as np

Path(__file__).with_name("golden-imported").touch()


def add_custom(x, y):
    return (x.astype(np.float32) + y.astype(np.float32)).astype(x.dtype)
"""


@pytest_asyncio.fixture
async def untrusted(monkeypatch):
    env = {**IN_PROCESS_ENV, "TILEWISE_CACHE": str(CACHE), "TILEWISE_CASE_FACTS": "1"}
    async with in_process_client(env, monkeypatch, unset=("TILEWISE_BUILD_CACHE",)) as lsp_client:
        await lsp_client.initialize_session(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True)),
                root_uri=_workspace().as_uri(),
                initialization_options={"trusted": False},
            )
        )
        yield lsp_client
        await lsp_client.shutdown_session()


async def _actions(client: LanguageClient, uri: str, d: types.Diagnostic) -> list:
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=d.range,
            context=types.CodeActionContext(diagnostics=[d]),
        )
    )


def _edits_only(actions: list) -> bool:
    """Every action edits text and none runs a command (lsprotocol reads a code action with a `command` member as a
    bare Command: either way, a command is what must not be there)."""
    return all(
        isinstance(a, types.CodeAction)
        and a.command is None
        and a.edit is not None
        and not a.title.startswith("Verify on the emulator")
        for a in actions
    )


async def _refused(client: LanguageClient, method: str, params: dict) -> str:
    with pytest.raises(JsonRpcException) as err:
        await asyncio.wait_for(client.protocol.send_request_async(method, params), 60)
    return err.value.message


@pytest.mark.asyncio
async def test_an_untrusted_workspace_lints_but_never_builds_or_runs(untrusted: LanguageClient, tmp_path: Path):
    client = untrusted
    root = tmp_path / "slow"
    shutil.copytree(EXAMPLES / "add_custom_slow_pipe_all", root)
    (root / "golden.py").write_text(MARKING_GOLDEN)
    kernel = root / "op_kernel" / "add_custom.cpp"
    uri = open_doc(client, kernel)
    # trust is never a setting: a workspace's settings file must not be able to grant it to itself
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"tilewise": {"trusted": True, "caseFacts": True}})
    )
    diags = await wait_until(client, uri, lambda ds: any(d.code == "pipe-all-in-loop" for d in ds))
    assert diags

    for method, params in [
        ("tilewise/run", {"uri": uri}),
        ("tilewise/tune", {"uri": uri, "budget": 4}),
        ("tilewise/optimize", {"uri": uri, "budget": 4}),
        ("tilewise/verifySuggestions", {"uri": uri}),
    ]:
        message = await _refused(client, method, params)
        assert "untrusted workspace" in message and "trust the workspace" in message, (method, message)
        assert message.startswith(method) and "Traceback" not in message
    with pytest.raises(JsonRpcException) as err:
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="tilewise.verifyFix",
                arguments=[{"uri": uri, "rule": "pipe-all-in-loop", "start": 0, "title": "any"}],
            )
        )
    assert "untrusted workspace" in err.value.message

    # a save asks for the case facts; give the job time to start, were it allowed to
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    await asyncio.sleep(FACTS_DELAY_S + 2.0)
    # the server is alive, and still answers from the sources: the lint's fixes that only edit text, nothing that
    # would build or run (no Run/Tune/Verify/Optimize lens, no "Verify on the emulator" action)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert not lenses
    pipe_all = next(d for d in diags if d.code == "pipe-all-in-loop")
    actions = await _actions(client, uri, pipe_all)
    assert actions and _edits_only(actions), [a.title for a in actions]
    assert not (root / "golden-imported").exists()
    assert not (CACHE / "emulator").exists(), sorted(p.name for p in (CACHE / "emulator").iterdir())
    assert not (CACHE / "results.sqlite").exists()


def test_trust_is_what_the_client_says_and_true_when_it_says_nothing():
    assert trusted_from(None) is True  # an editor without workspace trust
    assert trusted_from({}) is True
    assert trusted_from({"other": 1}) is True
    assert trusted_from({"trusted": True}) is True
    assert trusted_from({"trusted": False}) is False
    assert trusted_from({"trusted": "false"}) is False  # anything but true is not trust
    assert trusted_from({"trusted": None}) is False


@pytest.mark.asyncio
async def test_an_untrusted_workspace_offers_no_verify_action_for_a_fix_only_a_run_can_prove(
    untrusted: LanguageClient, tmp_path: Path
):
    client = untrusted
    # single-buffered, the tile sized at run time: a trusted workspace offers "Verify on the emulator" here
    # (tests/lsp/test_verify_and_facts.py)
    host = HOST.replace("tiling.set_tileLength(TILE_LENGTH);", "tiling.set_tileLength(total / blockDim / 4);")
    kernel = KERNEL.replace("constexpr int32_t BUFFER_NUM = 2;", "constexpr int32_t BUFFER_NUM = 1;")
    write_operator(tmp_path / "op", kernel=kernel, host=host, manifest=scale_manifest(786432))
    (tmp_path / "op" / "golden.py").write_text(SCALE_GOLDEN)
    uri = open_doc(client, next((tmp_path / "op").glob("op_kernel/*.cpp")))
    diags = await wait_until(client, uri, lambda ds: any(d.code == "single-buffer" for d in ds))
    single = next(d for d in diags if d.code == "single-buffer")
    assert single.severity == types.DiagnosticSeverity.Information  # not proven statically: only a run could
    actions = await _actions(client, uri, single)
    assert _edits_only(actions), [a.title for a in actions]
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert not lenses
