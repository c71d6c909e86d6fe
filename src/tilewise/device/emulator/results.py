"""Reading back what one emulator run wrote (its result.json, per-site table and captured launch arguments) into a
`Measurement`: the device's assembly of the record, apart from how the run is started and bounded (process.py)
and from what it is given (device.py).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tilewise.analysis.host_copies import output_file_names
from tilewise.analysis.manifest import Case
from tilewise.analysis.operator import Operator
from tilewise.device.dtypes import DTYPES
from tilewise.device.protocol import Measurement, OutputCheck, PipeUse, RunError, RunWarning, SiteUse


def run_warnings(result: dict) -> list[RunWarning]:
    """The run's sanitizer warnings (the device went on, so the run did): one per call site, with its count."""
    return [
        RunWarning(
            kind=w["kind"],
            message=w["message"],
            file=w.get("file") or None,
            line=w.get("line") or None,
            count=w.get("count", 1),
        )
        for w in result.get("warnings", [])
    ]


def read_timing(result: dict, m: Measurement, chip: str) -> None:
    if "time_us" not in result:
        return
    m.time_us, m.cycles, m.launch_us = result["time_us"], result["cycles"], result["launch_us"]
    m.bottleneck, m.waves, m.schedule_s, m.chip = result["bottleneck"], result["waves"], result.get("schedule_s"), chip
    m.pipes = {k: PipeUse(**v) for k, v in result["pipes"].items()}
    m.hbm_bytes = result.get("hbm_bytes")


def read_site_uses(path: Path, clock_ghz: float) -> list[SiteUse]:
    """The runner's per-block, per-call-site lines (tw/timing/trace_files.h `write_site_uses`), busy cycles in µs."""
    out = []
    for row in path.read_text(encoding="utf-8", errors="replace").splitlines():
        f = row.split("\t", 12)
        if len(f) != 13:
            continue
        out.append(
            SiteUse(
                block=int(f[0]),
                pipe=f[1],
                calls=int(f[2]),
                bytes=int(f[3]),
                min_bytes=int(f[4]),
                max_bytes=int(f[5]),
                repeats=int(f[6]),
                min_repeats=int(f[7]),
                max_repeats=int(f[8]),
                busy_us=float(f[9]) / (clock_ghz * 1e3),
                api=f[10],
                line=int(f[11]),
                file=f[12],
            )
        )
    return out


def output_stub(name: str, shape: list[int], dtype: str) -> OutputCheck:
    return OutputCheck(name=name, shape=shape, dtype=dtype)


def dtype_name(dt: np.dtype) -> str:
    """The dtype name of a numpy dtype (float32 for one the table lacks)."""
    return next((d.name for d in DTYPES.values() if np.dtype(d.numpy) == dt and d.name != "bfloat16"), "float32")


def captured_launch(
    op: Operator, case: Case, out_dtypes: list[str], workdir: Path, m: Measurement
) -> dict[str, np.ndarray] | None:
    """A program that wrote no output file, read at its launch (tw/runtime/invocation.h's TW_CAPTURE): the kernel's
    arguments the host copied to the device before it are the case's inputs, in order, and those it copied back
    after it are the outputs. Sets m's outputs (out_<i>.bin) and returns the inputs, or sets m.error."""
    table = workdir / "capture" / "capture.txt"
    rows = table.read_text().split("\n") if table.exists() else []
    args = [r.split() for r in rows if r.startswith("arg ")]
    launches = int(rows[0].split()[1]) if rows and rows[0].startswith("launches ") else 0
    ins = [a for a in args if a[3] == "1" and a[4] == "0"]
    outs = [a for a in args if a[4] == "1"]
    names = [o.name for o in op.model.outputs]
    missing = f"the program wrote no output_{names[0]}.bin (in its working directory or output/)"
    if not (workdir / "capture").is_dir():  # its host code names output files, so its launch was not read
        why = (
            f"{missing}, though its host code names output files ({', '.join(output_file_names(host_texts(op)))})"
            f": write each output to output_<name>.bin ({', '.join(names)})"
        )
    elif launches > 1:
        # one launch is what a case's golden describes: a later one may start from an earlier one's outputs
        why = (
            f"{missing}, and it launched kernels {launches} times, so its arguments are not the case's inputs "
            "and outputs: write the outputs to output_<name>.bin, or launch the kernel once"
        )
    elif len(ins) != len(case.inputs) or len(outs) != len(names):
        why = (
            f"{missing}, and its launch does not say which arguments are inputs and outputs: write the outputs to "
            f"output_<name>.bin, or launch the kernel once with the {len(case.inputs)} input(s) copied to the "
            f"device (aclrtMemcpy) before it and the {len(names)} output(s) copied back after it"
        )
    else:
        why = None
    if why is not None:
        m.ok = False
        m.error = RunError(kind="bad_output", message=why)
        return None
    drawn = {}
    for (name, spec), a in zip(case.inputs.items(), ins, strict=True):
        raw = np.fromfile(workdir / "capture" / f"arg{a[1]}.in", dtype=DTYPES[spec.dtype].numpy)
        size = int(np.prod(spec.shape))
        drawn[name] = raw[:size].reshape(spec.shape) if raw.size >= size else raw
    m.outputs = []
    for i, (name, a) in enumerate(zip(names, outs, strict=True)):
        dtype = out_dtypes[i] if i < len(out_dtypes) else "float32"
        raw = np.fromfile(workdir / "capture" / f"arg{a[1]}.out", dtype=DTYPES[dtype].numpy)
        raw.tofile(workdir / f"out_{i}.bin")
        m.outputs.append(output_stub(name, [int(raw.size)], dtype))
    m.ok = True
    return drawn


def host_texts(op: Operator) -> list[str]:
    return [op.sources[p].text for p in op.model.host_files if p in op.sources]
