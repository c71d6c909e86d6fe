"""A finding whose fix the rule could not prove: "Verify on the emulator" runs it on the cases, the verdict joins
the message and an "Apply (verified ...)" action appears; and with caseFacts on, the cases run in the background
and the rule proves its premise with the sizes the host really computed."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from lsp_helpers import open_doc, wait_until
from lsprotocol import types
from pytest_lsp import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from opgen import HOST, KERNEL, SCALE_GOLDEN, scale_manifest, write_operator


def _operator(root: Path) -> Path:
    """Single-buffered, and the host sizes the tile at run time (a quarter of each core's share)."""
    host = HOST.replace("tiling.set_tileLength(TILE_LENGTH);", "tiling.set_tileLength(total / blockDim / 4);")
    kernel = KERNEL.replace("constexpr int32_t BUFFER_NUM = 2;", "constexpr int32_t BUFFER_NUM = 1;")
    assert host != HOST and kernel != KERNEL
    write_operator(root, kernel=kernel, host=host, manifest=scale_manifest(786432))
    (root / "golden.py").write_text(SCALE_GOLDEN)
    return next(root.glob("op_kernel/*.cpp"))


async def _actions(client: LanguageClient, uri: str, d: types.Diagnostic):
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=d.range,
            context=types.CodeActionContext(diagnostics=[d]),
        )
    )


def _single(diags) -> types.Diagnostic | None:
    return next((d for d in diags if d.code == "single-buffer"), None)


@pytest.mark.asyncio
async def test_verify_on_the_emulator_then_apply(client: LanguageClient, tmp_path: Path):
    uri = open_doc(client, _operator(tmp_path / "op"))
    diags = await wait_until(client, uri, lambda ds: _single(ds) is not None)
    found = _single(diags)
    assert found.severity == types.DiagnosticSeverity.Information  # run-time sizes: not proven statically
    [verify] = [a for a in await _actions(client, uri, found) if a.title.startswith("Verify on the emulator")]
    # lsprotocol's client side reads any code action with a `command` member as a bare Command, putting the
    # CodeAction's Command object, printed, in `command`: read it back (VS Code tells the two apart properly).
    command = (
        ast.literal_eval(verify.command)
        if isinstance(verify, types.Command)
        else {"command": verify.command.command, "arguments": verify.command.arguments}
    )
    assert command["command"] == "tilewise.verifyFix"
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command["command"], arguments=command["arguments"])
    )
    assert result["verified"] is True and result["checked"] is True, result
    diags = await wait_until(client, uri, lambda ds: "Verified on the emulator" in (_single(ds) or found).message)
    actions = await _actions(client, uri, _single(diags))
    [apply] = [a for a in actions if a.title.startswith("Apply (verified on the emulator")]
    (edit,) = apply.edit.changes[uri]
    assert edit.new_text == "2"
    assert not any(a.title.startswith("Verify on the emulator") for a in actions)


@pytest.mark.asyncio
async def test_case_facts_prove_the_premise_in_the_background(client: LanguageClient, tmp_path: Path):
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"tilewise": {"caseFacts": True}})
    )
    uri = open_doc(client, _operator(tmp_path / "op"))
    # First the static reading (a note), then, once the case has run, the proven finding with a safe fix and the
    # timing model's ceiling for the case. This small case is dominated by its launch, so the ceiling is low and
    # the finding stays a note ("not worth it"); a warning needs a ceiling of 1.05x or more.
    diags = await wait_until(
        client, uri, lambda ds: (d := _single(ds)) is not None and "fits in every case" in d.message, tries=60
    )
    found = _single(diags)
    assert "on case small: the busiest pipe" in found.message
    worth = "not worth it" not in found.message
    assert found.severity == (types.DiagnosticSeverity.Warning if worth else types.DiagnosticSeverity.Information)
    actions = await _actions(client, uri, found)
    assert any(a.edit is not None and not a.title.startswith(("Verify", "Apply (verified")) for a in actions)
