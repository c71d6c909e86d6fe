"""The emulator as a Device (device/protocol.py): build, run one case in a bounded subprocess (process.py), read
what it wrote back into a Measurement (results.py) and check the outputs against the golden (device/golden_check.py,
shared with the NPU device)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from tilewise.analysis.chip import Chip, load_chip
from tilewise.analysis.host_copies import output_file_names
from tilewise.analysis.knobs import platform_knobs
from tilewise.analysis.manifest import Case
from tilewise.analysis.model import Knob
from tilewise.analysis.operator import Operator
from tilewise.device.binding import bind_dtypes, output_names, split_knobs
from tilewise.device.caller import infer_shape_notes
from tilewise.device.dtypes import BY_GE, DTYPES
from tilewise.device.emulator.build import Build, Builder, BuildError
from tilewise.device.emulator.results import (
    captured_launch,
    dtype_name,
    host_texts,
    output_stub,
    read_site_uses,
    read_timing,
    run_warnings,
)
from tilewise.device.emulator.target import choose_chip
from tilewise.device.emulator.timing import spec_lines as timing_spec_lines
from tilewise.device.golden import GoldenError
from tilewise.device.golden_check import case_golden, check_case
from tilewise.device.inputs import make_inputs, write_case_files
from tilewise.device.process import crash_error, file_limit, run_bounded
from tilewise.device.protocol import InitBufferUse, Measurement, RunError, RunRequest, Screening

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MEMORY_BYTES = 8 * 1024**3


class EmulatorDevice:
    """The CPU emulator, a `device.protocol.Device`: each run builds the operator against our AscendC headers (cached
    per source and dtype binding) and runs it in a subprocess bounded by `timeout_s` and `memory_bytes`."""

    name = "emulator"

    def __init__(
        self,
        chip: Chip | str | None = None,
        cache_dir: Path | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        memory_bytes: int = DEFAULT_MEMORY_BYTES,
    ):
        self.chip = chip if isinstance(chip, Chip) else load_chip(chip)
        self.chip_given = chip is not None  # else a run may move to the one chip the operator's OpDef registers
        self.builder = Builder(cache_dir)
        self.timeout_s = timeout_s
        self.memory_bytes = memory_bytes

    def run(self, op: Operator, request: RunRequest) -> Measurement:
        case, knobs, seed, trace_path = request.case, request.knobs, request.seed, request.trace_path
        m = Measurement(ok=False, case=case.name)
        chip, chip_note = choose_chip(op, self.chip, self.chip_given)
        try:
            type_macros, out_dtypes = bind_dtypes(op, case)
        except ValueError as exc:
            m.error = RunError(kind="bad_case", message=str(exc), file=op.manifest.path if op.manifest else None)
            return m
        if case.files and op.model.layout != "invocation":  # only a program with its own main reads such files
            m.error = RunError(
                kind="bad_case",
                file=op.manifest.path if op.manifest else None,
                message=(
                    f"case {case.name}: `files` are read by a kernel-invocation program's own host code; this operator "
                    f"is launched by tilewise ({op.model.layout} layout), so remove them"
                ),
            )
            return m
        try:
            build, runtime = self._build(op, type_macros, knobs, request.texts)
        except BuildError as exc:
            m.error = exc.error
            return m
        m.compile_s, m.cached_build = build.compile_s, build.cached
        try:
            arrays = make_inputs(case, seed, overrides=request.inputs)
        except ValueError as exc:  # a user-supplied array that does not fit the case
            m.error = RunError(kind="bad_case", message=str(exc))
            return m
        # The golden runs first: where the operator's InferShape leaves an output's shape unset (an aclnn caller
        # allocates the outputs itself, so real operators often never infer them), its answer gives the shape.
        expected = self._golden(op, case, arrays, request.golden)
        workdir = Path(tempfile.mkdtemp(prefix="tilewise-run-"))
        env = knob_env(runtime, knobs)
        try:
            if op.model.layout == "invocation":
                hints = expected if isinstance(expected, list) else []
                drawn = self._execute_invocation(
                    build.exe, op, case, arrays, out_dtypes, workdir, m, trace_path, hints, chip
                )
                if drawn is not None:  # the program made its own inputs: the golden answers for those
                    arrays = drawn
                    expected = self._golden(op, case, arrays, request.golden)
            else:
                hints = expected if isinstance(expected, list) else []
                self._execute(build.exe, op, case, arrays, workdir, m, trace_path, hints, env, request.sites, chip)
            if chip_note is not None:  # first: a failure below may be the wrong chip's doing
                m.warnings.insert(0, chip_note)
            if m.ok:
                check_case(op, case, workdir, m, expected, request.rtol, request.atol, request.keep_outputs)
            elif isinstance(expected, GoldenError):
                # The golden failed first, and without its answer an output may have had no shape or list length to
                # run with: the golden's error is the one to fix.
                m.error, m.correct = expected.error, False
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        return m

    def screen(self, op: Operator, request: RunRequest) -> Screening:
        """The host tiling, then block 0 up to its first copy or vector instruction, on the run's own build
        (device/emulator/screen.py)."""
        from tilewise.device.emulator.screen import screen_case  # here: screen.py uses this module's helpers

        return screen_case(self, op, request)

    # ---- steps ----------------------------------------------------------------------------------------------
    def _build(
        self, op: Operator, type_macros: dict[str, str], knobs: dict[str, int], texts: dict[str, str] | None
    ) -> tuple[Build, list[Knob]]:
        """The executable for these knob values and the knobs it takes at run time; raises BuildError."""
        runtime, edited = split_knobs(op, knobs, texts)
        try:
            return self.builder.build(op, type_macros, edited, runtime_knobs=runtime), runtime
        except BuildError as exc:
            if not runtime or not _in_host_file(op, exc.error):
                raise
            # The host uses a knob where C++ needs a constant: give it the literal instead (edits made on the
            # caller's texts, not on `edited`, whose literals have moved).
            _, edited = split_knobs(op, knobs, texts, allow_runtime=False)
            return self.builder.build(op, type_macros, edited), []

    def _golden(
        self, op: Operator, case: Case, arrays: dict[str, np.ndarray], golden: str | None
    ) -> list[np.ndarray] | GoldenError | None:
        """The golden's outputs, the error it gave, or None when there is no golden: computed in a bounded child,
        without network, within this device's limits (device/golden_check.py)."""
        return case_golden(op, case, arrays, golden, timeout_s=self.timeout_s, memory_bytes=self.memory_bytes)

    def _execute(
        self,
        exe: Path,
        op: Operator,
        case: Case,
        arrays: dict[str, np.ndarray],
        workdir: Path,
        m: Measurement,
        trace_path: str | None,
        hints: list[np.ndarray] | None = None,
        env: dict[str, str] | None = None,
        sites: bool = False,
        chip: Chip | None = None,
        screen: bool = False,
    ) -> None:
        chip = chip or self.chip
        try:
            names = output_names(op, len(hints or []), getattr(hints, "counts", None))
        except ValueError as exc:  # an in-place operator's golden returned more arrays than it has inputs
            m.error = RunError(kind="golden_shape", message=str(exc))
            return
        spec = [
            f"op {op.model.operator}",
            f"platform {chip.vector_cores} {chip.cube_cores} {chip.ub_bytes} {chip.l1_bytes}",
        ]
        for name, spec_in in case.inputs.items():
            path = workdir / f"in_{name}.bin"
            arrays[name].tofile(path)
            dims = " ".join(str(d) for d in spec_in.shape)
            spec.append(f"input {name} {DTYPES[spec_in.dtype].ge} {len(spec_in.shape)} {dims} {path}")
        for i, name in enumerate(names):
            spec.append(f"output {name} {workdir / f'out_{i}.bin'}")
            given = case.outputs.get(name.split("[")[0])
            if given is not None and given.dtype is not None:  # a list output's tensors all take it
                spec.append(f"output_dtype {i} {DTYPES[given.dtype].ge}")
        for i, want in enumerate(hints or []):  # used only for outputs that InferShape leaves without a shape
            spec.append(f"output_shape {i} {want.ndim} {' '.join(str(d) for d in want.shape)}".rstrip())
        for name, value in case.attrs.items():
            spec.append(f"attr {name} {_attr_text(value)}")
        if trace_path:
            spec.append(f"chrome_trace {trace_path}")
        if sites:  # what each call site did per block (`Measurement.sites`), for the editor's per-line figures
            spec.append(f"site_uses {workdir / 'sites.tsv'}")
        if case.outputs_init == "zeros":
            spec.append("outputs_init zeros")
        if screen:  # the tiling and block 0's set-up only (screen.py)
            spec.append("screen")
        spec.append(f"result {workdir / 'result.json'}")
        spec.extend(timing_spec_lines(chip))
        (workdir / "spec.txt").write_text("\n".join(spec) + "\n")

        start, limit = time.perf_counter(), file_limit(sum(a.nbytes for a in arrays.values()))
        proc = self._bounded([str(exe), str(workdir / "spec.txt")], workdir, env, limit)
        m.run_s = time.perf_counter() - start
        if proc is None:
            m.error = RunError(
                kind="timeout",
                message=(
                    f"the kernel did not finish within {self.timeout_s:g} s (an endless loop, or a wait that never "
                    "ends); it was killed"
                ),
            )
            return
        result_file = workdir / "result.json"
        if proc.returncode != 0 or not result_file.exists():
            m.error = crash_error(proc.returncode, proc.stderr, limit)
            return
        result = json.loads(result_file.read_text())
        m.warnings = run_warnings(result) + infer_shape_notes(op, result.get("outputs", []))
        m.block_dim = result.get("block_dim")
        m.tiling_key = result.get("tiling_key")
        m.tiling_digest = result.get("tiling_digest")
        m.workspace = result.get("workspace", [])
        m.ub_peak_bytes = result.get("ub_peak_bytes")
        m.init_buffers = [InitBufferUse(**b) for b in result.get("init_buffers", [])]
        m.trace_path = trace_path
        read_timing(result, m, chip.name)
        if sites and (workdir / "sites.tsv").exists():
            m.sites = read_site_uses(workdir / "sites.tsv", chip.clock_ghz)
        if result["status"] != "ok":
            e = result["error"]
            m.error = RunError(
                kind=e["kind"], message=e["message"], file=e.get("file") or None, line=e.get("line") or None
            )
            return
        m.ok = True
        m.outputs = []
        for out in result.get("outputs", []):
            dtype = BY_GE.get(out["dtype"])
            m.outputs.append(output_stub(out["name"], out["shape"], dtype.name if dtype else "float32"))

    def _execute_invocation(
        self,
        exe: Path,
        op: Operator,
        case: Case,
        arrays: dict[str, np.ndarray],
        out_dtypes: list[str],
        workdir: Path,
        m: Measurement,
        trace_path: str | None,
        hints: list[np.ndarray] | None = None,
        chip: Chip | None = None,
    ) -> dict[str, np.ndarray] | None:
        """Run the user's own host program; inputs and outputs travel as input_<name>.bin / output_<name>.bin in its
        working directory (or input/ and output/ below it), the convention of Huawei's kernel-invocation samples.
        A program that writes none of the outputs' files (it draws its own inputs and checks its own results) is
        read at its launch instead (see captured_launch): the inputs it drew are returned, for the golden."""
        (workdir / "input").mkdir()
        (workdir / "output").mkdir()
        # Reading the launch costs a copy of every device argument to disk: only for a program whose host code
        # names no output file of its own (it checks its own results), the one kind that needs it.
        capture = not output_file_names(host_texts(op))
        if capture:
            (workdir / "capture").mkdir()
        for name, values in arrays.items():
            values.tofile(workdir / f"input_{name}.bin")
            values.tofile(workdir / "input" / f"input_{name}.bin")
        write_case_files(case, workdir)  # the data files it reads besides its inputs (a tiling.bin)
        timing = workdir / "timing.txt"  # the chip's constants: the launcher times each launch with them
        timing.write_text("\n".join(timing_spec_lines(chip or self.chip)) + "\n")
        env = {
            **os.environ,
            "TW_RESULT": str(workdir / "result.json"),
            "TW_TRACE": str(trace_path or workdir / "trace.txt"),
            "TW_UB_BYTES": str((chip or self.chip).ub_bytes),
            "TW_TIMING": str(timing),
            **({"TW_CAPTURE": str(workdir / "capture")} if capture else {}),
        }
        start, limit = time.perf_counter(), file_limit(sum(a.nbytes for a in arrays.values()))
        proc = self._bounded([str(exe)], workdir, env, limit)
        m.run_s = time.perf_counter() - start
        if proc is None:
            m.error = RunError(
                kind="timeout",
                message=f"the program did not finish within {self.timeout_s:g} s; it and every process it started "
                "were killed",
            )
            return None
        result_file = workdir / "result.json"
        result = json.loads(result_file.read_text()) if result_file.exists() else None
        m.warnings = run_warnings(result or {})
        if result and result["status"] != "ok":
            e = result["error"]
            m.error = RunError(
                kind=e["kind"], message=e["message"], file=e.get("file") or None, line=e.get("line") or None
            )
            return None
        if proc.returncode != 0 or result is None:
            m.error = (
                crash_error(proc.returncode, proc.stderr, limit)
                if proc.returncode
                else RunError(kind="crash", message="the program launched no kernel")
            )
            return None
        m.block_dim, m.tiling_key, m.ub_peak_bytes = result["block_dim"], 0, result.get("ub_peak_bytes")
        read_timing(result, m, (chip or self.chip).name)
        m.trace_path = trace_path
        m.outputs = []
        names = [out.name for out in op.model.outputs]
        if names and not any(
            p.exists() for n in names for p in (workdir / f"output_{n}.bin", workdir / "output" / f"output_{n}.bin")
        ):
            return captured_launch(op, case, out_dtypes, workdir, m)
        if not names:  # outputs the sources do not name: the files the program wrote, in name order
            written = sorted({p.name for d in (workdir, workdir / "output") for p in d.glob("output_*.bin")})
            names = [n[len("output_") : -len(".bin")] for n in written]
            first = next(iter(case.inputs.values())).dtype if case.inputs else "float32"
            known = hints or []
            out_dtypes = [dtype_name(known[i].dtype) if i < len(known) else first for i in range(len(names))]
        for i, name in enumerate(names):
            found = [
                p for p in (workdir / f"output_{name}.bin", workdir / "output" / f"output_{name}.bin") if p.exists()
            ]
            if not found:
                m.error = RunError(
                    kind="bad_output",
                    message=(f"the program wrote no output_{name}.bin (in its working directory or output/)"),
                )
                return None
            dtype = out_dtypes[i] if i < len(out_dtypes) else "float32"
            raw = np.fromfile(found[0], dtype=DTYPES[dtype].numpy)
            raw.tofile(workdir / f"out_{i}.bin")
            m.outputs.append(output_stub(name, [int(raw.size)], dtype))
        m.ok = True
        return None

    def _bounded(
        self, argv: list[str], workdir: Path, env: dict[str, str] | None, file_bytes: int
    ) -> subprocess.CompletedProcess[str] | None:
        """Run one program within this device's time and memory limits, writing no file over `file_bytes` and
        without network where the machine allows (process.py); None when it timed out."""
        return run_bounded(
            argv,
            cwd=workdir,
            env=env,
            timeout_s=self.timeout_s,
            memory_bytes=self.memory_bytes,
            file_bytes=file_bytes,
            no_network=True,
        )


def knob_env(runtime: list[Knob], values: dict[str, int]) -> dict[str, str]:
    """The runner's environment: the run-time knobs' values (a run-time knob is one split_knobs found in `values`),
    which the host's knob reads take (tw_host/knobs.h)."""
    # Platform knobs need no text: the host's platform answers read them (tw_host/host_api.h, cap_platform).
    told = [(k.name, values[k.name]) for k in runtime] + sorted(platform_knobs(values).items())
    return {**os.environ, "TILEWISE_KNOBS": ",".join(f"{name}={value}" for name, value in told)}


def _in_host_file(op: Operator, error: RunError) -> bool:
    return bool(error.file) and error.file in op.model.host_files and error.file not in op.model.kernel_files


def _attr_text(value) -> str:
    if isinstance(value, bool):
        return f"b {int(value)}"
    if isinstance(value, int):
        return f"i {value}"
    if isinstance(value, float):
        return f"f {value!r}"
    if isinstance(value, list):
        if all(isinstance(v, int) for v in value):
            return "li " + " ".join(str(v) for v in value)
        return "lf " + " ".join(repr(float(v)) for v in value)
    return f"s {value}"
