"""The golden of one case, and the check of a run's outputs against it: the one pair of functions every device
(the emulator's, the NPU's) calls, so that a case is judged the same wherever it ran.

The golden is user code (a Python file of the workspace), as much as the kernel is: on every device it runs in a
bounded child process (device/golden_process.py: a time and memory limit, its own process group killed on a
timeout, no network where the machine allows), never in the process that asked for the run. A golden that hangs,
exits or crashes gives the run one error naming the golden, and the caller goes on.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tilewise.analysis.manifest import Case
from tilewise.analysis.operator import Operator
from tilewise.device.dtypes import DTYPES, as_float
from tilewise.device.golden import GoldenError, check_outputs, golden_arguments
from tilewise.device.golden_process import run_golden_bounded
from tilewise.device.protocol import Measurement, RunError

# The tolerances of an operator whose manifest names none.
DEFAULT_RTOL = 1e-3
DEFAULT_ATOL = 1e-3


def case_golden(
    op: Operator,
    case: Case,
    arrays: dict[str, np.ndarray],
    golden: str | None,
    *,
    timeout_s: float,
    memory_bytes: int,
) -> list[np.ndarray] | GoldenError | None:
    """The golden's outputs for the case's input `arrays`, the GoldenError it gave, or None when there is no golden
    (`golden` overrides the manifest's). Computed in a bounded child (golden_process.run_golden_bounded)."""
    spec = golden or (op.manifest.golden.function if op.manifest and op.manifest.golden else None)
    if spec is None:
        return None
    base = Path(op.manifest.path).parent if op.manifest and op.manifest.path else Path(op.model.root)
    try:
        # numpy has no bfloat16: the golden sees such an input as the float32 values it holds
        ins = {
            n: as_float(arrays[n], case.inputs[n].dtype).astype(np.float32)
            if case.inputs[n].dtype == "bfloat16"
            else arrays[n]
            for n in case.inputs
        }
        args = golden_arguments(op.model.inputs, ins)
        return run_golden_bounded(
            spec, base, args, case.attrs, op.model.outputs, timeout_s=timeout_s, memory_bytes=memory_bytes
        )
    except GoldenError as exc:
        return exc


def check_case(
    op: Operator,
    case: Case,
    workdir: Path,
    m: Measurement,
    expected: list[np.ndarray] | GoldenError | None,
    rtol: float | None,
    atol: float | None,
    keep_outputs: bool = False,
) -> None:
    """Read the run's outputs (`workdir/out_<i>.bin`, one per `m.outputs`, in its dtype) and judge them against
    `expected`, filling `m`: the per-output checks, `correct` and the largest errors, or the error that kept them
    from being judged. An explicit `rtol`/`atol` (the CLI's) rules; else an output's own tolerance in the case,
    else the golden's, else DEFAULT_RTOL/DEFAULT_ATOL."""
    produced = []
    for i, out in enumerate(m.outputs):
        raw = np.fromfile(workdir / f"out_{i}.bin", dtype=DTYPES[out.dtype].numpy)
        size = int(np.prod(out.shape)) if out.shape else 1
        if raw.size != size:
            m.ok = False
            m.error = RunError(kind="bad_output", message=f"output {out.name} has {raw.size} elements, expected {size}")
            return
        produced.append(raw.reshape(out.shape))
    if op.model.layout == "invocation":  # a program's own output files carry no shape
        produced = [p.reshape(-1) for p in produced]
    if keep_outputs:
        m.keep_outputs([as_float(p, o.dtype) for p, o in zip(produced, m.outputs, strict=True)])
    if expected is None:
        return
    if isinstance(expected, GoldenError):
        m.error, m.correct = expected.error, False
        return
    g = op.manifest.golden if op.manifest else None
    tol_r = rtol if rtol is not None else (g.rtol if g else DEFAULT_RTOL)
    tol_a = atol if atol is not None else (g.atol if g else DEFAULT_ATOL)
    per_output = (
        {}
        if rtol is not None or atol is not None
        else {
            name: (spec.rtol if spec.rtol is not None else tol_r, spec.atol if spec.atol is not None else tol_a)
            for name, spec in case.outputs.items()
            if spec.rtol is not None or spec.atol is not None
        }
    )
    try:
        checks = check_outputs(m.outputs, produced, expected, tol_r, tol_a, per_output)
    except GoldenError as exc:  # the golden's answer does not fit the outputs (their count or sizes)
        m.error, m.correct = exc.error, False
        return
    m.outputs = checks
    m.correct = all(c.ok for c in checks)
    # golden.check_outputs sets both errors or neither (none for an output with no finite value)
    m.max_abs_err = max((c.max_abs_err for c in checks if c.max_abs_err is not None), default=None)
    m.max_rel_err = max((c.max_rel_err for c in checks if c.max_rel_err is not None), default=None)
