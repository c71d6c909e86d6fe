"""tests/slow_tests.txt, the fast suite's leave-out list: every entry names a test that exists (a renamed or deleted
test would otherwise sit in the list doing nothing), conftest.py marks what it names, and scripts/slow_tests.py
reads a durations log as pytest writes it."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _script():
    return _load("slow_tests_script", ROOT / "scripts" / "slow_tests.py")


# by path: `import conftest` is ambiguous beside tests/lsp/conftest.py and the other folders' own
_conftest = _load("tilewise_tests_root_conftest", ROOT / "tests" / "conftest.py")
SLOW_LIST, pytest_collection_modifyitems = _conftest.SLOW_LIST, _conftest.pytest_collection_modifyitems


def _test_functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def test_every_listed_test_exists():
    listed = _script().read_list(SLOW_LIST)
    assert listed, "the list is empty: make it with scripts/slow_tests.py"
    missing = []
    for node_id in listed:
        file, _, name = node_id.partition("::")
        function = name.split("[", 1)[0].split("::")[-1]
        path = ROOT / file
        if not path.is_file() or function not in _test_functions(path):
            missing.append(node_id)
    assert missing == [], f"tests/slow_tests.txt names tests that do not exist: {missing}"


def test_the_durations_log_is_read_call_by_call():
    log = (
        "12.50s call     tests/a/test_x.py::test_one[p-1]\n"
        "9.00s setup    tests/a/test_x.py::test_two\n"
        "0.50s call     tests/a/test_x.py::test_two\n"
        "(120 durations < 0.005s hidden.)\n"
    )
    assert _script().measured(log) == {"tests/a/test_x.py::test_one[p-1]": 12.5, "tests/a/test_x.py::test_two": 0.5}


class _Item:
    def __init__(self, nodeid: str):
        self.nodeid = nodeid
        self.markers: list[pytest.MarkDecorator] = []

    def add_marker(self, marker: pytest.MarkDecorator) -> None:
        self.markers.append(marker)


def test_conftest_marks_what_the_list_names_and_nothing_else():
    listed = _script().read_list(SLOW_LIST)[0]
    named, other = _Item(listed), _Item("tests/test_slow_list.py::test_conftest_marks_what_the_list_names")
    pytest_collection_modifyitems(None, [named, other])  # type: ignore[arg-type]
    assert [m.name for m in named.markers] == ["slow"]
    assert other.markers == []
