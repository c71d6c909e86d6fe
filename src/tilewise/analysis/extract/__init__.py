"""Build the `OperatorModel` of an operator from its parsed sources.

The build is a sequence of passes, each in its own module and each reading one kind of input: the OpDef
(`opdef`), the integer constants and knobs (`constants`), the host's tiling structs, tiling functions and launches
(`host`), and the kernel's entries, queues, API calls and call graph (`kernel`). They share one `BuildContext`
(`context`): the files, the constant environments, the problems found. Order matters: the OpDef's dtypes size the
kernel's DTYPE_X macros, constants are evaluated before the tiling functions read them, and the tiling functions'
values reach the kernel's environment before the kernel pass evaluates buffer sizes.

Each pass finds facts with tree-sitter queries (fast, in C) and connects them in a little Python. The per-file passes
work chunk by chunk and keep their results in the SourceFile's memo (`analysis.chunks`): the language server
re-builds the model on every keystroke, and only the chunk that changed is extracted again.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tilewise.analysis.atb import atb_tensors
from tilewise.analysis.extract.constants import INT_TYPES, constants
from tilewise.analysis.extract.context import BuildContext, Facts, FileFacts
from tilewise.analysis.extract.host import launches, tiling_functions, tiling_structs
from tilewise.analysis.extract.kernel import kernel
from tilewise.analysis.extract.opdef import dtype_sizes, opdef
from tilewise.analysis.extract.tiling_knobs import tiling_knobs
from tilewise.analysis.model import OperatorModel, Problem, Side
from tilewise.analysis.project import OperatorProject
from tilewise.analysis.source import SourceFile

__all__ = ["INT_TYPES", "BuildContext", "build_model"]

# (name in an internal-error problem, pass), in the order their inputs need
_PASSES: tuple[tuple[str, Callable[[BuildContext, OperatorModel], None]], ...] = (
    ("opdef", opdef),
    ("dtype_sizes", dtype_sizes),
    ("constants", constants),
    ("tiling_structs", tiling_structs),
    ("tiling_functions", tiling_functions),
    ("launches", launches),
    ("tiling_knobs", tiling_knobs),
    ("kernel", kernel),
)


def build_model(project: OperatorProject, sources: dict[str, SourceFile]) -> OperatorModel:
    """The model of `project`; `sources` maps path to SourceFile (the server passes its open documents)."""
    ctx = BuildContext(project, sources)
    p = project
    host = {str(f) for f in p.host_files}
    kernel_files = {str(f) for f in p.kernel_files}
    for path in [str(f) for f in p.files]:
        sf = sources.get(path)
        if sf is None:
            continue
        side: Side = "kernel" if path in kernel_files and (path not in host or p.layout == "invocation") else "host"
        ctx.files.append(FileFacts(sf, side, Facts(sf)))

    model = OperatorModel(operator=p.name, layout=p.layout, root=str(p.root))
    model.files = [f.sf.path for f in ctx.files]
    model.host_files = [f.sf.path for f in ctx.files if f.side == "host" or p.layout == "invocation"]
    model.kernel_files = [f.sf.path for f in ctx.files if f.side == "kernel"]
    model.problems = ctx.problems
    _missing_sides(ctx)
    for f in ctx.files:
        model.syntax_errors.extend(ctx.nloc(f.sf, n) for n in f.sf.errors())

    for name, step in _PASSES:
        # One broken fact must not cost the others: record it as a problem and carry on.
        try:
            step(ctx, model)
        except Exception as exc:  # noqa: BLE001 - analysis of arbitrary user code must never take a caller down
            ctx.problems.append(ctx.problem(exc, name))

    registered = next((s.op_type for s in model.tiling.structs if s.op_type), None)
    model.operator = (
        (model.opdef.name if model.opdef else None)
        or registered
        or (_camel(model.kernel.entry) if model.kernel.entry else None)
        or _camel(p.name)
    )
    if model.opdef:
        model.inputs, model.outputs, model.attrs = model.opdef.inputs, model.opdef.outputs, model.opdef.attrs
    if model.layout == "invocation" and model.launches and not model.kernel.entry:
        model.kernel.entry = model.launches[0].kernel
    if model.layout == "atb":
        atb_tensors(model, p.manifest, [f.sf.text for f in ctx.files if f.side == "host"])
    return model


def _missing_sides(ctx: BuildContext) -> None:
    """A project without op_host/ or op_kernel/ is reported as such, before the passes find nothing in it."""
    p = ctx.project
    if p.layout == "project" and not p.host_files:
        ctx.problems.append(
            Problem(
                file=str(p.root / "op_host"),
                message=("missing op_host/: no host tiling or OpDef found; add op_host/<op>.cpp and <op>_tiling.h"),
            )
        )
    if p.layout == "project" and not p.kernel_files:
        ctx.problems.append(
            Problem(
                file=str(p.root / "op_kernel"),
                message=(
                    "missing op_kernel/: no kernel source found; add op_kernel/<op>.cpp with the __global__ entry"
                ),
            )
        )


def _camel(snake: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[_\-\s]+", snake) if p)
