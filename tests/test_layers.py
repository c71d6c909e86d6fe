"""The packages import one way: server -> search -> device -> analysis (docs/ARCHITECTURE.md).

Every import in every module is read from its syntax tree, including imports inside functions and under
`if TYPE_CHECKING:` (a type-only arrow upward is still a layer that knows about the one above it). A module that
imports a package above its own fails here with the file, the line and the import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ["analysis", "device", "search", "server"]  # each may import those before it, never those after
MAX_MODULE_LINES = 600


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, top-level package) of every import in the module."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name.split(".")[0]) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module.split(".")[0]))
    return found


def upward_imports(package: str, root: Path = ROOT) -> list[str]:
    """`file:line: imports X` for each import of a layer above `package`."""
    above = set(LAYERS[LAYERS.index(package) + 1 :])
    return [
        f"{path.relative_to(root)}:{line}: imports {target}, a layer above {package}"
        for path in sorted((root / package).rglob("*.py"))
        for line, target in _imports(path)
        if target in above
    ]


@pytest.mark.parametrize("package", LAYERS)
def test_no_package_imports_a_layer_above_it(package):
    assert upward_imports(package) == []


def test_the_check_sees_an_upward_import_inside_a_function(tmp_path):
    (tmp_path / "analysis").mkdir()
    (tmp_path / "analysis" / "bad.py").write_text("def f():\n    from server.cli import main\n    return main\n")
    assert upward_imports("analysis", tmp_path) == ["analysis/bad.py:2: imports server, a layer above analysis"]


def test_no_module_is_longer_than_the_limit():
    """One room per concern: a module past the limit is doing several jobs (tests are exempt)."""
    long = [
        f"{path.relative_to(ROOT)}: {n} lines"
        for package in [*LAYERS, "benchmarks"]
        for path in sorted((ROOT / package).rglob("*.py"))
        if (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    ]
    assert long == []
