"""The preprocessing passes are one package over one shared context: each pass module imports what it shares with
the others by public name, at module level, so a newcomer can follow every dependency from the imports at the top.
(Before, five modules imported each other's private helpers inside functions to dodge an import cycle.)"""

from __future__ import annotations

import ast
from pathlib import Path

import tilewise.analysis.preprocess as package
from tilewise.analysis.preprocess import preprocess
from tilewise.analysis.preprocess.conditionals import neutralise_conditionals
from tilewise.analysis.preprocess.context import PassContext

PACKAGE_DIR = Path(package.__file__).parent
MODULES = sorted(PACKAGE_DIR.glob("*.py"))


def test_the_package_holds_the_passes_and_their_shared_modules():
    names = {p.stem for p in MODULES}
    assert {"ascendc", "dialect", "macro_forms", "decl_specifiers", "conditionals", "context", "scan"} <= names


def test_no_pass_imports_a_private_name_or_imports_inside_a_function():
    offenders = []
    for path in MODULES:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                offenders += [
                    f"{path.name}:{n.lineno} imports inside {node.name}"
                    for n in ast.walk(node)
                    if isinstance(n, (ast.Import, ast.ImportFrom))
                ]
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tilewise.analysis.preprocess"):
                offenders += [
                    f"{path.name}:{node.lineno} imports the private {a.name}"
                    for a in node.names
                    if a.name.startswith("_")
                ]
    assert offenders == []


def test_one_pass_runs_alone_over_a_context():
    # what benchmarks/corpus.py does to count declarations in the device's branch only
    src = b"#ifdef ASCENDC_CPU_DEBUG\nint cpu;\n#else\nint npu;\n#endif\n"
    ctx = PassContext.whole(src)
    neutralise_conditionals(ctx)
    text = bytes(ctx.buf)
    assert len(text) == len(src) and text.count(b"\n") == src.count(b"\n")
    assert b"int npu;" in text and b"cpu" not in text
    assert text == preprocess(src).text  # nothing else in this text for the other passes to neutralise
