"""Building an operator for the NPU as its layout requires, in a scratch folder, cached by content.

- An operator project (msopgen layout) is built by its own `build.sh` (cmake with the project's presets, then the
  `package` target), which leaves `build_out/custom_opp_<os>_<arch>.run`; that installer is run with
  `--install-path=<scratch>/opp`, so the operator lands in `<scratch>/opp/vendors/<vendor>/` and never in the
  user's `ASCEND_OPP_PATH`. `ASCEND_CUSTOM_OPP_PATH` is unset for the build (an older install must not shadow it)
  and points at the scratch vendor folder for the run. The aclnn harness (device/npu/harness.py) is compiled
  against the installed `op_api`.
- A kernel-invocation operator is built by its own CMakeLists (`ascendc_library`) with `RUN_MODE=npu`, the SoC and
  the toolkit's path, and its executable (`ascendc_kernels_bbit`, the samples' name, else the one executable the
  build made) runs as it is.

The sources are the caller's texts (an editor's unsaved buffers, a rewrite being verified) with the knob values
written into their literals; the user's folder is only read. A compiler error is mapped back to the user's file and
line. Every step runs in its own process group under a timeout (device/process.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from tilewise.analysis.operator import Operator
from tilewise.device.cache_dir import default_cache_dir
from tilewise.device.npu.cann import Cann
from tilewise.device.process import run_bounded
from tilewise.device.protocol import RunError

_ERROR = re.compile(r"^(?P<file>[^:\s][^:\n]*):(?P<line>\d+):(?:\d+:)? (?:fatal )?error: (?P<msg>.*)$", re.M)
SKIP = {"build", "build_out", ".git", "__pycache__"}
MEMORY_BYTES = 8 << 30  # a CANN build with its compilers is large; still bounded


class NpuBuildError(Exception):
    def __init__(self, error: RunError):
        super().__init__(error.message)
        self.error = error


@dataclass
class NpuBuild:
    scratch: Path  # the cached folder: src/ (the sources built), opp/ (the install), harness builds
    vendor: Path | None  # opp/vendors/<vendor>/ of an operator project
    exe: Path | None  # a kernel-invocation operator's executable
    cached: bool


def build_operator(op: Operator, texts: dict[str, str], cann: Cann, soc: str, timeout_s: float) -> NpuBuild:
    """The operator's build for `texts` (path -> text of every source that differs from the disk), cached."""
    root = Path(op.project.root)
    key = _key(root, texts, soc, cann)
    scratch = default_cache_dir() / "npu" / key
    done = scratch / "built.json"
    if done.exists():
        info = json.loads(done.read_text())
        return NpuBuild(scratch, _path(info.get("vendor")), _path(info.get("exe")), cached=True)
    if scratch.exists():  # a build that died half-way: never mistaken for a good one (no built.json)
        shutil.rmtree(scratch, ignore_errors=True)
    src = scratch / "src"
    shutil.copytree(root, src, ignore=lambda _d, names: [n for n in names if n in SKIP])
    for path, text in texts.items():
        target = src / os.path.relpath(path, root)
        if not str(target.resolve()).startswith(str(src.resolve())):
            continue  # (a source outside the operator's folder is not part of its build)
        target.write_text(text, encoding="utf-8")
    env = {k: v for k, v in cann.env.items() if k != "ASCEND_CUSTOM_OPP_PATH"}
    if op.model.layout == "invocation":
        build = NpuBuild(scratch, None, _cmake(src, root, env, cann, soc, timeout_s), cached=False)
    else:
        if not (src / "build.sh").exists():  # op_host/ and op_kernel/ alone: msopgen makes the project around them
            src = scaffold(op, src, cann, soc, env, timeout_s)
        build = NpuBuild(scratch, _project(src, root, env, soc, timeout_s), None, cached=False)
    tmp = done.with_suffix(".tmp")
    tmp.write_text(json.dumps({"vendor": str(build.vendor or ""), "exe": str(build.exe or "")}))
    tmp.replace(done)
    return build


