"""The golden run in a child process, bounded like the kernel: the same time and memory limits, a cap on the files
it writes, its own process group killed on a timeout, and no network where the machine allows
(device/process.py). A golden is user code, as much as the kernel is.

The child is device/golden_runner.py run by this same Python; the arguments and the answer travel as pickles in a
temporary folder of the run. Its failures read as they did when the golden ran in-process (device/golden.py).
"""

from __future__ import annotations

import pickle
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

from tilewise.analysis.model import TensorParam
from tilewise.device.golden import GoldenError, GoldenOutputs, golden_location, group_outputs
from tilewise.device.process import crash_error, file_limit, run_bounded
from tilewise.device.protocol import RunError

RUNNER = Path(__file__).resolve().parent / "golden_runner.py"


def run_golden_bounded(
    spec: str,
    base: Path,
    inputs: list,
    attrs: dict,
    outputs: list[TensorParam] | None,
    *,
    timeout_s: float,
    memory_bytes: int,
) -> GoldenOutputs:
    """`device.golden.run_golden`'s answer, computed in a bounded child process; GoldenError as it raises."""
    path, name = golden_location(spec, base)
    work = Path(tempfile.mkdtemp(prefix="tilewise-golden-"))
    try:
        job, reply = work / "job.pickle", work / "answer.pickle"
        with job.open("wb") as f:
            pickle.dump({"path": str(path), "name": name, "inputs": inputs, "attrs": attrs}, f, pickle.HIGHEST_PROTOCOL)
        data = sum(a.nbytes for x in inputs for a in (x if isinstance(x, list) else [x]) if isinstance(a, np.ndarray))
        proc = run_bounded(
            [sys.executable, str(RUNNER), str(job), str(reply)],
            cwd=path.parent,  # a golden that reads a data file beside it by a relative name finds it
            env=None,
            timeout_s=timeout_s,
            memory_bytes=memory_bytes,
            file_bytes=file_limit(data),
            no_network=True,
        )
        if proc is None:
            raise _error(
                f"the golden did not finish within {timeout_s:g} s; it and every process it started were killed", path
            )
        if proc.returncode != 0 or not reply.exists():
            raise _error("the golden's process failed: " + crash_error(proc.returncode, proc.stderr).message, path)
        with reply.open("rb") as f:
            kind, *rest = pickle.load(f)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if kind == "import":
        raise _error(f"importing the golden failed: {rest[0]}", path, rest[1])
    if kind == "missing":
        raise _error(f"{path.name} has no function '{name}'", path)
    if kind == "raised":
        raise _error(f"the golden raised {rest[0]}", path, rest[1])
    try:
        return group_outputs(rest[0], outputs or [])
    except GoldenError as exc:
        exc.error.file = str(path)
        raise


def _error(message: str, path: Path, line: int | None = None) -> GoldenError:
    return GoldenError(RunError(kind="golden_error", message=message, file=str(path), line=line))
