"""Helpers of the motif tests: write a rewound or fixed operator to its own folder, run an operator's cases."""

from __future__ import annotations

import shutil
from pathlib import Path

from tilewise.analysis.findings import TextEdit
from tilewise.analysis.operator import Operator, load_operator
from tilewise.analysis.rewrite import apply_edits
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import Measurement, RunRequest


def variant(op: Operator, texts: dict[str, str], root: Path) -> Operator:
    """A copy of the operator's folder at `root`, with the files `texts` names (by their path in `op`) replaced."""
    shutil.copytree(op.project.root, root)
    for path, text in texts.items():
        (root / Path(path).relative_to(op.project.root)).write_text(text)
    return load_operator(root)


def with_edits(op: Operator, edits: list[TextEdit], root: Path) -> Operator:
    """A copy of the operator at `root` with text edits (computed on `op`'s texts) applied."""
    by_file: dict[str, list[TextEdit]] = {}
    for e in edits:
        by_file.setdefault(e.file, []).append(e)
    texts = {path: apply_edits(op.sources[path].text, es) for path, es in by_file.items()}
    return variant(op, texts, root)


def run_all(device: EmulatorDevice, op: Operator) -> list[Measurement]:
    """Every manifest case of `op`, each asserted to build, run clean and match its golden."""
    out = []
    assert op.manifest is not None
    for case in op.manifest.cases:
        m = device.run(op, RunRequest(case))
        assert m.ok and m.error is None and m.correct, (case.name, m.error, [o for o in m.outputs if not o.ok])
        out.append(m)
    return out