def _project(src: Path, root: Path, env: dict[str, str], soc: str, timeout_s: float) -> Path:
    script = src / "build.sh"
    if not script.exists():
        raise NpuBuildError(
            RunError(
                kind="build_error", message="the operator project has no build.sh (msopgen makes one)", file=str(root)
            )
        )
    _presets(src, env, soc)
    _step(["bash", "build.sh"], src, root, env, timeout_s, "build.sh")
    runs = sorted((src / "build_out").glob("custom_opp_*.run"))
    if not runs:
        raise NpuBuildError(
            RunError(
                kind="build_error",
                message="build.sh succeeded but left no build_out/custom_opp_*.run",
                file=str(script),
            )
        )
    opp = src.parent / "opp"
    runs[0].chmod(0o755)
    _step([str(runs[0]), f"--install-path={opp}"], src, root, env, timeout_s, runs[0].name)
    vendors = sorted(p for p in (opp / "vendors").glob("*") if (p / "op_api").is_dir())
    if not vendors:
        raise NpuBuildError(
            RunError(
                kind="build_error", message=f"{runs[0].name} installed no vendors/*/op_api under {opp}", file=str(root)
            )
        )
    return vendors[0]


MSOPGEN_DTYPES = {"float32": "float", "float16": "float16", "bfloat16": "bfloat16", "int32": "int32", "int8": "int8",
                  "uint8": "uint8", "int16": "int16", "int64": "int64", "bool": "bool"}  # fmt: skip
MSOPGEN_ATTRS = {"float": "float", "int": "int", "bool": "bool", "string": "str", "listint": "listInt",
                 "listfloat": "listFloat"}  # fmt: skip


def op_description(op: Operator) -> list[dict]:
    """The operator as msopgen's JSON describes one: inputs, outputs (name, param_type, formats, dtypes), attrs."""
    model = op.model
    if model.opdef is None:
        raise NpuBuildError(
            RunError(
                kind="build_error",
                message="no OpDef in op_host: msopgen needs the operator's signature",
                file=str(model.root),
            )
        )

    def tensors(params) -> list[dict]:
        out = []
        for t in params:
            types = [MSOPGEN_DTYPES.get(d, d) for d in t.dtypes] or ["float16"]
            formats = t.formats if len(t.formats) == len(types) else ["ND"] * len(types)
            out.append({"name": t.name, "param_type": t.param_type.lower(), "format": formats, "type": types})
        return out

    attrs = [
        {
            "name": a.name,
            "param_type": "required" if a.required else "optional",
            "type": MSOPGEN_ATTRS.get(a.type.lower(), a.type),
        }
        | ({"default_value": a.default} if a.default is not None else {})
        for a in model.attrs
    ]
    return [
        {
            "op": model.opdef.name,
            "input_desc": tensors(model.inputs),
            "output_desc": tensors(model.outputs),
            "attr": attrs,
        }
    ]


def scaffold(op: Operator, src: Path, cann: Cann, soc: str, env: dict[str, str], timeout_s: float) -> Path:
    """An msopgen project (build.sh, CMakePresets.json, cmake/) around the operator's own op_host/ and op_kernel/:
    `msopgen gen -i op.json -c ai_core-<soc> -lan cpp -out DIR`, then the generated sources replaced by the user's."""
    root = Path(op.project.root)
    msopgen = cann.tool("msopgen")
    if msopgen is None:
        raise NpuBuildError(
            RunError(
                kind="build_error",
                message="the operator has no build.sh and CANN has no msopgen to make one",
                file=str(root),
            )
        )
    desc = src.parent / "op.json"
    desc.write_text(json.dumps(op_description(op), indent=2))
    project = src.parent / "project"
    _step(
        [msopgen, "gen", "-i", str(desc), "-c", f"ai_core-{soc}", "-lan", "cpp", "-out", str(project)],
        src.parent,
        root,
        env,
        timeout_s,
        "msopgen gen",
    )
    for part in ("op_host", "op_kernel"):
        generated, own = project / part, src / part
        if not own.is_dir():
            continue
        for f in list(generated.glob("*.cpp")) + list(generated.glob("*.h")):
            f.unlink()  # the generated stubs would register the operator a second time
        shutil.copytree(own, generated, dirs_exist_ok=True)
    return project


