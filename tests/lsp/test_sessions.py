"""The server's structure: one session per operator (a second operator keeps its own), custom requests' params
checked where they enter (bad ones get a clear Invalid Params error, and the server answers the next request), and
features that never import each other (they call the server's services instead) nor the server module at run time
(it imports them)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from lsp_helpers import EXAMPLES, ROOT, kernel, open_doc
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pytest_lsp import LanguageClient

from tilewise.lsp.params import RunParams, TuneParams, parse
from tilewise.lsp.state import ServerState, Settings, StoredFacts
from tilewise.search.cache import BestConfig

FEATURES = ROOT / "src" / "tilewise" / "lsp" / "features"


def _lens_titles(lenses) -> list[str]:
    return [lens.command.title for lens in lenses or []]


@pytest.mark.asyncio
async def test_a_second_operator_keeps_its_own_session(client: LanguageClient):
    leaky, slow = open_doc(client, kernel("leaky")), open_doc(client, kernel("slow"))
    result = await client.protocol.send_request_async("tilewise/run", {"uri": leaky})
    assert result.ok
    leaky_lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=leaky))
    )
    slow_lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=slow))
    )
    assert _lens_titles(leaky_lenses)[-1].startswith("last: ")
    # the run was of the other operator: this one's lenses have no result
    assert _lens_titles(slow_lenses) and not any(t.startswith("last: ") for t in _lens_titles(slow_lenses))


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("method", "params", "complaint"),
    [
        ("tilewise/run", {}, "tilewise/run: bad params: uri: Field required"),
        ("tilewise/run", {"uri": "x", "timeout": -1}, "timeout: Input should be greater than 0"),
        ("tilewise/run", {"uri": "x", "timeout": "soon"}, "timeout: Input should be a valid number"),
        ("tilewise/tune", {"uri": "x", "budget": 0}, "budget: Input should be greater than or equal to 1"),
        ("tilewise/tune", {"uri": "x", "strategy": "annealing"}, "unknown strategy 'annealing'; use one of evo"),
        ("tilewise/tune", {"uri": "x", "budjet": 6}, "budjet: Extra inputs are not permitted"),
        ("tilewise/tune", [1, 2], "tilewise/tune: params must be an object with the fields uri, case"),
    ],
)
async def test_bad_params_get_a_clear_error_and_the_server_lives(client: LanguageClient, method, params, complaint):
    uri = open_doc(client, kernel("leaky"))
    with pytest.raises(JsonRpcException) as err:
        await client.protocol.send_request_async(method, params)
    assert err.value.code == JsonRpcInvalidParams.CODE
    assert complaint in err.value.message
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert _lens_titles(lenses) == [
        "Run on emulator",
        "Tune tiling",
        "Verify suggestions",
        "Optimize operator",
    ]  # nothing ran


def test_params_accept_what_the_clients_send():
    run = parse("tilewise/run", RunParams, {"uri": "file:///k.cpp", "workDoneToken": "t-1", "trace": "/tmp/t.json"})
    assert (run.uri, run.work_done_token, run.trace, run.case, run.timeout) == (
        "file:///k.cpp",
        "t-1",
        "/tmp/t.json",
        None,
        None,
    )
    tune = parse("tilewise/tune", TuneParams, {"uri": "u", "budget": "6", "strategy": "random", "case": "c"})
    assert (tune.budget, tune.strategy, tune.case) == (6, "random", "c")


def test_sessions_are_per_operator_and_snapshots_do_not_follow_them():
    state = ServerState()
    a, b = str(EXAMPLES / "add_custom"), str(EXAMPLES / "leaky_relu")
    best = BestConfig(cases=["c"], config={"TILE_LENGTH": 4096}, best_us=1.0, baseline_us=2.0)
    state.session(a).tuned = best
    state.session(a).facts = StoredFacts({"k": "x"}, [], [])
    assert state.session(a) is state.session(a) and state.session(b) is not state.session(a)
    assert state.session(b).tuned is None and state.session(b).facts is None
    texts = {"k": "x"}
    snap = state.snapshot(a, texts)
    texts["k"] = "edited"
    state.session(a).facts = None
    state.change_settings(Settings.model_validate({"chip": "910B4"}))
    assert snap.texts["k"] == "x" and snap.facts is not None and snap.settings.chip == "910B2"
    with pytest.raises(TypeError):
        snap.texts["k"] = "y"  # type: ignore[index]
    assert state.session(a).tuned is None  # measured on another chip: looked up again


def _imports(tree: ast.AST, *, runtime_only: bool = False) -> set[str]:
    """The modules (and `module.name`s) imported anywhere in `tree`; with `runtime_only`, not those under
    `if TYPE_CHECKING:`, which never run."""
    found: set[str] = set()
    for node in ast.iter_child_nodes(tree):
        if (
            runtime_only
            and isinstance(node, ast.If)
            and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        ):
            found |= {m for n in node.orelse for m in _imports(ast.Module([n], []), runtime_only=True)}
            continue
        if isinstance(node, ast.ImportFrom):
            found.add(("." * node.level) + (node.module or ""))
            found.update(f"{node.module}.{a.name}" for a in node.names if node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        found |= _imports(node, runtime_only=runtime_only)
    return found


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text())


def test_no_feature_imports_another():
    modules = sorted(FEATURES.glob("*.py"))
    assert len(modules) > 5
    for path in modules:
        bad = {m for m in _imports(_tree(path)) if m.startswith(("tilewise.lsp.features", "."))}
        assert not bad, f"{path.name} imports {bad}: call a service of TilewiseServer instead"


def test_imports_run_one_way_from_the_server_to_its_features():
    # A feature (or a module features use) imports the server class only for type checking, so server.py can
    # import every feature at the top; `safe` and the like live in server/lsp/handlers.py.
    lsp = ROOT / "src" / "tilewise" / "lsp"
    for path in sorted(FEATURES.glob("*.py")) + sorted(p for p in lsp.glob("*.py") if p.name != "server.py"):
        bad = {m for m in _imports(_tree(path), runtime_only=True) if m.startswith("tilewise.lsp.server")}
        bad |= {m for m in _imports(_tree(path)) if path.parent == lsp and m.startswith("tilewise.lsp.features")}
        assert not bad, f"{path.relative_to(ROOT)} imports {bad} at run time: import it under `if TYPE_CHECKING:`"
    server = _tree(lsp / "server.py")
    top = {m for n in server.body if isinstance(n, ast.ImportFrom) for m in _imports(ast.Module([n], []))}
    assert {f"tilewise.lsp.features.{p.stem}" for p in FEATURES.glob("*.py") if p.stem != "__init__"} <= top


def test_the_import_checks_see_a_run_time_import_of_the_server():
    sneaky = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from tilewise.lsp.server import TilewiseServer\n"
        "def register(server):\n    from tilewise.lsp.server import safe\n"
    )
    assert _imports(sneaky, runtime_only=True) >= {"tilewise.lsp.server", "tilewise.lsp.server.safe"}
    guarded = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import tilewise.lsp.server\n")
    assert "tilewise.lsp.server" not in _imports(guarded, runtime_only=True)
