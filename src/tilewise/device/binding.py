"""How one case and one set of knob values bind to an operator, whichever device runs it: the dtype macros and
output dtypes of the OpDef column the case's inputs match (`bind_dtypes`), the names of the output tensors a run
produces (`output_names`, after the aclnn caller's conventions in caller.py), and knob values written into the
sources or left to be read at run time (`split_knobs`). The emulator and the NPU device both start a run here."""

from __future__ import annotations

import re
from pathlib import Path

from tilewise.analysis.manifest import Case, InputSpec
from tilewise.analysis.model import Knob
from tilewise.analysis.operator import Operator
from tilewise.analysis.rewrite import apply_edits, changed_knobs, knob_edit
from tilewise.device.caller import read_back_names, writes_into_inputs
from tilewise.device.dtypes import DTYPES


def split_knobs(
    op: Operator, knobs: dict[str, int], texts: dict[str, str] | None, allow_runtime: bool = True
) -> tuple[list[Knob], dict[str, str]]:
    """Host .cpp constants become run-time knobs (no rebuild per value; a device that reads no knob at run time
    asks with `allow_runtime=False`); every other knob is a literal edit of `texts` (or of the sources on disk).
    Returns the run-time knobs and the edited texts."""
    runtime: list[Knob] = []
    edits: dict[str, list] = {}
    for k in op.model.knobs + op.model.tiling_knobs:
        if k.name not in knobs or k.kind in ("set_block_dim", "launch", "platform"):
            continue
        # (an ATB operator's host .cpp files are built with the emulator's knob reader too: emulator/atb.py)
        host_cpp = k.side == "host" and op.model.layout in ("project", "atb") and Path(k.file).suffix in (".cpp", ".cc")
        if allow_runtime and host_cpp and k.kind in ("constexpr", "const", "tiling_literal"):
            runtime.append(k)
    runtime_ids = {id(k) for k in runtime}
    for k in changed_knobs(op.model, knobs):  # the same name may stand in the kernel too: edit that literal
        if id(k) not in runtime_ids:
            edits.setdefault(k.file, []).append(knob_edit(k, knobs[k.name]))
    out = dict(texts or {})
    for path, file_edits in edits.items():
        out[path] = apply_edits(out.get(path, op.sources[path].text), file_edits)
    return runtime, out


def ir_name(op: Operator, name: str) -> str:
    """The OpDef input a case input binds to: `x[2]` is the third tensor of the DYNAMIC input `x`."""
    m = re.fullmatch(r"(\w+)\[\d+\]", name)
    if m and any(t.name == m.group(1) and t.param_type == "DYNAMIC" for t in op.model.inputs):
        return m.group(1)
    return name


def bind_dtypes(op: Operator, case: Case) -> tuple[dict[str, str], list[str]]:
    """DTYPE_<NAME> macros and output dtypes for a case: the OpDef's dtype column whose inputs match the case."""
    model = op.model
    names = list(dict.fromkeys(ir_name(op, n) for n in case.inputs))
    given: dict[str, InputSpec] = {}  # OpDef input -> the spec of its (first) tensor
    for n, spec_in in case.inputs.items():
        given.setdefault(ir_name(op, n), spec_in)
    if model.inputs:
        expected = [t.name for t in model.inputs]
        required = [t.name for t in model.inputs if t.param_type != "OPTIONAL"]
        missing = [n for n in required if n not in given]
        unknown = [n for n in names if n not in expected]
        if missing or unknown:
            detail = (f": missing {missing}" if missing else "") + (f": unknown {unknown}" if unknown else "")
            raise ValueError(f"the case's inputs {names} do not match the OpDef's inputs {expected}{detail}")
    # Without an OpDef the dtypes are the manifest's own (per input, across cases): no combination to choose.
    columns = max((len(t.dtypes) for t in model.inputs + model.outputs), default=0) if model.opdef else 0
    chosen = None
    for k in range(columns):
        # An entry the analysis could not resolve (`kSupportedTypes[2]`, a macro) is not held against a column.
        if all(
            k < len(t.dtypes) and (t.dtypes[k] == given[t.name].dtype or t.dtypes[k] not in DTYPES)
            for t in model.inputs
            if t.name in given
        ):
            chosen = k
            break
    if model.inputs and columns and chosen is None:
        allowed = {t.name: sorted(set(t.dtypes)) for t in model.inputs}
        got = {n: s.dtype for n, s in given.items()}
        raise ValueError(f"no OpDef dtype combination matches the case's dtypes {got}; the OpDef allows {allowed}")
    macros: dict[str, str] = {}
    out_dtypes: list[str] = []
    first = given[names[0]].dtype if names else "float32"
    for t in model.inputs:
        if t.name in given:
            macros[f"DTYPE_{t.name.upper()}"] = DTYPES[given[t.name].dtype].cpp
    out_names = [t.name for t in model.outputs]
    if unknown_out := [n for n in case.outputs if n not in out_names]:
        raise ValueError(
            f"the case gives dtypes for outputs {unknown_out}, which the operator does not have "
            f"(its outputs: {out_names})"
        )
    for t in model.outputs:
        declared = t.dtypes[chosen] if chosen is not None and chosen < len(t.dtypes) else None
        dt = declared if declared in DTYPES else first
        asked = case.outputs[t.name].dtype if t.name in case.outputs else None
        if asked is not None:  # what the sources cannot say
            if model.opdef and declared in DTYPES and declared != asked:
                raise ValueError(
                    f"the case says output {t.name} is {asked}, but the OpDef makes it {declared} for these inputs"
                )
            dt = asked
        macros[f"DTYPE_{t.name.upper()}"] = DTYPES[dt].cpp
        out_dtypes.append(dt)
    return macros, out_dtypes


def output_names(op: Operator, produced: int, counts: list[int] | None = None) -> list[str]:
    """The output tensors of a run in OpDef order: a DYNAMIC output is a list, `y[0]`, `y[1]`, ..., as long as the
    golden makes it (`counts[i]` arrays for OpDef output i when the golden's answer said; else `produced` arrays in
    all, the surplus going to the first DYNAMIC output; one tensor when there is no golden). An OpDef with no output
    reads back its first inputs instead (`caller.read_back_names`)."""
    outs = op.model.outputs
    if writes_into_inputs(op):
        return read_back_names(op, produced)
    if not outs:
        return [f"out{i}" for i in range(max(produced, 1))]
    if counts and len(counts) == len(outs):
        return [
            n
            for t, c in zip(outs, counts, strict=True)
            for n in ([f"{t.name}[{j}]" for j in range(c)] if t.param_type == "DYNAMIC" else [t.name])
        ]
    first_dyn = next((i for i, t in enumerate(outs) if t.param_type == "DYNAMIC"), None)
    extra = max(produced - len(outs), 0)
    names = []
    for i, t in enumerate(outs):
        names += [f"{t.name}[{j}]" for j in range(1 + extra)] if i == first_dyn else [t.name]
    return names
