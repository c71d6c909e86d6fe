"""The package's rooms import one way: cli -> lsp -> session | report -> search -> device -> analysis.

The layers are stated once, as the import-linter contract in pyproject.toml (`lint-imports` checks it in
scripts/test.sh). This test reads the same list and checks it again from every module's syntax tree, imports inside
functions and under `if TYPE_CHECKING:` included (a type-only arrow upward is still a layer that knows about the one
above it), so a wrong arrow fails the test suite with the file, the line and the import. It also keeps every module
under the line limit.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "tilewise"
MAX_MODULE_LINES = 600


def contract_layers(pyproject: Path = ROOT / "pyproject.toml") -> list[list[str]]:
    """The layers of the import-linter contract, top first, each a list of sibling rooms (`tilewise.` dropped)."""
    config = tomllib.loads(pyproject.read_text())["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["type"] == "layers"]
    return [[room.strip().removeprefix("tilewise.") for room in layer.split("|")] for layer in contract["layers"]]


LAYERS = contract_layers()
ROOMS = [room for layer in LAYERS for room in layer]


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, room) of every import of a `tilewise.<room>` module in the module."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] if node.module != "tilewise" else [f"tilewise.{a.name}" for a in node.names]
        found.extend((node.lineno, name.split(".")[1]) for name in names if name.startswith("tilewise."))
    return found


def forbidden_imports(room: str, package: Path = PACKAGE, layers: list[list[str]] = LAYERS) -> list[str]:
    """`file:line: imports X` for each import of a room above `room` or beside it."""
    level = next(i for i, layer in enumerate(layers) if room in layer)
    allowed = {r for layer in layers[level + 1 :] for r in layer} | {room}
    every = {r for layer in layers for r in layer}
    return [
        f"{path.relative_to(package.parent)}:{line}: imports tilewise.{target}, which tilewise.{room} may not"
        for path in sorted((package / room).rglob("*.py"))
        for line, target in _imports(path)
        if target in every and target not in allowed
    ]


@pytest.mark.parametrize("room", ROOMS)
def test_no_room_imports_one_above_or_beside_it(room):
    assert forbidden_imports(room) == []


def test_the_contract_names_every_room_of_the_package():
    rooms = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert rooms == set(ROOMS)


def test_the_check_sees_an_upward_import_inside_a_function(tmp_path):
    (tmp_path / "tilewise" / "analysis").mkdir(parents=True)
    (tmp_path / "tilewise" / "analysis" / "bad.py").write_text("def f():\n    from tilewise.cli import main\n")
    assert forbidden_imports("analysis", tmp_path / "tilewise") == [
        "tilewise/analysis/bad.py:2: imports tilewise.cli, which tilewise.analysis may not"
    ]


def test_the_check_sees_a_sibling_import(tmp_path):
    (tmp_path / "tilewise" / "report").mkdir(parents=True)
    (tmp_path / "tilewise" / "report" / "bad.py").write_text("from tilewise import session\n")
    assert forbidden_imports("report", tmp_path / "tilewise") == [
        "tilewise/report/bad.py:1: imports tilewise.session, which tilewise.report may not"
    ]


def test_no_module_is_longer_than_the_limit():
    """One room per concern: a module past the limit is doing several jobs (tests are exempt)."""
    long = [
        f"{path.relative_to(ROOT)}: {n} lines"
        for folder in [PACKAGE, ROOT / "benchmarks"]
        for path in sorted(folder.rglob("*.py"))
        if (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    ]
    assert long == []