def _presets(src: Path, env: dict[str, str], soc: str) -> None:
    """Point the project's CMakePresets.json at this toolkit and SoC (the values msopgen wrote are another
    machine's); a project without presets keeps its own configuration."""
    presets = src / "CMakePresets.json"
    if not presets.exists():
        return
    try:
        data = json.loads(presets.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return
    for preset in data.get("configurePresets", []):
        cache = preset.get("cacheVariables", {})
        for name, value in (
            ("ASCEND_CANN_PACKAGE_PATH", env.get("ASCEND_HOME_PATH")),
            ("ASCEND_COMPUTE_UNIT", _unit(soc)),
        ):
            if name in cache and value:
                cache[name] = {**cache[name], "value": value} if isinstance(cache[name], dict) else value
    presets.write_text(json.dumps(data, indent=4), encoding="utf-8")


def _unit(soc: str) -> str:
    """`Ascend910B3` -> `ascend910b` (the compute unit CMakePresets names)."""
    m = re.match(r"Ascend(\d+[A-Za-z]?)", soc)
    return f"ascend{m.group(1).lower()}" if m else soc.lower()


def _cmake(src: Path, root: Path, env: dict[str, str], cann: Cann, soc: str, timeout_s: float) -> Path:
    configure = [
        "cmake", "-B", "build", "-DRUN_MODE=npu", f"-DSOC_VERSION={soc}",
        f"-DASCEND_CANN_PACKAGE_PATH={cann.home}", "-DCMAKE_BUILD_TYPE=Release",
    ]  # fmt: skip
    _step(configure, src, root, env, timeout_s, "cmake")
    _step(["cmake", "--build", "build", "-j", str(os.cpu_count() or 2)], src, root, env, timeout_s, "cmake --build")
    named = src / "build" / "ascendc_kernels_bbit"
    if named.exists():
        return named
    exes = [
        p for p in (src / "build").rglob("*") if p.is_file() and os.access(p, os.X_OK) and "CMakeFiles" not in p.parts
    ]
    if len(exes) != 1:
        raise NpuBuildError(
            RunError(
                kind="build_error",
                message=f"the CMake build made {len(exes)} executables; name one ascendc_kernels_bbit",
                file=str(root),
            )
        )
    return exes[0]


def _step(argv: list[str], src: Path, root: Path, env: dict[str, str], timeout_s: float, what: str) -> None:
    proc = run_bounded(argv, cwd=src, env=env, timeout_s=timeout_s, memory_bytes=MEMORY_BYTES)
    if proc is None:
        raise NpuBuildError(
            RunError(
                kind="timeout", message=f"{what} did not finish within {timeout_s:g} s; it and its children were killed"
            )
        )
    if proc.returncode != 0:
        raise NpuBuildError(_build_error(proc.stdout + "\n" + proc.stderr, src, root, what, proc.returncode))


def _build_error(output: str, src: Path, root: Path, what: str, code: int) -> RunError:
    """The first compiler error in a file of the operator's own, at the user's path and line."""
    for m in _ERROR.finditer(output):
        path = Path(m.group("file"))
        full = path if path.is_absolute() else src / path
        try:
            rel = full.resolve().relative_to(src.resolve())
        except ValueError:
            continue
        return RunError(
            kind="compile_error", message=m.group("msg").strip(), file=str(root / rel), line=int(m.group("line"))
        )
    tail = "\n".join(line for line in output.strip().splitlines()[-5:])
    return RunError(kind="build_error", message=f"{what} failed (exit {code}): {tail[-400:]}", file=str(root))


def _key(root: Path, texts: dict[str, str], soc: str, cann: Cann) -> str:
    h = hashlib.sha256(f"{soc}\0{cann.home}\0".encode())
    for p in sorted(root.rglob("*")):
        if p.is_file() and not SKIP & set(p.relative_to(root).parts):
            body = texts.get(str(p))
            h.update(str(p.relative_to(root)).encode() + b"\0")
            h.update(body.encode() if body is not None else p.read_bytes())
    return h.hexdigest()[:24]


def _path(text: str | None) -> Path | None:
    return Path(text) if text else None
