"""`NpuDevice`: an Ascend NPU on this machine as a `Device`, answering with the same `Measurement` the emulator does.

One run: build (device/npu/build.py, cached by content), draw the case's inputs exactly as the emulator does (same
seed, same arrays), run the numpy golden in a bounded child process, write the inputs as `.bin` files, launch under
`msprof op` (warm-up and launch count settable) on card `device_id`, read the outputs back and check them against
the golden (the golden and the check are the emulator's own functions, device/golden_check.py), and read the
profile (device/npu/msprof.py) into `time_us`, `pipes`, `bottleneck` and `block_dim`. Every consumer (tune,
suggest, optimize, the editor) works unchanged. The results cache keys a measurement by the device's name and chip;
the chip is the SoC's (`npu-smi`), so results from two kinds of card never mix.

Ray (and users) pick cards with `ASCEND_RT_VISIBLE_DEVICES`, which msprof op is documented not to support: it is
removed from every child's environment and the card is named by its id instead (device/npu/cann.py).
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import time
from pathlib import Path

from tilewise.analysis.chip import Chip, builtin_chips, load_chip
from tilewise.analysis.manifest import Case
from tilewise.analysis.operator import Operator
from tilewise.device.binding import bind_dtypes, output_names, split_knobs
from tilewise.device.golden import GoldenError
from tilewise.device.golden_check import case_golden, check_case
from tilewise.device.inputs import make_inputs
from tilewise.device.npu.build import NpuBuild, NpuBuildError, build_operator
from tilewise.device.npu.cann import Cann, chip_of_soc, find_cann, soc_name
from tilewise.device.npu.harness import HarnessError, harness_source, snake, spec_text
from tilewise.device.npu.msprof import ProfileError, msprof_argv, read_profile
from tilewise.device.process import run_bounded
from tilewise.device.protocol import Measurement, OutputCheck, RunError, RunRequest, Screening

DEFAULT_TIMEOUT_S = 120.0  # one launch under msprof op, warm-up included
BUILD_TIMEOUT_S = 1800.0  # a CANN build of an operator project takes minutes (opc compiles every dtype)
RUN_MEMORY = 16 << 30


class NpuDevice:
    name = "npu"

    def __init__(
        self,
        device_id: int = 0,
        *,
        chip: Chip | str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        cann: str | None = None,
        warm_up: int = 5,
        launches: int = 1,
        env: dict[str, str] | None = None,
        build_timeout_s: float = BUILD_TIMEOUT_S,
    ):
        self.device_id = device_id
        self.cann: Cann = find_cann(cann, env)  # CannError: one line saying what to source
        self.soc = soc_name(self.cann, device_id)
        self.chip = _chip_for(self.soc, chip)
        self.timeout_s, self.warm_up, self.launches = timeout_s, warm_up, launches
        self.build_timeout_s = max(build_timeout_s, timeout_s)

    def screen(self, op: Operator, request: RunRequest) -> Screening:
        """A card cannot run the host tiling alone: nothing is screened out (the measurement decides)."""
        return Screening(ok=True, reason="the NPU device does not screen configurations")

    def run(self, op: Operator, request: RunRequest) -> Measurement:
        case = request.case
        m = Measurement(ok=False, case=case.name, chip=self.chip.name)
        try:
            _, out_dtypes = bind_dtypes(op, case)
            arrays = make_inputs(case, request.seed, overrides=request.inputs)
        except ValueError as exc:
            m.error = RunError(kind="bad_case", message=str(exc), file=op.manifest.path if op.manifest else None)
            return m
        _, edited = split_knobs(
            op, request.knobs, request.texts, allow_runtime=False
        )  # knob values written into the sources
        start = time.perf_counter()
        try:
            build = build_operator(op, edited, self.cann, self.soc, self.build_timeout_s)
        except NpuBuildError as exc:
            m.error = exc.error
            return m
        m.compile_s, m.cached_build = time.perf_counter() - start, build.cached
        # user code, as the kernel is: in a bounded child, as on the emulator (device/golden_check.py)
        expected = case_golden(op, case, arrays, request.golden, timeout_s=self.timeout_s, memory_bytes=RUN_MEMORY)
        if isinstance(expected, GoldenError):
            m.error, m.correct = expected.error, False
            return m
        workdir = Path(tempfile.mkdtemp(prefix="tilewise-npu-"))
        try:
            self._launch(op, case, build, arrays, out_dtypes, expected, workdir, m)
            if m.ok:
                check_case(op, case, workdir, m, expected, request.rtol, request.atol, request.keep_outputs)
        except (HarnessError, ProfileError) as exc:
            m.ok, m.error = False, RunError(kind="npu", message=str(exc))
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        return m

    # ---- steps ------------------------------------------------------------------------------------------------
    def _launch(self, op, case, build: NpuBuild, arrays, out_dtypes, expected, workdir: Path, m: Measurement) -> None:
        names = output_names(op, len(expected or []))
        shapes = (
            [list(e.shape) for e in expected]
            if expected
            else [list(next(iter(case.inputs.values())).shape)] * len(names)
        )
        dtypes = out_dtypes[: len(names)] or ["float32"] * len(names)
        if op.model.layout == "invocation":
            assert build.exe is not None
            (workdir / "input").mkdir()
            (workdir / "output").mkdir()
            for name, values in arrays.items():  # the samples' convention, as the emulator writes them
                values.tofile(workdir / f"input_{name}.bin")
                values.tofile(workdir / "input" / f"input_{name}.bin")
            app, env = [str(build.exe)], dict(self.cann.env)
        else:
            assert build.vendor is not None
            for name, values in arrays.items():
                values.tofile(workdir / f"in_{name}.bin")
            exe = self._harness(op, case, build, dtypes)
            (workdir / "spec.txt").write_text(spec_text(op.model, case, shapes, str(workdir), self.device_id))
            app = [str(exe), str(workdir / "spec.txt")]
            env = {**self.cann.env, "ASCEND_CUSTOM_OPP_PATH": str(build.vendor)}
            env["LD_LIBRARY_PATH"] = f"{build.vendor / 'op_api' / 'lib'}:{env.get('LD_LIBRARY_PATH', '')}"
        kernel = op.model.kernel.entries[0].name if op.model.kernel.entries else None
        out = workdir / "prof"
        argv = msprof_argv(self.cann.msprof, out, app, kernel=kernel, warm_up=self.warm_up, launches=self.launches)
        start = time.perf_counter()
        proc = run_bounded(argv, cwd=workdir, env=env, timeout_s=self.timeout_s, memory_bytes=RUN_MEMORY)
        m.run_s = time.perf_counter() - start
        if proc is None:
            m.error = RunError(
                kind="timeout", message=f"the kernel did not finish on the NPU within {self.timeout_s:g} s"
            )
            return
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            m.error = RunError(
                kind="crash", message=f"msprof op exited with {proc.returncode}: {' | '.join(tail)[-400:]}"
            )
            return
        prof = read_profile(out, kernel)
        m.time_us, m.block_dim, m.pipes, m.bottleneck = prof.time_us, prof.block_dim, prof.pipes, prof.bottleneck
        m.warnings.extend(prof.warnings)
        m.outputs = []
        for i, name in enumerate(names):
            file = workdir / (f"out_{i}.bin" if op.model.layout != "invocation" else f"output_{name}.bin")
            if not file.exists() and op.model.layout == "invocation":
                file = workdir / "output" / f"output_{name}.bin"
            if not file.exists():
                m.error = RunError(kind="bad_output", message=f"the run wrote no {file.name} for output {name}")
                return
            file.rename(workdir / f"out_{i}.bin")
            m.outputs.append(OutputCheck(name=name, shape=shapes[i], dtype=dtypes[i]))
        m.ok = True

    def _harness(self, op: Operator, case: Case, build: NpuBuild, out_dtypes: list[str]) -> Path:
        """The aclnn harness for this case's signature, compiled once into the build's scratch folder."""
        source = harness_source(op.model, case, out_dtypes)
        key = hashlib.sha256(source.encode()).hexdigest()[:16]
        exe = build.scratch / f"harness-{key}"
        if exe.exists():
            return exe
        cpp = build.scratch / f"harness-{key}.cpp"
        cpp.write_text(source)
        assert build.vendor is not None
        api = build.vendor / "op_api"
        home = self.cann.home
        argv = [
            "g++", "-std=c++17", "-O1", str(cpp), "-o", str(exe) + ".tmp",
            f"-I{home / 'include'}", f"-I{home / 'include/aclnn'}", f"-I{api / 'include'}",
            f"-L{home / 'lib64'}", f"-L{api / 'lib'}", f"-Wl,-rpath,{api / 'lib'}",
            "-lcust_opapi", "-lnnopbase", "-lascendcl",
        ]  # fmt: skip
        # a compile: bounded by the build's time limit, not by one launch's
        proc = run_bounded(
            argv, cwd=build.scratch, env=self.cann.env, timeout_s=self.build_timeout_s, memory_bytes=RUN_MEMORY
        )
        if proc is None or proc.returncode != 0:
            errors = [] if proc is None else [x for x in proc.stderr.splitlines() if "error" in x]
            why = "timed out" if proc is None else (errors or proc.stderr.strip().splitlines() or ["failed"])[0]
            header = f"aclnn_{snake(op.model.opdef.name)}.h" if op.model.opdef else "the aclnn header"
            raise HarnessError(
                f"the aclnn harness for {op.model.operator} did not compile ({why}); is {header} installed?"
            )
        Path(str(exe) + ".tmp").replace(exe)
        return exe


def _chip_for(soc: str, chip: Chip | str | None) -> Chip:
    """The chip file of the SoC (its core count, UB and, for the analysis, timing constants), named after the SoC."""
    if isinstance(chip, Chip):
        base = chip
    elif chip:
        base = load_chip(chip)
    else:
        name = chip_of_soc(soc)
        base = load_chip(name if name in builtin_chips() else None)
    return base.model_copy(update={"name": chip_of_soc(soc)})
