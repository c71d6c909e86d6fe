"""What an aclnn caller does for an operator that its host code does not say: which tensors it reads back, and the
shapes it allocates the outputs with.

- In place: an OpDef that declares no output at all (Eye-style, ScatterSub-style) has its kernel write into its
  inputs. The golden's answer is then the updated inputs, from the first in OpDef order (a bare array is the first
  input's), and the runner reads them back from the inputs' own memory. An output that has an input's name
  (`Input("var")` and `Output("var")`) shares that input's memory in the runner as well.
- Output shapes: an aclnn caller allocates the outputs itself, with the shape it expects; InferShape matters only in
  graph mode. Many public reductions copy x's shape to y in InferShape, so when the golden's output has another
  element count the runner allocates the golden's shape, and the run carries a note at the InferShape function.
"""

from __future__ import annotations

import re

from tilewise.analysis.operator import Operator
from tilewise.device.protocol import RunWarning


def writes_into_inputs(op: Operator) -> bool:
    """An operator project whose OpDef declares inputs but no output: the kernel's results are its inputs."""
    return (
        op.model.layout == "project" and op.model.opdef is not None and bool(op.model.inputs) and not op.model.outputs
    )


def read_back_names(op: Operator, produced: int) -> list[str]:
    """The inputs an in-place operator's run reads back: as many as the golden returned arrays (one without a
    golden), from the first input in OpDef order. Raises ValueError when the golden returned more arrays than the
    OpDef has plain inputs."""
    plain = [t.name for t in op.model.inputs if t.param_type != "DYNAMIC"]
    count = max(produced, 1)
    if count > len(plain):
        raise ValueError(
            f"the OpDef of {op.model.operator} declares no output, so the golden returns the updated inputs from the "
            f"first in OpDef order ({', '.join(plain)}), but it returned {produced} arrays; return at most "
            f"{len(plain)}"
        )
    return plain[:count]


def infer_shape_notes(op: Operator, outputs: list[dict]) -> list[RunWarning]:
    """One note per output whose InferShape shape the runner replaced with the golden's (`infer_shape` in the
    runner's result), at the InferShape function."""
    notes = []
    file, line = infer_shape_site(op)
    for out in outputs:
        inferred = out.get("infer_shape")
        if inferred is None:
            continue
        notes.append(
            RunWarning(
                kind="infer_shape",
                file=file,
                line=line,
                message=(
                    f"InferShape gives {out['name']} {list(inferred)} but the golden returns {list(out['shape'])}; the "
                    "output was allocated as the golden's shape (as an aclnn caller does). Fix InferShape if the "
                    "operator "
                    "is used in graph mode."
                ),
            )
        )
    return notes


def infer_shape_site(op: Operator) -> tuple[str | None, int | None]:
    """The file and line of the operator's InferShape function: the definition taking an InferShapeContext, the one
    the OpDef's SetInferShape names when it names one; else the OpDef's line."""
    opdef = op.model.opdef
    wanted = opdef.infer_shape if opdef else None
    definition = re.compile(r"\b(\w+)\s*\(\s*(?:gert::)?InferShapeContext\s*\*")
    first: tuple[str, int] | None = None
    for path in op.model.host_files:
        src = op.sources.get(path)
        if src is None:
            continue
        for i, row in enumerate(src.text.splitlines(), 1):
            m = definition.search(row)
            if m is None or row.rstrip().endswith(";"):  # a declaration, not the function
                continue
            if wanted is None or m.group(1) == wanted:
                return path, i
            first = first or (path, i)
    if first is not None:
        return first
    return (opdef.loc.file, opdef.loc.line) if opdef and opdef.loc else (None, None)
